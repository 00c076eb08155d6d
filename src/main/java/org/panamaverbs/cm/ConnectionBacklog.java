package org.panamaverbs.cm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A listening id's connection requests that arrived and were not yet taken, bounded by the id's backlog.
 *
 * <p>The kernel bounds only the requests its event channel holds unread, and the channel's reader takes every
 * event at once; so the bound of {@code rdma_listen(id, backlog)} is kept here instead: a request beyond it is
 * refused (rejected and destroyed, where the kernel would refuse one beyond its own queue), and closing the
 * listener refuses every request still waiting, so that none outlives it.
 */
final class ConnectionBacklog {
    /** What the kernel uses for a backlog of 0 or one above it: {@code net.rdma_ucm.max_backlog}. */
    static final int KERNEL_DEFAULT = 1024;
    private static final Path MAX_BACKLOG = Path.of("/proc/sys/net/rdma_ucm/max_backlog");

    private final int limit;
    /** Requests queued on the listener and not yet taken; guarded by this. */
    private int waiting;
    /** The listener is closing: nothing is queued any more; guarded by this. */
    private boolean closed;

    private ConnectionBacklog(int limit) {
        this.limit = limit;
    }

    /** The bound the kernel applies to {@code backlog}: its maximum for 0, negative or larger values. */
    static ConnectionBacklog of(int backlog) {
        int max = kernelMaximum();
        return new ConnectionBacklog(backlog <= 0 || backlog > max ? max : backlog);
    }

    private static int kernelMaximum() {
        try {
            // not Files.readString: procfs reports a size of 0, and readString then returned "1" of "1024"
            return Integer.parseInt(Files.readAllLines(MAX_BACKLOG).getFirst().trim());
        } catch (IOException | RuntimeException unreadable) {
            return KERNEL_DEFAULT;
        }
    }

    int limit() {
        return limit;
    }

    /**
     * Queues {@code request} on {@code queue} if the backlog has room and the listener is open.
     *
     * @return false if the caller must refuse the request (reject and destroy its id)
     */
    synchronized boolean offer(CmEvent request, CmEventQueue queue) {
        if (closed || waiting >= limit) {
            return false;
        }
        waiting++;
        queue.deliver(request);
        return true;
    }

    /** The application took a request off the listener's queue. */
    synchronized void taken() {
        if (waiting > 0) {
            waiting--;
        }
    }

    /**
     * Ends queuing and takes back every request still on {@code queue}, for the listener's close to refuse; a
     * request taken by a waiter before this is that waiter's.
     */
    synchronized List<CmEvent> close(CmEventQueue queue) {
        closed = true;
        waiting = 0;
        List<CmEvent> left = new ArrayList<>();
        for (CmEvent event : queue.drain()) {
            if (event.type() == CmEventType.CONNECT_REQUEST) {
                left.add(event);
            }
        }
        return left;
    }
}
