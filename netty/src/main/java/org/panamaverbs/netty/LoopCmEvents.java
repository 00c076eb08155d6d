package org.panamaverbs.netty;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.panamaverbs.cm.CmEvent;
import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.cm.CmEventHandler;
import org.panamaverbs.cm.CmEventType;
import org.panamaverbs.cm.CmEventView;
import org.panamaverbs.cm.CmId;

/**
 * The rdma_cm side of one event loop: a polled event channel ({@code CmEventChannel.createPolled()}) whose
 * descriptor the loop watches beside its completion channels, and the target of each id's events. When the
 * descriptor is readable the loop reads up to a batch of events ({@code rdma_get_cm_event}, acknowledged at once)
 * and hands each to its id's target on the loop's thread: connects, accepts and disconnects need no thread of
 * their own. Loop thread only, except {@link #unfollow} (a child channel on another loop stops following its id).
 */
final class LoopCmEvents {
    private static final InternalLogger LOG = InternalLoggerFactory.getInstance(LoopCmEvents.class);
    /** Events handled per readable descriptor before the loop turns to its other work. */
    private static final int BATCH = 64;

    /** What an id's events go to, on the loop's thread. */
    interface Target {
        /**
         * One event of the id (for CONNECT_REQUEST, of the listening id: {@link CmEvent#id()} is the request's new
         * id, which the target then owns).
         */
        void onCmEvent(CmEvent event);
    }

    private final RdmaLoop.Watcher watcher;
    private final Map<CmId, Target> targets = new ConcurrentHashMap<>();
    private final CmEventHandler dispatch = this::dispatch;
    private CmEventChannel channel;
    private int fd = -1;

    LoopCmEvents(RdmaLoop.Watcher watcher) {
        this.watcher = watcher;
    }

    /** The event channel, made and watched on first use. */
    CmEventChannel channel() {
        if (channel == null) {
            CmEventChannel made = CmEventChannel.createPolled();
            int descriptor = made.fd();
            try {
                watcher.watch(descriptor, made);
            } catch (RuntimeException e) {
                made.close();
                throw e;
            }
            fd = descriptor;
            channel = made;
        }
        return channel;
    }

    /** Handles the channel's events if {@code readable} is its descriptor; false if it is another's. */
    boolean onReadable(int readable) {
        CmEventChannel current = channel;
        if (current == null || readable != fd) {
            return false;
        }
        try {
            current.poll(dispatch, BATCH); // level-triggered: what is left makes the descriptor readable again
        } catch (RuntimeException e) {
            if (!current.isClosed()) {
                LOG.warn("reading the rdma_cm events of {} failed", current, e);
            }
        }
        return true;
    }

    /** One event: to its id's target; a request its listener no longer takes is refused by destroying its id. */
    private void dispatch(CmEventView view) {
        boolean request = view.type() == CmEventType.CONNECT_REQUEST;
        Target target = targets.get(request ? view.listenId() : view.id());
        if (target == null) {
            if (request) {
                view.id().closeAsync(); // refused by its destruction, which runs off the loop
            }
            return;
        }
        CmEvent event = view.toEvent(); // a copy: a forwarded event outlives the view
        try {
            target.onCmEvent(event);
        } catch (RuntimeException e) {
            LOG.warn("handling {} failed", event, e);
            if (request) {
                event.id().closeAsync();
            }
        }
    }

    /** From now on {@code id}'s events (an id of {@link #channel()}) go to {@code target}. */
    void follow(CmId id, Target target) {
        targets.put(id, target);
    }

    /** {@code id}'s events go nowhere any more (it is being closed); from any thread. */
    void unfollow(CmId id) {
        targets.remove(id);
    }

    /** Stops watching and closes the channel, and every id still open on it. Idempotent. */
    void destroy() {
        CmEventChannel current = channel;
        if (current != null) {
            channel = null;
            watcher.unwatch(fd);
            current.close();
            targets.clear();
        }
    }
}
