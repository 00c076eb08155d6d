package org.panamaverbs.cm;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.panamaverbs.internal.ControlEvents;
import org.panamaverbs.internal.FdPoller;
import org.panamaverbs.internal.Liveness;

/**
 * The virtual thread of a channel made by {@link CmEventChannel#create()}: a user of the channel's own
 * non-blocking read, like any event loop. It parks on the descriptor through the shared poller (never blocking a
 * carrier in native code), reads every event available, and hands a copy of each to its id's queue
 * ({@link CmId#awaitEvent}); a connection request goes to its listener's backlog. A failure while handling one
 * event (a log handler that throws, a failed read) is reported and the next event is delivered as usual.
 *
 * <p>While no event comes the reader stays parked: no timed re-check wakes it (and preempts a thread spinning on
 * a completion queue on the same core); {@link #stop} interrupts it.
 */
final class CmEventReader {
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final CmEventChannel channel;
    private final Thread thread;
    private final CmEventHandler toQueues = this::dispatch;

    CmEventReader(CmEventChannel channel) {
        this.channel = channel;
        this.thread = Thread.ofVirtual().name("panama-verbs-cm-events-" + SEQUENCE.incrementAndGet()).unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    /**
     * Stops the thread and waits for it (bounded).
     *
     * @throws IllegalStateException if it has not stopped within {@link Liveness#CLOSE_WAIT_NANOS} (held up in
     *                               application code, such as a log handler), or the caller was interrupted
     */
    void stop() {
        thread.interrupt();
        try {
            if (!thread.join(Duration.ofNanos(Liveness.CLOSE_WAIT_NANOS))) {
                throw new IllegalStateException("the rdma_cm event reader of " + channel + " has not stopped within "
                        + TimeUnit.NANOSECONDS.toSeconds(Liveness.CLOSE_WAIT_NANOS) + " s (" + where(thread)
                        + "); it destroys the channel when it stops");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while closing " + channel + "; its reader destroys it when it stops", e);
        }
    }

    private void run() {
        try {
            while (!channel.isClosed()) {
                try {
                    FdPoller.instance().awaitNonBlocking(channel.descriptor(), FdPoller.UNTIL_INTERRUPTED, this::readAvailable);
                } catch (RuntimeException readFailed) {
                    // rdma_get_cm_event or the poller failed: report, pause, read again (never end the delivery)
                    report("reading an rdma_cm event of " + channel + " failed; reading again in 1 s", readFailed);
                    pause();
                }
                if (!channel.isClosed()) {
                    Thread.interrupted(); // not from close(): a stray interrupt must not stop the events
                }
            }
        } finally {
            channel.destroyIfClosed(); // close() does it, unless it stopped waiting for this thread
        }
    }

    /** Every event available now; null (so that the poller waits) once none is left. */
    private Boolean readAvailable() {
        channel.read(toQueues, Integer.MAX_VALUE);
        return null;
    }

    /** Logs an acknowledged event and hands it to its id; a failure here costs this event's report, never delivery. */
    private void dispatch(CmEventView view) {
        CmEvent event;
        try {
            event = view.toEvent();
        } catch (RuntimeException copyFailed) {
            report("an rdma_cm event of " + channel + " could not be read; it is dropped", copyFailed);
            return;
        }
        try {
            if (event.type() == CmEventType.CONNECT_REQUEST) {
                event.listenId().deliverRequest(event); // queued, or refused: full backlog, closed listener
            } else {
                event.id().deliver(event);
            }
        } catch (RuntimeException deliveryFailed) {
            report("delivering " + event.type().cName() + " to " + event.id() + " failed", deliveryFailed);
        }
    }

    private static void pause() {
        try {
            Thread.sleep(1000);
        } catch (InterruptedException e) {
            // from close, or stray: the loop's condition tells
        }
    }

    /**
     * A failure of the reader, as WARNING on {@code org.panamaverbs.cm}; if the log handler fails too, to the
     * thread's uncaught-exception handler. Never throws: the reader goes on.
     */
    static void report(String message, Throwable failure) {
        try {
            ControlEvents.CM.log(System.Logger.Level.WARNING, message, failure);
        } catch (RuntimeException logFailed) {
            failure.addSuppressed(logFailed);
            Thread.currentThread().getUncaughtExceptionHandler().uncaughtException(Thread.currentThread(), failure);
        }
    }

    /** Where a thread is, for a message: the top frames of its stack. */
    private static String where(Thread thread) {
        StackTraceElement[] stack = thread.getStackTrace();
        StringBuilder where = new StringBuilder("at");
        for (int i = 0; i < Math.min(3, stack.length); i++) {
            where.append(' ').append(stack[i]);
        }
        return stack.length == 0 ? "running" : where.toString();
    }
}
