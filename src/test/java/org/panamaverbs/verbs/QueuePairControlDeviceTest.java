package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** Querying attributes, moving to ERR and draining, reset and reuse, retry settings. */
class QueuePairControlDeviceTest extends DeviceTest {

    @Test
    void queryReportsWhatConnectSet() {
        try (Loopback l = new Loopback(4096, 1)) {
            QpAttributes a = l.a.query();
            assertEquals(QpState.RTS, a.state());
            assertEquals(l.b.qpNumber(), a.destQpNumber());
            assertEquals(l.a.psn(), a.sendPsn());
            assertEquals(l.b.psn(), a.receivePsn());
            assertEquals(context.queryPort(1).activeMtu(), a.pathMtu());
            assertEquals(1, a.port());
            assertEquals(14, a.timeout());
            assertEquals(7, a.retryCount());
            assertEquals(7, a.rnrRetry());
            assertEquals(12, a.minRnrTimer());
            assertTrue((a.access() & Access.REMOTE_WRITE.bit()) != 0);
            assertTrue(a.capabilities().maxSendWr() >= 32);
        }
    }

    @Test
    void customRetrySettingsAndMtuAreApplied() {
        try (CompletionQueue cq = context.createCompletionQueue(16);
             QueuePair a = pd.createQueuePair(QpConfig.builder(cq).build());
             QueuePair b = pd.createQueuePair(QpConfig.builder(cq).build())) {
            QpConnectOptions options = QpConnectOptions.builder().timeout(18).retryCount(3).rnrRetry(5)
                    .pathMtu(Mtu.MTU_512).build();
            QueuePair.connectLoopback(a, b, options);
            QpAttributes attributes = a.query();
            assertEquals(18, attributes.timeout());
            assertEquals(3, attributes.retryCount());
            assertEquals(5, attributes.rnrRetry());
            assertEquals(Mtu.MTU_512, attributes.pathMtu());
        }
    }

    @Test
    void addressVectorOptionsReachTheQueuePairAndItsPacketsStillArrive() {
        QpConnectOptions options = QpConnectOptions.builder().trafficClass(0x68).flowLabel(0xABCDE).hopLimit(64).build();
        try (Loopback l = new Loopback(4096, 1, options)) {
            QpAttributes a = l.a.query();
            assertEquals(0x68, a.trafficClass());
            assertEquals(0xABCDE, a.flowLabel());
            assertEquals(64, a.hopLimit());
            fill(l.mrA, 0, 700, 41);
            l.sends.get(0).wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(l.mrA, 0, 700)
                    .remote(l.mrB.address(), l.mrB.rkey());
            l.a.postSendOrThrow(l.sends, 1);
            assertEquals(WcStatus.SUCCESS, await(l.cqA, 1).getFirst().status());
            assertArrayEquals(bytes(l.mrA, 0, 700), bytes(l.mrB, 0, 700));
        }
        assertThrows(IllegalArgumentException.class, () -> QpConnectOptions.builder().flowLabel(0x100000));
    }

    @Test
    void pkeyIndexInsideThePortsTableIsSetAndOutsideItIsRefusedBeforeTheKernel() {
        int tableLength = context.queryPort(1).pkeyTableLength();
        assertTrue(tableLength >= 1, "every port has P_Key 0");
        try (CompletionQueue cq = context.createCompletionQueue(16);
             QueuePair a = pd.createQueuePair(QpConfig.builder(cq).pkeyIndex(tableLength - 1).build());
             QueuePair b = pd.createQueuePair(QpConfig.builder(cq).pkeyIndex(tableLength - 1).build())) {
            QueuePair.connectLoopback(a, b, QpConnectOptions.defaults());
            assertEquals(tableLength - 1, a.query().pkeyIndex());
            IllegalArgumentException outside = assertThrows(IllegalArgumentException.class,
                    () -> pd.createQueuePair(QpConfig.builder(cq).pkeyIndex(tableLength).build()));
            assertTrue(outside.getMessage().contains("pkey_tbl_len " + tableLength), outside.getMessage());
        }
    }

    @Test
    void completionVectorsOfTheDeviceAreTakenAndOthersRefused() {
        int vectors = context.completionVectors();
        assertTrue(vectors >= 1, "num_comp_vectors " + vectors);
        try (CompletionChannel channel = context.createCompletionChannel();
             CompletionQueue last = context.createCompletionQueue(8, channel, vectors - 1)) {
            assertTrue(last.capacity() >= 8);
            IllegalArgumentException outside = assertThrows(IllegalArgumentException.class,
                    () -> context.createCompletionQueue(8, channel, vectors));
            assertTrue(outside.getMessage().contains("num_comp_vectors"), outside.getMessage());
            assertThrows(IllegalArgumentException.class, () -> context.createCompletionQueue(8, null, -1));
        }
    }

    @Test
    void errorStateFlushesOutstandingReceives() {
        try (Loopback l = new Loopback(4096, 1)) {
            for (int i = 0; i < 5; i++) {
                l.recvs.get(i).wrId(100 + i).sge(l.mrB, i * 64L, 64);
            }
            l.b.postRecvOrThrow(l.recvs, 5);
            l.b.modifyToError();
            assertEquals(QpState.ERR, l.b.state());
            List<Done> flushed = await(l.cqB, 5);
            assertEquals(List.of(100L, 101L, 102L, 103L, 104L), flushed.stream().map(Done::wrId).toList());
            assertTrue(flushed.stream().allMatch(d -> d.status() == WcStatus.WR_FLUSH_ERR), flushed.toString());
        }
    }

    @Test
    void resetQueuePairsCanBeConnectedAgainAndCarryTraffic() {
        try (Loopback l = new Loopback(4096, 1)) {
            l.a.modifyToError();
            l.b.modifyToError();
            l.a.reset();
            l.b.reset();
            assertEquals(QpState.RESET, l.a.state());
            QueuePair.connectLoopback(l.a, l.b);
            assertEquals(QpState.RTS, l.a.state());
            fill(l.mrA, 0, 500, 70);
            l.sends.get(0).wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(l.mrA, 0, 500)
                    .remote(l.mrB.address(), l.mrB.rkey());
            l.a.postSendOrThrow(l.sends, 1);
            assertEquals(WcStatus.SUCCESS, await(l.cqA, 1).getFirst().status());
            assertArrayEquals(bytes(l.mrA, 0, 500), bytes(l.mrB, 0, 500));
        }
    }

    @Test
    void sendWithoutAPostedReceiveExhaustsRnrRetries() {
        try (CompletionQueue cqA = context.createCompletionQueue(16);
             CompletionQueue cqB = context.createCompletionQueue(16);
             QueuePair a = pd.createQueuePair(QpConfig.builder(cqA).build());
             QueuePair b = pd.createQueuePair(QpConfig.builder(cqB).build());
             MemoryRegion mr = pd.allocateAndRegister(4096, Access.LOCAL_WRITE);
             SendChain sends = SendChain.allocate(1, 1)) {
            // rnr_retry 0: the first RNR NAK fails the send instead of retrying forever (rnr_retry 7).
            QueuePair.connectLoopback(a, b, QpConnectOptions.builder().rnrRetry(0).build());
            sends.get(0).wrId(9).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(mr, 0, 32);
            a.postSendOrThrow(sends, 1);
            Done done = await(cqA, 1).getFirst();
            assertEquals(9, done.wrId());
            assertEquals(WcStatus.RNR_RETRY_EXC_ERR, done.status());
        }
    }
}
