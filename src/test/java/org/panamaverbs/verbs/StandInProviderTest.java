package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The library's whole path on a provider it never saw, with no device: a child JVM ({@link StandInTree}) opens the
 * stand-in libibverbs of the native benchmark ({@link StandIn}) through {@code Rdma.open}, makes a protection domain,
 * a completion queue, an RC queue pair (connected to itself) and a region, posts an unsignaled and a signaled RDMA
 * WRITE and a receive, and polls: the one completion carries the signaled request's {@code wr_id}, status, opcode,
 * byte count and queue pair. It also shows the two refusals a provider's missing operations bring: shared receive
 * queues without {@code ops.post_srq_recv}, and a whole device ("stub1") without the legacy data-path operations,
 * refused when it opens (and closed again) rather than crashing at the first post.
 */
class StandInProviderTest {
    @Test
    void aTreeOnTheStandInRunsTheDataPathAndItsMissingOperationsAreRefused() throws Exception {
        String output = StandIn.run(StandInTree.class, List.of());
        assertEquals("NOT_PVRDMA", StandIn.value(output, "profile"), output);
        assertEquals("RESET", StandIn.value(output, "qp.state.created"), output);
        assertEquals("RTS", StandIn.value(output, "qp.state.connected"), output);
        assertEquals("true", StandIn.value(output, "mr.keys"), output);
        assertEquals("0", StandIn.value(output, "postSend"), output);
        assertEquals("0", StandIn.value(output, "postRecv"), output);
        assertEquals("1", StandIn.value(output, "polled"), output);
        assertEquals(List.of("2 SUCCESS RDMA_WRITE 100 true"), StandIn.values(output, "wc"), output);
        assertEquals("0", StandIn.value(output, "polled.again"), output);
        assertEquals("true", StandIn.value(output, "srq.refused"), output);
        assertEquals("true", StandIn.value(output, "closed"), output);
        assertEquals("ibv_post_send true", StandIn.value(output, "stub1.refused"), output);
    }
}
