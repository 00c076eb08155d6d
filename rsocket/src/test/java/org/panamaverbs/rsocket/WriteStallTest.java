package org.panamaverbs.rsocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * When a transport's write-stall error comes: {@link WriteStall} (a channel's timer) on a single-threaded scheduler
 * standing for the channel's event loop, fed by a writer that does what a channel's write does with an
 * {@link RsocketFlow} whose peer, over the {@link SimulatedFabric}, does not read. The time is measured from just
 * before the write attempt that began the stall (so never longer than the stall itself) to the moment the timer's
 * callback ran on the loop, where the channel fails the write.
 *
 * <p>{@link #LATE_BOUND_MILLIS}: the timer itself adds at most the loop's latency in running a due task (under 2 ms
 * on this idle loop, as the printed figures show); the rest is room for a shared 2-core machine descheduling the loop
 * thread or pausing for GC. It still tells the earlier timer apart, which fired up to a whole timeout late (three
 * quarters of it in {@link #aGrantEndsTheStallAndTheNextCountsFromIt}).
 */
class WriteStallTest {
    private static final long LATE_BOUND_MILLIS = 100;
    private static final int[] TIMEOUTS = {150, 300, 600};

    private static ScheduledExecutorService loop;

    @BeforeAll
    static void startLoop() {
        loop = Executors.newSingleThreadScheduledExecutor();
    }

    @AfterAll
    static void stopLoop() throws Exception {
        loop.shutdownNow();
        assertTrue(loop.awaitTermination(5, TimeUnit.SECONDS), "the loop stopped");
    }

    @Test
    void aStallEndsAtTheTimeoutPlusTheLoopLatency() throws Exception {
        List<Writer> writers = new ArrayList<>();
        for (int timeout : TIMEOUTS) {
            writers.add(new Writer(timeout));
        }
        loop.submit(() -> writers.forEach(w -> w.stallStartedAt = w.write(true))).get();
        for (Writer w : writers) {
            long late = w.assertFiredWithinBound(w.stallStartedAt);
            System.out.println("write stall timeout " + w.timeout + " ms: fired " + late / 1000 + " us after it");
            w.close();
        }
    }

    @Test
    void aGrantEndsTheStallAndTheNextCountsFromIt() throws Exception {
        List<Writer> writers = new ArrayList<>();
        for (int timeout : TIMEOUTS) {
            // a quarter into the timeout (the earlier timer then waited a whole timeout more), and just before it
            for (long grantAfter : new long[] {timeout / 4, timeout - 50}) {
                Writer w = new Writer(timeout);
                w.grantAfterMillis = grantAfter;
                writers.add(w);
            }
        }
        loop.submit(() -> writers.forEach(w -> {
            w.stallStartedAt = w.write(true);
            loop.schedule(() -> {
                try {
                    w.granted.complete(w.grant());
                } catch (Throwable t) {
                    w.granted.completeExceptionally(t);
                }
            }, w.grantAfterMillis, TimeUnit.MILLISECONDS);
        })).get();
        for (Writer w : writers) {
            long grantedAt = w.granted.get(10, TimeUnit.SECONDS);
            long late = w.assertFiredWithinBound(grantedAt);
            long firstDeadline = w.stallStartedAt + TimeUnit.MILLISECONDS.toNanos(w.timeout);
            assertTrue(grantedAt < firstDeadline, "the grant came before the first deadline ("
                    + (grantedAt - w.stallStartedAt) / 1000 + " us after the stall began)");
            System.out.println("write stall timeout " + w.timeout + " ms, credits granted after " + w.grantAfterMillis
                    + " ms: fired " + late / 1000 + " us after the timeout counted from the grant");
            w.close();
        }
    }

    @Test
    void noStallWhileDataMovesOrNothingIsPending() throws Exception {
        Writer w = new Writer(100);
        loop.submit(() -> {
            w.write(true);
            w.stall.afterWrite(false, false, System.nanoTime()); // what was pending went (or was failed): no stall
        }).get();
        Thread.sleep(200);
        assertFalse(w.fired.isDone(), "a stall that ended does not fire");
        loop.submit(() -> {
            w.stall.afterWrite(false, true, System.nanoTime()); // blocked again: a new stall
            w.stall.cancel(); // the channel closed
        }).get();
        Thread.sleep(200);
        assertFalse(w.fired.isDone(), "a closed channel's stall does not fire");
        w.close();
    }

    /**
     * One channel's writing, as {@code RdmaSocketChannel.doWrite} does it: send what credits and targets allow, then
     * tell the stall whether anything was sent and whether data is left. The peer's receive buffer is 16 KiB and it
     * does not read unless {@link #grant()} makes it; the application has 1 MiB to send.
     */
    private static final class Writer {
        final int timeout;
        final SimulatedFabric fabric = new SimulatedFabric(32, 65536, 16384);
        final ByteBuffer pending = ByteBuffer.wrap(new byte[1 << 20]);
        final WriteStall stall;
        final CompletableFuture<Long> fired = new CompletableFuture<>();
        final CompletableFuture<Long> granted = new CompletableFuture<>();
        long stallStartedAt;
        long grantAfterMillis;

        Writer(int timeout) {
            this.timeout = timeout;
            this.stall = new WriteStall(loop, () -> timeout, waited -> fired.complete(System.nanoTime()));
            fabric.connect();
            fabric.deliver();
        }

        /** A write attempt; returns {@link System#nanoTime()} from before it. */
        long write(boolean mustSend) {
            long before = System.nanoTime();
            int sent = fabric.a.flow.write(pending);
            fabric.a.flow.flush();
            stall.afterWrite(sent > 0, pending.hasRemaining(), System.nanoTime());
            fabric.deliver();
            assertEquals(mustSend, sent > 0, "bytes sent by this attempt: " + sent + ", " + fabric.a.flow);
            assertFalse(fabric.a.flow.canSend(), "blocked after the attempt: " + fabric.a.flow);
            return before;
        }

        /**
         * The peer reads half its receive buffer and grants it; the channel's completion handling then resumes writing
         * ({@code onConnectionEvent}), which sends and blocks again. Returns the time before that write attempt.
         */
        long grant() {
            assertEquals(8192, fabric.b.flow.read(ByteBuffer.allocate(8192)));
            fabric.b.flow.afterCompletions();
            fabric.deliver();
            assertTrue(fabric.a.flow.canSend(), "the grant arrived: " + fabric.a.flow);
            return write(true);
        }

        /** Waits for the timer; asserts it fired between the timeout and the timeout plus the bound after {@code from}. */
        long assertFiredWithinBound(long from) throws Exception {
            long firedAt = fired.get(10, TimeUnit.SECONDS);
            long elapsed = firedAt - from;
            long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeout);
            assertTrue(elapsed >= timeoutNanos, "fired " + elapsed / 1000 + " us after the stall began, before the timeout of "
                    + timeout + " ms");
            assertTrue(elapsed <= timeoutNanos + TimeUnit.MILLISECONDS.toNanos(LATE_BOUND_MILLIS), "fired "
                    + elapsed / 1000 + " us after the stall began: more than " + LATE_BOUND_MILLIS
                    + " ms after the timeout of " + timeout + " ms");
            assertEquals((1 << 20) - pending.remaining(), fabric.b.flow.readableBytes() + readByPeer(),
                    "nothing sent was lost");
            return elapsed - timeoutNanos;
        }

        private int readByPeer() {
            return granted.isDone() ? 8192 : 0;
        }

        void close() throws Exception {
            loop.submit(fabric::close).get();
        }
    }
}
