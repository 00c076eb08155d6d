package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/** Completion channels: arming, waiting (from virtual threads too), solicited-only, acknowledgements. */
class CompletionEventDeviceTest extends DeviceTest {

    /** A receiving queue pair whose CQ signals its own channel, connected to a plain sender. */
    private static final class EventPair implements AutoCloseable {
        final CompletionChannel channel = context.createCompletionChannel();
        final CompletionQueue sendCq = context.createCompletionQueue(32);
        final CompletionQueue recvCq = context.createCompletionQueue(32, channel);
        final QueuePair sender = pd.createQueuePair(QpConfig.builder(sendCq).build());
        final QueuePair receiver = pd.createQueuePair(QpConfig.builder(recvCq).build());
        final MemoryRegion mr = pd.allocateAndRegister(8192, Access.LOCAL_WRITE);
        final SendChain sends = SendChain.allocate(1, 1);
        final RecvChain recvs = RecvChain.allocate(4, 1);

        EventPair() {
            QueuePair.connectLoopback(sender, receiver);
        }

        void postReceive(long id) {
            recvs.get(0).wrId(id).sge(mr, 4096, 4096);
            receiver.postRecvOrThrow(recvs, 1);
        }

        void send(long id, int flags, int seed) {
            fill(mr, 0, 100, seed);
            sends.get(0).wrId(id).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED | flags).sge(mr, 0, 100);
            sender.postSendOrThrow(sends, 1);
            assertEquals(WcStatus.SUCCESS, await(sendCq, 1).getFirst().status());
        }

        @Override
        public void close() {
            sends.close();
            recvs.close();
            channel.close(); // closes recvCq and the receiver first
            sender.close();
            sendCq.close();
            mr.close();
        }
    }

    @Test
    void armedQueueSignalsItsChannelOnce() {
        try (EventPair p = new EventPair(); CompletionArray wcs = CompletionArray.allocate(4)) {
            p.postReceive(1);
            assertEquals(0, p.recvCq.requestNotification(false));
            p.send(2, 0, 1);
            assertSame(p.recvCq, p.channel.awaitEvent(COMPLETION_TIMEOUT));
            assertEquals(1, p.recvCq.unacknowledgedEvents());
            assertEquals(1, p.recvCq.poll(wcs));
            assertEquals(1, wcs.get(0).wrId());
            assertArrayEquals(bytes(p.mr, 0, 100), bytes(p.mr, 4096, 100));
            p.recvCq.acknowledgeEvents();
            assertEquals(0, p.recvCq.unacknowledgedEvents());
            assertNull(p.channel.awaitEvent(Duration.ofMillis(300)), "not re-armed: no second event");
        }
    }

    @Test
    void waitingTimesOutWithoutAnEvent() {
        try (EventPair p = new EventPair()) {
            p.recvCq.requestNotification(false);
            long start = System.nanoTime();
            assertNull(p.channel.awaitEvent(Duration.ofMillis(500)));
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(450));
        }
    }

    @Test
    void solicitedOnlyIgnoresUnsolicitedCompletions() {
        try (EventPair p = new EventPair(); CompletionArray wcs = CompletionArray.allocate(4)) {
            p.postReceive(1);
            p.postReceive(2);
            assertEquals(0, p.recvCq.requestNotification(true));
            p.send(10, 0, 2);
            assertNull(p.channel.awaitEvent(Duration.ofSeconds(2)), "an unsolicited send raises no event");
            p.send(11, SendFlags.SOLICITED, 3);
            assertSame(p.recvCq, p.channel.awaitEvent(COMPLETION_TIMEOUT));
            assertEquals(2, p.recvCq.poll(wcs));
        }
    }

    @Test
    void awaitCompletionsPollsRearmsAndPollsAgain() {
        try (EventPair p = new EventPair(); CompletionArray wcs = CompletionArray.allocate(4)) {
            p.postReceive(5);
            p.send(6, 0, 4); // completes before anyone arms: the first poll must find it
            assertEquals(1, p.recvCq.awaitCompletions(wcs, COMPLETION_TIMEOUT));
            assertEquals(5, wcs.get(0).wrId());
            assertEquals(0, p.recvCq.awaitCompletions(wcs, Duration.ofMillis(300)), "timeout, nothing pending");
        }
    }

    @Test
    void virtualThreadsWaitingForEventsPinNoCarrier() throws Exception {
        int waiters = Runtime.getRuntime().availableProcessors() * 2 + 1; // more waiters than carrier threads
        List<EventPair> pairs = new ArrayList<>();
        try {
            for (int i = 0; i < waiters; i++) {
                EventPair p = new EventPair();
                pairs.add(p);
                p.postReceive(100 + i);
            }
            CountDownLatch allWaiting = new CountDownLatch(waiters);
            AtomicInteger woken = new AtomicInteger();
            List<Thread> threads = new ArrayList<>();
            for (EventPair p : pairs) {
                threads.add(Thread.ofVirtual().start(() -> {
                    try (CompletionArray wcs = CompletionArray.allocate(2)) {
                        allWaiting.countDown();
                        if (p.recvCq.awaitCompletions(wcs, COMPLETION_TIMEOUT) == 1 && wcs.get(0).isSuccess()) {
                            woken.incrementAndGet();
                        }
                    }
                }));
            }
            assertTrue(allWaiting.await(30, TimeUnit.SECONDS));
            Thread.sleep(500); // let every waiter park
            // Posting from another virtual thread only works if the waiters left the carriers free.
            Thread poster = Thread.ofVirtual().start(() -> {
                for (int i = 0; i < pairs.size(); i++) {
                    pairs.get(i).send(i, 0, i);
                }
            });
            poster.join(COMPLETION_TIMEOUT.toMillis());
            for (Thread t : threads) {
                t.join(COMPLETION_TIMEOUT.toMillis());
            }
            assertEquals(waiters, woken.get());
        } finally {
            pairs.forEach(EventPair::close);
        }
    }

    @Test
    void closingWithUnacknowledgedEventsDoesNotHang() {
        EventPair p = new EventPair();
        p.postReceive(1);
        p.recvCq.requestNotification(false);
        p.send(2, 0, 5);
        assertSame(p.recvCq, p.channel.awaitEvent(COMPLETION_TIMEOUT));
        assertEquals(1, p.recvCq.unacknowledgedEvents());
        p.close(); // ibv_destroy_cq would wait forever for the acknowledgement
        assertTrue(p.recvCq.isClosed() && p.channel.isClosed() && p.receiver.isClosed());
    }

    @Test
    void notificationsNeedAChannel() {
        try (CompletionQueue cq = context.createCompletionQueue(4); CompletionArray wcs = CompletionArray.allocate(1)) {
            assertThrows(IllegalStateException.class, () -> cq.requestNotification(false));
            assertThrows(IllegalStateException.class, () -> cq.awaitCompletions(wcs, Duration.ofMillis(10)));
        }
    }
}
