package org.panamaverbs.rsocket;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.LongConsumer;

/**
 * A channel's write stall and the timer of its write-stall timeout (the netty transport's
 * {@code RdmaChannelOption.WRITE_STALL_TIMEOUT_MILLIS}). Event loop thread only.
 *
 * <p>A stall <em>begins</em> when a write attempt ends with data still pending that cannot be sent (no credit, no
 * free send buffer or no granted target: the peer has not freed its receive buffer) and no stall is running. It
 * <em>ends</em> when a write attempt sends any pending byte (the peer granted credits, or sends completed and freed
 * the send buffer) or leaves nothing pending; an attempt that sends some bytes and blocks again ends the stall and
 * begins a new one at that moment. The timeout counts from the beginning of the stall that is running.
 *
 * <p>One scheduled check at a time: it is due at the beginning of the stall it was scheduled for plus the timeout;
 * one that finds a stall that began later waits for that stall's remainder only (not for a whole timeout again), so
 * {@code onStall} runs no earlier than the timeout after the stall began and later only by the event loop's latency
 * in running a due task. Stalls that end before their check leave it scheduled rather than cancel and reschedule it
 * on every blocked write.
 */
public final class WriteStall {
    private final ScheduledExecutorService loop;
    private final IntSupplier timeoutMillis;
    private final LongConsumer onStall;
    private boolean stalled;
    private long since;
    private ScheduledFuture<?> check;

    /**
     * A channel's stall timer, idle until a write attempt blocks.
     *
     * @param loop          the channel's event loop, which runs the check
     * @param timeoutMillis the current timeout, 0 for none (read at each write attempt and check)
     * @param onStall       called on the loop with the nanoseconds the stall lasted when it reached the timeout
     */
    public WriteStall(ScheduledExecutorService loop, IntSupplier timeoutMillis, LongConsumer onStall) {
        this.loop = loop;
        this.timeoutMillis = timeoutMillis;
        this.onStall = onStall;
    }

    /**
     * After a write attempt.
     *
     * @param sent    whether it sent any pending byte
     * @param blocked whether data is still pending that could not be sent
     * @param now     {@link System#nanoTime()} after the attempt
     */
    public void afterWrite(boolean sent, boolean blocked, long now) {
        if (!blocked) {
            stalled = false;
            return;
        }
        if (sent || !stalled) {
            stalled = true;
            since = now;
        }
        if (check == null && timeoutMillis.getAsInt() > 0) {
            schedule(now);
        }
    }

    /** Stops the check (the channel closed). */
    public void cancel() {
        stalled = false;
        if (check != null) {
            check.cancel(false);
            check = null;
        }
    }

    private void schedule(long now) {
        long deadline = since + TimeUnit.MILLISECONDS.toNanos(timeoutMillis.getAsInt());
        check = loop.schedule(this::check, Math.max(0, deadline - now), TimeUnit.NANOSECONDS);
    }

    private void check() {
        check = null;
        int timeout = timeoutMillis.getAsInt();
        if (!stalled || timeout <= 0) {
            return;
        }
        long now = System.nanoTime();
        long waited = now - since;
        if (waited >= TimeUnit.MILLISECONDS.toNanos(timeout)) {
            stalled = false;
            onStall.accept(waited);
        } else {
            schedule(now); // the stall began after this check was scheduled: wait for its remainder only
        }
    }
}
