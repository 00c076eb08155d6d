package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

/** Asynchronous events, read on demand and delivered to listeners, with the object they concern. */
class AsyncEventTest extends DeviceTest {

    /** Skips events left over from earlier tests (e.g. a port event) until one of {@code type} arrives. */
    private static AsyncEvent awaitType(Context ctx, AsyncEventType type) {
        long deadline = System.nanoTime() + COMPLETION_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            AsyncEvent event = ctx.awaitAsyncEvent(Duration.ofNanos(deadline - System.nanoTime()));
            if (event != null && event.type() == type) {
                return event;
            }
        }
        throw new AssertionError("no " + type + " event within " + COMPLETION_TIMEOUT);
    }

    @Test
    void drainingASendQueueRaisesSqDrainedForThatQueuePair() {
        try (Loopback l = new Loopback(4096, 1)) {
            l.a.drainSendQueue();
            AsyncEvent event = awaitType(context, AsyncEventType.SQ_DRAINED);
            assertSame(l.a, event.queuePair());
            assertNull(event.completionQueue());
            assertEquals(QpState.SQD, l.a.state());
        }
    }

    @Test
    void listenersReceiveEventsOnABackgroundThread() throws Exception {
        try (Context ctx = Rdma.open(context.name());
             ProtectionDomain domain = ctx.allocateProtectionDomain();
             CompletionQueue cq = ctx.createCompletionQueue(16)) {
            QueuePair a = domain.createQueuePair(QpConfig.builder(cq).build());
            QueuePair b = domain.createQueuePair(QpConfig.builder(cq).build());
            QueuePair.connectLoopback(a, b);
            BlockingQueue<AsyncEvent> seen = new LinkedBlockingQueue<>();
            BlockingQueue<String> threads = new LinkedBlockingQueue<>();
            Consumer<AsyncEvent> listener = event -> {
                seen.add(event);
                threads.add(Thread.currentThread().getName());
            };
            ctx.addAsyncEventListener(listener);
            b.drainSendQueue();
            AsyncEvent event;
            do {
                event = seen.poll(COMPLETION_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                assertNotNull(event, "no event delivered");
            } while (event.type() != AsyncEventType.SQ_DRAINED);
            assertSame(b, event.queuePair());
            assertEquals("panama-verbs-async-" + ctx.name(), threads.take());
            ctx.removeAsyncEventListener(listener);
        }
    }

    @Test
    void overrunningACompletionQueueRaisesCqErrorForThatQueue() {
        try (CompletionQueue tiny = context.createCompletionQueue(1);
             CompletionQueue other = context.createCompletionQueue(16);
             QueuePair a = pd.createQueuePair(QpConfig.builder(tiny).maxSendWr(64).build());
             QueuePair b = pd.createQueuePair(QpConfig.builder(other).build());
             MemoryRegion mr = pd.allocateAndRegister(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
             SendWorkRequests wrs = SendWorkRequests.allocate(1, 1)) {
            QueuePair.connectLoopback(a, b);
            int writes = tiny.capacity() + 4;
            for (int i = 0; i < writes; i++) {
                wrs.get(0).id(i).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(mr, 0, 8)
                        .remote(mr.address() + 64, mr.rkey());
                a.postSendOrThrow(wrs, 1);
            }
            AsyncEvent event = awaitType(context, AsyncEventType.CQ_ERR);
            assertSame(tiny, event.completionQueue());
        }
    }

    @Test
    void waitingWithNothingPendingTimesOutAndClosedContextsRefuse() {
        Context ctx = Rdma.open(context.name());
        assertNull(ctx.awaitAsyncEvent(Duration.ofMillis(200)));
        ctx.close();
        assertThrows(IllegalStateException.class, () -> ctx.awaitAsyncEvent(Duration.ofMillis(10)));
        assertThrows(IllegalStateException.class, () -> ctx.addAsyncEventListener(e -> { }));
    }
}
