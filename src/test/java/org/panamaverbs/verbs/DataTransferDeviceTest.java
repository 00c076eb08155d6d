package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Bytes, immediates and statuses that really moved between two connected RC queue pairs on the device. */
class DataTransferDeviceTest extends DeviceTest {

    @Test
    void sendAndReceiveMoveTheBytes() {
        try (Loopback l = new Loopback(8192, 1)) {
            fill(l.mrA, 0, 3000, 1);
            l.recvs.get(0).wrId(500).sge(l.mrB, 1024, 4096);
            l.b.postRecvOrThrow(l.recvs, 1);
            l.sends.get(0).wrId(7).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(l.mrA, 0, 3000);
            l.a.postSendOrThrow(l.sends, 1);

            Done sent = await(l.cqA, 1).getFirst();
            assertEquals(new Done(7, WcStatus.SUCCESS, WcOpcode.SEND, sent.byteLength(), false, sent.imm(), l.a.qpNumber()), sent);
            Done received = await(l.cqB, 1).getFirst();
            assertEquals(500, received.wrId());
            assertEquals(WcStatus.SUCCESS, received.status());
            assertEquals(WcOpcode.RECV, received.opcode());
            assertEquals(3000, received.byteLength());
            assertFalse(received.hasImm());
            assertEquals(l.b.qpNumber(), received.qpNumber());
            assertArrayEquals(bytes(l.mrA, 0, 3000), bytes(l.mrB, 1024, 3000));
        }
    }

    @Test
    void sendWithImmediateDeliversTheImmediate() {
        try (Loopback l = new Loopback(4096, 1)) {
            fill(l.mrA, 0, 256, 2);
            l.recvs.get(0).wrId(1).sge(l.mrB, 0, 4096);
            l.b.postRecvOrThrow(l.recvs, 1);
            l.sends.get(0).wrId(2).opcode(WrOpcode.SEND_WITH_IMM).flags(SendFlags.SIGNALED).immediateData(0x8BADF00D)
                    .sge(l.mrA, 0, 256);
            l.a.postSendOrThrow(l.sends, 1);
            assertEquals(WcStatus.SUCCESS, await(l.cqA, 1).getFirst().status());
            Done received = await(l.cqB, 1).getFirst();
            assertEquals(WcOpcode.RECV, received.opcode());
            assertTrue(received.hasImm());
            assertEquals(0x8BADF00D, received.imm());
            assertEquals(256, received.byteLength());
            assertArrayEquals(bytes(l.mrA, 0, 256), bytes(l.mrB, 0, 256));
        }
    }

    @Test
    void rdmaWritePlacesBytesWithoutAReceive() {
        try (Loopback l = new Loopback(65536, 1)) {
            fill(l.mrA, 100, 40000, 3);
            l.sends.get(0).wrId(3).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(l.mrA, 100, 40000)
                    .remote(l.mrB.address() + 2000, l.mrB.rkey());
            l.a.postSendOrThrow(l.sends, 1);
            Done done = await(l.cqA, 1).getFirst();
            assertEquals(WcStatus.SUCCESS, done.status());
            assertEquals(WcOpcode.RDMA_WRITE, done.opcode());
            assertArrayEquals(bytes(l.mrA, 100, 40000), bytes(l.mrB, 2000, 40000));
            assertArrayEquals(new byte[2000], bytes(l.mrB, 0, 2000), "nothing written before the target");
            try (CompletionArray wcs = CompletionArray.allocate(4)) {
                assertEquals(0, l.cqB.poll(wcs), "RDMA WRITE consumes no receive");
            }
        }
    }

    @Test
    void rdmaWriteWithImmediateWritesAndConsumesAReceive() {
        try (Loopback l = new Loopback(8192, 1)) {
            fill(l.mrA, 0, 4096, 4);
            l.recvs.get(0).wrId(99).sge(l.mrB, 0, 16).numSge(0);
            l.b.postRecvOrThrow(l.recvs, 1);
            l.sends.get(0).wrId(4).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).flags(SendFlags.SIGNALED).immediateData(12345)
                    .sge(l.mrA, 0, 4096).remote(l.mrB.address() + 4096, l.mrB.rkey());
            l.a.postSendOrThrow(l.sends, 1);
            assertEquals(WcStatus.SUCCESS, await(l.cqA, 1).getFirst().status());
            Done received = await(l.cqB, 1).getFirst();
            assertEquals(99, received.wrId());
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, received.opcode());
            assertTrue(received.hasImm());
            assertEquals(12345, received.imm());
            assertEquals(4096, received.byteLength());
            assertArrayEquals(bytes(l.mrA, 0, 4096), bytes(l.mrB, 4096, 4096));
        }
    }

    @Test
    void rdmaReadFetchesRemoteBytes() {
        try (Loopback l = new Loopback(16384, 1)) {
            fill(l.mrB, 512, 10000, 5);
            l.sends.get(0).wrId(5).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED).sge(l.mrA, 0, 10000)
                    .remote(l.mrB.address() + 512, l.mrB.rkey());
            l.a.postSendOrThrow(l.sends, 1);
            Done done = await(l.cqA, 1).getFirst();
            assertEquals(WcStatus.SUCCESS, done.status());
            assertEquals(WcOpcode.RDMA_READ, done.opcode());
            assertEquals(10000, done.byteLength());
            assertArrayEquals(bytes(l.mrB, 512, 10000), bytes(l.mrA, 0, 10000));
        }
    }

    @Test
    void chainOfSixteenRequestsIsPostedInOneCall() {
        try (Loopback l = new Loopback(16 * 1024, 1)) {
            for (int i = 0; i < 16; i++) {
                fill(l.mrA, i * 1024L, 1000 + i, 10 + i);
                l.recvs.get(i).wrId(1000 + i).sge(l.mrB, i * 1024L, 1024);
                l.sends.get(i).wrId(i).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(l.mrA, i * 1024L, 1000 + i);
            }
            assertEquals(0, l.b.postRecv(l.recvs, 16));
            assertEquals(0, l.a.postSend(l.sends, 16));
            assertEquals(-1, l.sends.failedIndex());
            List<Done> sent = await(l.cqA, 16);
            List<Done> received = await(l.cqB, 16);
            for (int i = 0; i < 16; i++) {
                assertEquals(i, sent.get(i).wrId(), "send completions in posting order");
                assertEquals(WcStatus.SUCCESS, sent.get(i).status());
                assertEquals(1000 + i, received.get(i).wrId());
                assertEquals(1000 + i, received.get(i).byteLength());
                assertArrayEquals(bytes(l.mrA, i * 1024L, 1000 + i), bytes(l.mrB, i * 1024L, 1000 + i), "message " + i);
            }
        }
    }

    @Test
    void partOfAChainIsPostedAndTheChainIsReusable() {
        try (Loopback l = new Loopback(4096, 1)) {
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 4; i++) {
                    fill(l.mrA, i * 256L, 256, round * 4 + i);
                    l.sends.get(i).wrId(round * 10L + i).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                            .sge(l.mrA, i * 256L, 256).remote(l.mrB.address() + i * 256L, l.mrB.rkey());
                }
                assertEquals(0, l.a.postSend(l.sends, 4));
                List<Done> done = await(l.cqA, 4);
                assertEquals(List.of(round * 10L, round * 10L + 1, round * 10L + 2, round * 10L + 3),
                        done.stream().map(Done::wrId).toList());
                assertArrayEquals(bytes(l.mrA, 0, 1024), bytes(l.mrB, 0, 1024), "round " + round);
            }
        }
    }

    @Test
    void scatterGatherAcrossSeveralEntries() {
        try (Loopback l = new Loopback(16384, 3)) {
            fill(l.mrA, 0, 100, 20);
            fill(l.mrA, 5000, 200, 21);
            fill(l.mrA, 9000, 300, 22);
            l.recvs.get(0).wrId(1).sge(0, l.mrB, 1000, 250).sge(1, l.mrB, 8000, 1000).numSge(2);
            l.b.postRecvOrThrow(l.recvs, 1);
            l.sends.get(0).wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                    .sge(0, l.mrA, 0, 100).sge(1, l.mrA, 5000, 200).sge(2, l.mrA, 9000, 300).numSge(3);
            l.a.postSendOrThrow(l.sends, 1);
            assertEquals(WcStatus.SUCCESS, await(l.cqA, 1).getFirst().status());
            assertEquals(600, await(l.cqB, 1).getFirst().byteLength());
            ByteArrayOutputStream gathered = new ByteArrayOutputStream();
            gathered.writeBytes(bytes(l.mrA, 0, 100));
            gathered.writeBytes(bytes(l.mrA, 5000, 200));
            gathered.writeBytes(bytes(l.mrA, 9000, 300));
            ByteArrayOutputStream scattered = new ByteArrayOutputStream();
            scattered.writeBytes(bytes(l.mrB, 1000, 250));
            scattered.writeBytes(bytes(l.mrB, 8000, 350));
            assertArrayEquals(gathered.toByteArray(), scattered.toByteArray());
        }
    }

    @Test
    void onlySignaledRequestsComplete() {
        try (Loopback l = new Loopback(4096, 1)) {
            for (int i = 0; i < 3; i++) {
                l.sends.get(i).wrId(i).opcode(WrOpcode.RDMA_WRITE).flags(i == 2 ? SendFlags.SIGNALED : 0)
                        .sge(l.mrA, i * 64L, 64).remote(l.mrB.address() + i * 64L, l.mrB.rkey());
            }
            fill(l.mrA, 0, 192, 30);
            assertEquals(0, l.a.postSend(l.sends, 3));
            List<Done> done = await(l.cqA, 1);
            assertEquals(2, done.getFirst().wrId());
            assertArrayEquals(bytes(l.mrA, 0, 192), bytes(l.mrB, 0, 192));
            try (CompletionArray wcs = CompletionArray.allocate(4)) {
                assertEquals(0, l.cqA.poll(wcs), "unsignaled requests give no completion");
            }
        }
    }

    @Test
    void fencedSolicitedSendAfterARead() {
        try (Loopback l = new Loopback(8192, 1)) {
            fill(l.mrB, 0, 1000, 40);
            fill(l.mrA, 4096, 100, 41);
            l.recvs.get(0).wrId(77).sge(l.mrB, 4096, 1024);
            l.b.postRecvOrThrow(l.recvs, 1);
            l.sends.get(0).wrId(1).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED).sge(l.mrA, 0, 1000)
                    .remote(l.mrB.address(), l.mrB.rkey());
            l.sends.get(1).wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED | SendFlags.FENCE | SendFlags.SOLICITED)
                    .sge(l.mrA, 4096, 100);
            assertEquals(0, l.a.postSend(l.sends, 2));
            List<Done> done = await(l.cqA, 2);
            assertEquals(List.of(1L, 2L), done.stream().map(Done::wrId).toList());
            assertTrue(done.stream().allMatch(d -> d.status() == WcStatus.SUCCESS), done.toString());
            assertEquals(77, await(l.cqB, 1).getFirst().wrId());
            assertArrayEquals(bytes(l.mrB, 0, 1000), bytes(l.mrA, 0, 1000));
            assertArrayEquals(bytes(l.mrA, 4096, 100), bytes(l.mrB, 4096, 100));
        }
    }

    @Test
    void wrongRkeyGivesARemoteAccessErrorCompletion() {
        try (Loopback l = new Loopback(4096, 1)) {
            l.sends.get(0).wrId(66).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(l.mrA, 0, 64)
                    .remote(l.mrB.address(), l.mrB.rkey() ^ 0x5a5a00);
            assertEquals(0, l.a.postSend(l.sends, 1), "the post itself succeeds; the responder refuses");
            Done done = await(l.cqA, 1).getFirst();
            assertEquals(66, done.wrId());
            assertEquals(WcStatus.REM_ACCESS_ERR, done.status());
            assertEquals(QpState.ERR, l.a.state(), "an error completion moves the queue pair to ERR");
            assertArrayEquals(new byte[64], bytes(l.mrB, 0, 64), "nothing was written");
        }
    }

    @Test
    void scatterGatherEntryOutsideItsRegionIsRefusedBeforeThePost() {
        try (Loopback l = new Loopback(4096, 2)) {
            SendWorkRequest wr = l.sends.get(0).wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED);
            assertThrows(IndexOutOfBoundsException.class, () -> wr.sge(l.mrA, 4000, 200));
            assertThrows(IndexOutOfBoundsException.class, () -> wr.sge(1, l.mrA, -8, 16));
            assertThrows(IndexOutOfBoundsException.class, () -> wr.sge(2, l.mrA, 0, 16));
            assertThrows(IndexOutOfBoundsException.class, () -> l.recvs.get(0).sge(l.mrB, 4096, 1));
            try (CompletionArray wcs = CompletionArray.allocate(4)) {
                assertEquals(0, l.cqA.poll(wcs));
            }
        }
    }

    @Test
    void theRefusedRequestOfAChainIsReported() {
        try (Loopback l = new Loopback(4096, 1)) {
            int tooMany = l.a.capabilities().maxSendSge() + 1;
            try (SendChain wide = SendChain.allocate(3, tooMany)) {
                fill(l.mrA, 0, 300, 50);
                for (int i = 0; i < 3; i++) {
                    l.recvs.get(i).wrId(10 + i).sge(l.mrB, i * 1024L, 1024);
                }
                l.b.postRecvOrThrow(l.recvs, 3);
                wide.get(0).wrId(0).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(l.mrA, 0, 100);
                SendWorkRequest overfull = wide.get(1).wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED);
                for (int j = 0; j < tooMany; j++) {
                    overfull.sge(j, l.mrA, 100 + j, 1);
                }
                overfull.numSge(tooMany);
                wide.get(2).wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(l.mrA, 0, 100);
                int rc = l.a.postSend(wide, 3);
                assertNotEquals(0, rc, tooMany + " SGEs exceed the queue pair's max_send_sge");
                assertEquals(1, wide.failedIndex());
                assertEquals(rc, wide.lastResult());
                Done first = await(l.cqA, 1).getFirst();
                assertEquals(0, first.wrId(), "the request before the refused one was posted");
                assertEquals(WcStatus.SUCCESS, first.status());
                assertEquals(10, await(l.cqB, 1).getFirst().wrId());
                assertArrayEquals(bytes(l.mrA, 0, 100), bytes(l.mrB, 0, 100));
            }
        }
    }
}
