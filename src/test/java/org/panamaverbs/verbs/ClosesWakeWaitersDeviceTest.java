package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Misuse round 3 (docs/misuse.md): a close from another thread wakes every thread waiting on what it closes, which
 * then throws the closed-resource exception at once. Before, each waiter stayed parked for its whole timeout
 * (ten minutes here) after the close had returned.
 */
@Tag("rdma-device")
class ClosesWakeWaitersDeviceTest extends DeviceTest {
    /** Far longer than the test may take: a waiter still parked at {@link #WOKEN_WITHIN} was not woken. */
    private static final Duration LONG_WAIT = Duration.ofMinutes(10);
    private static final Duration WOKEN_WITHIN = Duration.ofSeconds(20);

    @Test
    void closingAChannelWakesAPlatformThreadInAwaitEvent() throws Exception {
        try (Context ctx = Rdma.open(context.name())) {
            CompletionChannel channel = ctx.createCompletionChannel();
            ctx.createCompletionQueue(4, channel).requestNotification(false);
            assertWokenByClose(Thread.ofPlatform(), () -> channel.awaitEvent(LONG_WAIT), channel::close);
        }
    }

    @Test
    void closingAQueueWakesAVirtualThreadInAwaitCompletions() throws Exception {
        try (Context ctx = Rdma.open(context.name()); CompletionArray completions = CompletionArray.allocate(4)) {
            CompletionChannel channel = ctx.createCompletionChannel();
            CompletionQueue cq = ctx.createCompletionQueue(4, channel);
            assertWokenByClose(Thread.ofVirtual(), () -> cq.awaitCompletions(completions, LONG_WAIT), cq::close);
            assertTrue(!channel.isClosed(), "closing the queue leaves its channel open");
        }
    }

    @Test
    void closingTheChannelWakesAVirtualThreadInItsQueuesAwaitCompletions() throws Exception {
        try (Context ctx = Rdma.open(context.name()); CompletionArray completions = CompletionArray.allocate(4)) {
            CompletionChannel channel = ctx.createCompletionChannel();
            CompletionQueue cq = ctx.createCompletionQueue(4, channel);
            assertWokenByClose(Thread.ofVirtual(), () -> cq.awaitCompletions(completions, LONG_WAIT), channel::close);
        }
    }

    @Test
    void closingTheContextWakesBothKindsOfThreadsInAwaitAsyncEvent() throws Exception {
        for (Thread.Builder kind : new Thread.Builder[] {Thread.ofPlatform(), Thread.ofVirtual()}) {
            Context ctx = Rdma.open(context.name());
            assertWokenByClose(kind, () -> ctx.awaitAsyncEvent(LONG_WAIT), ctx::close);
        }
    }

    /**
     * Starts {@code wait} on a thread of {@code kind}, lets it park, runs {@code close} here, and asserts the waiter
     * ended with {@link IllegalStateException} within {@link #WOKEN_WITHIN} of the close.
     */
    private static void assertWokenByClose(Thread.Builder kind, Runnable wait, Runnable close) throws Exception {
        CompletableFuture<Throwable> ended = new CompletableFuture<>();
        Thread waiter = kind.start(() -> {
            try {
                wait.run();
                ended.complete(null);
            } catch (Throwable t) {
                ended.complete(t);
            }
        });
        awaitParked(waiter);
        close.run();
        long closedAt = System.nanoTime();
        Throwable outcome;
        try {
            outcome = ended.get(WOKEN_WITHIN.toSeconds(), TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException stillParked) {
            waiter.interrupt();
            throw new AssertionError("the waiter was still parked " + WOKEN_WITHIN.toSeconds() + " s after the close");
        }
        System.out.println("closes: " + (kind.getClass().getSimpleName()) + " waiter woken "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closedAt) + " ms after the close: " + outcome);
        assertInstanceOf(IllegalStateException.class, outcome, "the waiter ended with the closed-resource exception");
        assertTrue(outcome.getMessage().contains("closed"), outcome.getMessage());
    }

    /** Until {@code thread} is parked (waiting), so that the close comes while it waits, not before. */
    private static void awaitParked(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + WOKEN_WITHIN.toNanos();
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
            assertTrue(thread.isAlive(), "the waiter ended before the close");
            assertTrue(System.nanoTime() < deadline, "the waiter did not park within " + WOKEN_WITHIN);
            Thread.sleep(10);
        }
        Thread.sleep(100); // parked in its wait, past the last check of the closed flag
    }
}
