package org.panamaverbs.cm;

import java.time.Duration;
import java.util.List;

/**
 * What one {@link CmId} of a channel made by {@link CmEventChannel#create()} receives: its queue of events (which
 * the blocking calls wait on), a listener's backlog of connection requests, and whether DISCONNECTED has come.
 * The channel's reader delivers; the application's threads wait. An id of a polled channel uses only
 * {@link #observed} (its events go to the poll's handler).
 */
final class IdEvents {
    private final CmEventQueue queue = new CmEventQueue();
    /** Set by {@link #listening}: the requests waiting on this listener, at most its backlog. */
    private volatile ConnectionBacklog backlog;
    private volatile boolean disconnected;

    /** The queue the blocking calls wait on. */
    CmEventQueue queue() {
        return queue;
    }

    /** The id listens with {@code backlog} from now on; returns the previous backlog, for {@link #notListening}. */
    ConnectionBacklog listening(int backlog) {
        ConnectionBacklog before = this.backlog;
        this.backlog = ConnectionBacklog.of(backlog);
        return before;
    }

    /** {@code rdma_listen} failed: back to {@code before}. */
    void notListening(ConnectionBacklog before) {
        this.backlog = before;
    }

    /** The next event, or null after {@code timeout}; a connection request taken leaves room in the backlog. */
    CmEvent await(Duration timeout, Object owner) {
        CmEvent event = queue.await(timeout, owner);
        ConnectionBacklog waiting = backlog;
        if (event != null && waiting != null && event.type() == CmEventType.CONNECT_REQUEST) {
            waiting.taken();
        }
        return event;
    }

    /** Waits until DISCONNECTED (or DEVICE_REMOVAL) came; false when {@code timeout} passed first. */
    boolean awaitDisconnected(Duration timeout, Object owner) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!disconnected) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return false;
            }
            CmEvent event = await(Duration.ofNanos(remaining), owner);
            if (event != null && event.type() == CmEventType.DEVICE_REMOVAL) {
                return true;
            }
        }
        return true;
    }

    boolean isDisconnected() {
        return disconnected;
    }

    /** Every event of the id, before anyone sees it. Allocates nothing. */
    void observed(CmEventType type) {
        if (type == CmEventType.DISCONNECTED || type == CmEventType.DEVICE_REMOVAL) {
            disconnected = true;
        }
    }

    void deliver(CmEvent event) {
        queue.deliver(event);
    }

    /**
     * A connection request to this listening id: queued if the backlog has room.
     *
     * @return null if queued, else why the caller must refuse it
     */
    String deliverRequest(CmEvent request, CmId listener, boolean closed) {
        ConnectionBacklog waiting = backlog;
        if (waiting != null && waiting.offer(request, queue)) {
            return null;
        }
        return waiting == null ? listener + " is not listening" : closed ? listener + " was closed"
                : "the backlog of " + listener + " (" + waiting.limit() + ") is full";
    }

    /**
     * The id closes: every waiter is woken (with {@link IllegalStateException}); returns the connection requests
     * still waiting, which the close refuses, as the kernel does for a closed C listener.
     */
    List<CmEvent> close() {
        ConnectionBacklog waiting = backlog;
        List<CmEvent> left = waiting == null ? List.of() : waiting.close(queue);
        queue.close();
        return left;
    }
}
