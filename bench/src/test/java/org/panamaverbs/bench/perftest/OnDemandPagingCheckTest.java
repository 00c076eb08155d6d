package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.panamaverbs.bench.perftest.OnDemandPagingCheck.Verb;
import org.panamaverbs.verbs.OnDemandPaging;

/** {@code --odp}'s refusals: perftest's check_odp_support and check_odp_transport_caps, message for message. */
class OnDemandPagingCheckTest {
    private static final int ALL_OPERATIONS = OnDemandPaging.SEND | OnDemandPaging.RECV | OnDemandPaging.WRITE
            | OnDemandPaging.READ | OnDemandPaging.ATOMIC | OnDemandPaging.SRQ_RECV;

    private static OnDemandPaging rc(int operations) {
        return new OnDemandPaging(OnDemandPaging.SUPPORT, operations, 0, 0);
    }

    @Test
    void aDeviceWithoutOnDemandPagingIsRefusedWhateverTheTest() {
        OnDemandPaging none = new OnDemandPaging(0, ALL_OPERATIONS, ALL_OPERATIONS, ALL_OPERATIONS);
        for (Verb verb : Verb.values()) {
            assertEquals("The device does not support On-Demand Paging.",
                    OnDemandPagingCheck.refusal(none, false, verb, true, false));
            assertEquals("The device does not support On-Demand Paging.",
                    OnDemandPagingCheck.refusal(none, true, verb, false, false));
        }
    }

    @Test
    void rcNeedsTheTestsOperationsOnEachSide() {
        assertEquals("ODP Send is not supported for RC transport.",
                OnDemandPagingCheck.refusal(rc(OnDemandPaging.RECV), false, Verb.SEND, true, false));
        assertNull(OnDemandPagingCheck.refusal(rc(OnDemandPaging.SEND), false, Verb.SEND, true, false));
        assertEquals("ODP Recv is not supported for RC transport.",
                OnDemandPagingCheck.refusal(rc(OnDemandPaging.SEND), false, Verb.SEND, false, false));
        assertNull(OnDemandPagingCheck.refusal(rc(OnDemandPaging.SRQ_RECV), false, Verb.SEND, false, false));
        assertEquals("ODP bidirectional Send is not supported for RC transport.",
                OnDemandPagingCheck.refusal(rc(OnDemandPaging.SEND), false, Verb.SEND, true, true));
        assertNull(OnDemandPagingCheck.refusal(rc(OnDemandPaging.SEND | OnDemandPaging.RECV), false, Verb.SEND, false, true));
        assertEquals("ODP Write is not supported for RC transport.",
                OnDemandPagingCheck.refusal(rc(ALL_OPERATIONS & ~OnDemandPaging.WRITE), false, Verb.WRITE, true, false));
        assertEquals("ODP Read is not supported for RC transport.",
                OnDemandPagingCheck.refusal(rc(ALL_OPERATIONS & ~OnDemandPaging.READ), false, Verb.READ, false, true));
        assertEquals("ODP Atomics are not supported for RC transport.",
                OnDemandPagingCheck.refusal(rc(ALL_OPERATIONS & ~OnDemandPaging.ATOMIC), false, Verb.ATOMIC, true, false));
        for (Verb verb : Verb.values()) {
            assertNull(OnDemandPagingCheck.refusal(rc(ALL_OPERATIONS), false, verb, true, true));
        }
    }

    @Test
    void udIsNotCheckedBeyondSupport() {
        assertNull(OnDemandPagingCheck.refusal(new OnDemandPaging(OnDemandPaging.SUPPORT, 0, 0, 0), true, Verb.SEND,
                true, false));
    }
}
