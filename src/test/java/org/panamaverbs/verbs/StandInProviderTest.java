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
        assertEquals("22 1 10", StandIn.value(fast, "failed"), fast);
        assertEquals("0 -1 10 11 12", StandIn.value(fast, "after.failure"), fast);
    }

    /**
     * What the fast path skips is refused as before: a region closed since the chain was proven, a queue pair of
     * another context, a closed queue pair, a closed chain; none of those posts reaches the provider.
     */
    @Test
    void theFastPathRefusesWhatTheCheckedPathRefuses() {
        assertEquals("0 0 10 10", StandIn.value(fast, "other.region"), fast);
        assertEquals("IllegalStateException", StandIn.value(fast, "closed.region"), fast);
        assertEquals("0 0 10 10", StandIn.value(fast, "region.again"), fast);
        assertEquals("IllegalArgumentException", StandIn.value(fast, "other.context"), fast);
        assertEquals("0 0 10 10", StandIn.value(fast, "before.close"), fast);
        assertEquals("IllegalStateException", StandIn.value(fast, "closed.qp"), fast);
        assertEquals("0 10", StandIn.value(fast, "open.qp"), fast);
        assertEquals("0 0 0", StandIn.value(fast, "recv"), fast);
        assertEquals("IllegalStateException IllegalStateException", StandIn.value(fast, "closed.chain"), fast);
    }

    /**
     * A protection domain, a completion queue, an RC queue pair connected to itself and a region; an unsignaled and a
     * signaled RDMA WRITE and a receive posted; the one completion carries the signaled request's {@code wr_id},
     * status, opcode, byte count and queue pair; closing the context closes the tree.
     */
    @Test
    void aTreeOpenedThroughThePublicApiRunsTheDataPath() {
        assertEquals("NOT_PVRDMA", StandIn.value(output, "profile"), output);
        assertEquals("RESET", StandIn.value(output, "qp.state.created"), output);
        assertEquals("RTS", StandIn.value(output, "qp.state.connected"), output);
        assertEquals("true", StandIn.value(output, "mr.keys"), output);
        assertEquals("0", StandIn.value(output, "postSend"), output);
        assertEquals("0", StandIn.value(output, "postRecv"), output);
        assertEquals("1", StandIn.value(output, "polled"), output);
        assertEquals(List.of("2 SUCCESS RDMA_WRITE 100 true"), StandIn.values(output, "wc"), output);
        assertEquals("0", StandIn.value(output, "polled.again"), output);
        assertEquals("true", StandIn.value(output, "closed"), output);
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
