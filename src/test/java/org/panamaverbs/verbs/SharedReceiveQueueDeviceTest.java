package org.panamaverbs.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One shared receive queue feeding several RC queue pairs; limit, query and the limit event. */
class SharedReceiveQueueDeviceTest extends DeviceTest {

    @BeforeEach
    void needsSrq() {
        assumeTrue(context.attributes().maxSrq() > 0, context.name() + " has no SRQ");
    }

    @Test
    void threeQueuePairsShareOneReceiveQueue() {
        List<AutoCloseable> open = new ArrayList<>();
        try (SharedReceiveQueue srq = pd.createSharedReceiveQueue(64, 1);
             CompletionQueue recvCq = context.createCompletionQueue(64);
             CompletionQueue sendCq = context.createCompletionQueue(64);
             MemoryRegion mr = pd.allocateAndRegister(64 * 1024, Access.LOCAL_WRITE);
             SendChain sends = SendChain.allocate(1, 1);
             RecvChain recvs = RecvChain.allocate(16, 1)) {
            List<QueuePair> receivers = new ArrayList<>();
            List<QueuePair> senders = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                QueuePair receiver = pd.createQueuePair(QpConfig.builder(sendCq, recvCq).srq(srq).build());
                QueuePair sender = pd.createQueuePair(QpConfig.builder(sendCq).build());
                QueuePair.connectLoopback(sender, receiver);
                receivers.add(receiver);
                senders.add(sender);
            }
            for (int i = 0; i < 6; i++) {
                recvs.get(i).wrId(i).sge(mr, 32768 + i * 1024L, 1024);
            }
            srq.postRecvOrThrow(recvs, 6);
            assertThrows(IllegalStateException.class, () -> receivers.getFirst().postRecv(recvs, 1));
            for (int s = 0; s < 3; s++) {
                for (int m = 0; m < 2; m++) {
                    long at = (s * 2 + m) * 1024L;
                    mr.segment().set(JAVA_INT, at, s);
                    mr.segment().set(JAVA_INT, at + 4, m);
                    fill(mr, at + 8, 500, s * 10 + m);
                    sends.get(0).wrId(s * 2 + m).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(mr, at, 508);
                    senders.get(s).postSendOrThrow(sends, 1);
                }
            }
            assertTrue(await(sendCq, 6).stream().allMatch(d -> d.status() == WcStatus.SUCCESS));
            Set<String> messages = new HashSet<>();
            Set<Integer> qps = new HashSet<>();
            for (Done d : await(recvCq, 6)) {
                assertEquals(WcStatus.SUCCESS, d.status());
                assertEquals(508, d.byteLength());
                long buffer = 32768 + d.wrId() * 1024;
                int s = mr.segment().get(JAVA_INT, buffer);
                int m = mr.segment().get(JAVA_INT, buffer + 4);
                assertEquals(receivers.get(s).qpNumber(), d.qpNumber(), "message of sender " + s + " arrived on its receiver");
                org.junit.jupiter.api.Assertions.assertArrayEquals(bytes(mr, (s * 2 + m) * 1024L, 508), bytes(mr, buffer, 508));
                messages.add(s + "/" + m);
                qps.add(d.qpNumber());
            }
            assertEquals(6, messages.size(), "every message exactly once");
            assertEquals(3, qps.size(), "all three queue pairs drew from the shared queue");
            srq.close();
            assertTrue(receivers.stream().allMatch(QueuePair::isClosed), "closing the SRQ closes the queue pairs using it");
            senders.forEach(QueuePair::close);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void limitIsQueriedAndRaisesTheLimitEvent() {
        try (SharedReceiveQueue srq = pd.createSharedReceiveQueue(32, 1);
             CompletionQueue cq = context.createCompletionQueue(64);
             MemoryRegion mr = pd.allocateAndRegister(16 * 1024, Access.LOCAL_WRITE);
             SendChain sends = SendChain.allocate(1, 1);
             RecvChain recvs = RecvChain.allocate(8, 1);
             QueuePair receiver = pd.createQueuePair(QpConfig.builder(cq).srq(srq).build());
             QueuePair sender = pd.createQueuePair(QpConfig.builder(cq).build())) {
            QueuePair.connectLoopback(sender, receiver);
            assertTrue(srq.query().maxWr() >= 32);
            for (int i = 0; i < 8; i++) {
                recvs.get(i).wrId(i).sge(mr, 8192 + i * 512L, 512);
            }
            srq.postRecvOrThrow(recvs, 8);
            srq.modifyLimit(6);
            assertEquals(6, srq.query().limit());
            for (int i = 0; i < 3; i++) {
                sends.get(0).wrId(100 + i).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(mr, 0, 64);
                sender.postSendOrThrow(sends, 1);
            }
            await(cq, 6);
            long deadline = System.nanoTime() + COMPLETION_TIMEOUT.toNanos();
            AsyncEvent event = null;
            while (System.nanoTime() < deadline && (event == null || event.type() != AsyncEventType.SRQ_LIMIT_REACHED)) {
                event = context.awaitAsyncEvent(Duration.ofNanos(deadline - System.nanoTime()));
            }
            assertTrue(event != null && event.type() == AsyncEventType.SRQ_LIMIT_REACHED, "event: " + event);
            assertSame(srq, event.sharedReceiveQueue());
            assertEquals(0, srq.query().limit(), "the limit is one-shot: reported as 0 once it fired");
        }
    }

    @Test
    void capacitiesBeyondTheDeviceAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> pd.createSharedReceiveQueue(context.attributes().maxSrqWr() + 1, 1));
        assertThrows(IllegalArgumentException.class, () -> pd.createSharedReceiveQueue(16, 0));
    }
}
