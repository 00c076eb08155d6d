package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The library's whole path on a provider it never saw, with no device: a child JVM ({@link StandInTree}) opens the
 * stand-in libibverbs of the native benchmark ({@link StandIn}) through {@code Rdma.open} and runs every step once;
 * the tests below read what it printed.
 */
class StandInProviderTest {
    private static String output;
    private static String fast;

    @BeforeAll
    static void runTheTreeOnTheStandIn() throws Exception {
        output = StandIn.run(StandInTree.class, List.of(), "tree");
        fast = StandIn.run(StandInTree.class, List.of(), "fast");
    }

    /**
     * A chain posted again with the same count takes the fast path; what reaches the provider is exactly the
     * requests of each post's count, whichever path it took, as the completions of the signaled requests show.
     */
    @Test
    void eachPostHandsTheProviderItsCountWhenTheCutMoves() {
        assertEquals(List.of("2 0 10 11", "1 0 10", "3 0 10 11 12", "1 0 10", "1 0 10", "3 0 10 11 12", "3 0 10 11 12"),
                StandIn.values(fast, "count"), fast);
    }

    /** A refused request ends the fast path: bad_wr names it, the next post clears it and posts every request. */
    @Test
    void aRefusedPostIsReportedAndTheNextPostChecksAgain() {
        assertValues(fast, "failed", "22 1 10", "after.failure", "0 -1 10 11 12");
    }

    /**
     * A count outside 1..capacity is refused before the provider, both after a proof ended (a refused post) and
     * while the chain is ready for another count (the fuzzer found the first through the fast path).
     */
    @Test
    void countsOutsideTheChainAreRefusedOnEitherPath() {
        assertValues(fast, "count.outside", "IndexOutOfBoundsException IndexOutOfBoundsException IndexOutOfBoundsException",
                "count.zero.ready", "IndexOutOfBoundsException 0 10");
    }

    /**
     * What the fast path skips is refused as before: a region closed since the chain was proven, a queue pair of
     * another context, a closed queue pair, a closed region over memory the region held (a direct buffer's, an
     * automatic arena's), a closed chain; none of those posts reaches the provider. Memory of an arena the caller can
     * close, also seen through a buffer, is not registered without that arena.
     */
    @Test
    void theFastPathRefusesWhatTheCheckedPathRefuses() {
        assertValues(fast, "other.region", "0 0 10 10", "closed.region", "IllegalStateException",
                "region.again", "0 0 10 10", "other.context", "IllegalArgumentException", "before.close", "0 0 10 10",
                "closed.qp", "IllegalStateException", "open.qp", "0 10", "recv", "0 0 0",
                "arena.memory", "IllegalArgumentException IllegalArgumentException", "buffer.memory", "0 0 0 0 30 30",
                "buffer.region.closed", "IllegalStateException IllegalStateException",
                "closed.chain", "IllegalStateException IllegalStateException");
    }

    /**
     * A protection domain, a completion queue, an RC queue pair connected to itself and a region; an unsignaled and a
     * signaled RDMA WRITE and a receive posted; the one completion carries the signaled request's {@code wr_id},
     * status, opcode, byte count and queue pair; closing the context closes the tree.
     */
    @Test
    void aTreeOpenedThroughThePublicApiRunsTheDataPath() {
        assertValues(output, "profile", "NOT_PVRDMA", "qp.state.created", "RESET", "qp.state.connected", "RTS",
                "mr.keys", "true", "postSend", "0", "postRecv", "0", "polled", "1", "polled.again", "0", "closed", "true");
        assertEquals(List.of("2 SUCCESS RDMA_WRITE 100 true"), StandIn.values(output, "wc"), output);
    }

    /** Asserts that {@code output} has each key once, with the value after it: {@code key, value, key, value, ...}. */
    private static void assertValues(String output, String... keysAndValues) {
        for (int i = 0; i < keysAndValues.length; i += 2) {
            assertEquals(keysAndValues[i + 1], StandIn.value(output, keysAndValues[i]), keysAndValues[i] + " in " + output);
        }
    }

    /** A context without {@code query_device_ex} reports no on-demand paging, and ON_DEMAND is refused before the kernel. */
    @Test
    void aContextWithoutQueryDeviceExHasNoOnDemandPaging() {
        assertValues(output, "odp", "OnDemandPaging[generalCaps=0, rcCaps=0, ucCaps=0, udCaps=0]",
                "odp.region.refused", "ibv_reg_mr true");
    }

    /**
     * A null region from the context's {@code alloc_null_mr}: its local key, no remote key, zeroed memory for its
     * entries; an RDMA WRITE from it hands the provider the null key and completes; closed twice without harm, then
     * refused for posts and keys; a length of 0 refused; one left open closes with the tree.
     */
    @Test
    void aNullRegionCarriesTheNullKeyAndClosesWithTheTree() {
        assertValues(output, "null.region", "true 0x4e554c4c 0 4096 0", "null.rkey", "UnsupportedOperationException",
                "null.write", "0 0x4e554c4c 1 9 SUCCESS 200",
                "null.after.close", "IllegalStateException IllegalStateException true",
                "null.length.zero", "IllegalArgumentException", "null.closed.with.tree", "true");
    }

    /** A provider without {@code ops.post_srq_recv}: shared receive queues are refused before any native call. */
    @Test
    void sharedReceiveQueuesWithoutPostSrqRecvAreRefused() {
        assertEquals("true", StandIn.value(output, "srq.refused"), output);
    }

    /**
     * A device whose contexts lack the legacy {@code poll_cq}/{@code post_send}/{@code post_recv} ("stub1"): refused
     * when it opens (and closed again), not a crash at the first post.
     */
    @Test
    void aDeviceWithoutDataPathOperationsIsRefusedWhenItOpens() {
        assertEquals("ibv_post_send true", StandIn.value(output, "stub1.refused"), output);
    }
}
