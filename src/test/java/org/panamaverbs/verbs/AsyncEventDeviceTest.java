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

/**
 * Asynchronous events, read on demand and delivered to listeners, with the object they concern (the
 * completion-queue overrun and port events are in {@link FaultInjectionDeviceTest}).
 */
class AsyncEventDeviceTest extends DeviceTest {

    @Test
    void drainingASendQueueRaisesSqDrainedForThatQueuePair() {
        try (Loopback l = new Loopback(4096, 1)) {
            l.a.drainSendQueue();
            AsyncEvent event = awaitEvent(context, AsyncEventType.SQ_DRAINED, COMPLETION_TIMEOUT);
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
    void waitingWithNothingPendingTimesOutAndClosedContextsRefuse() {
        Context ctx = Rdma.open(context.name());
        assertNull(ctx.awaitAsyncEvent(Duration.ofMillis(200)));
        ctx.close();
        assertThrows(IllegalStateException.class, () -> ctx.awaitAsyncEvent(Duration.ofMillis(10)));
        assertThrows(IllegalStateException.class, () -> ctx.addAsyncEventListener(e -> { }));
    }
}
