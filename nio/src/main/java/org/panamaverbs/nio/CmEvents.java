package org.panamaverbs.nio;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.panamaverbs.cm.CmEvent;
import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.cm.CmEventType;
import org.panamaverbs.cm.CmEventView;
import org.panamaverbs.cm.CmId;

/**
 * A polled rdma_cm event channel ({@code rdma_create_event_channel}) shared by a listening channel and the
 * channels it accepted (whose ids rdma_cm puts on the listener's event channel), or owned by one client channel.
 * Any of its users' threads may read it ({@link #poll()}); each event goes to its id's {@link Target}, which only
 * queues it and wakes its channel: a channel handles its events under its own lock. Closed when its last user
 * releases it, so closing a server channel leaves the connections it accepted working.
 */
final class CmEvents {
    /** Events read per poll. */
    private static final int BATCH = 16;

    /** Where an id's events go: queued for its channel, which is woken. */
    interface Target {
        void deliver(CmEvent event);
    }

    private final CmEventChannel channel = CmEventChannel.createPolled();
    private final Map<CmId, Target> targets = new ConcurrentHashMap<>();
    private int users = 1;

    /** The channel, for {@code CmId.create}. */
    CmEventChannel channel() {
        return channel;
    }

    /** Its descriptor, readable while events wait. */
    int fd() {
        return channel.isClosed() ? -1 : channel.fd();
    }

    /** From now on {@code id}'s events (for a listening id, its connection requests) go to {@code target}. */
    void follow(CmId id, Target target) {
        targets.put(id, target);
    }

    /** {@code id}'s events go nowhere any more. */
    void unfollow(CmId id) {
        targets.remove(id);
    }

    /** Reads the waiting events, without blocking, and hands each to its id's target. */
    void poll() {
        if (channel.isClosed()) {
            return;
        }
        try {
            channel.poll(this::dispatch, BATCH);
        } catch (IllegalStateException closedMeanwhile) {
            // the last user released the channel while this one polled
        }
    }

    private void dispatch(CmEventView view) {
        boolean request = view.type() == CmEventType.CONNECT_REQUEST;
        Target target = targets.get(request ? view.listenId() : view.id());
        if (target == null) {
            if (request) {
                view.id().closeAsync(); // the listener is closing: refused by its destruction, as C's is
            }
            return;
        }
        target.deliver(view.toEvent());
    }

    /** One more channel uses this event channel (an accepted connection). */
    synchronized void retain() {
        if (users == 0) {
            throw new IllegalStateException("the rdma_cm event channel was closed");
        }
        users++;
    }

    /** A user is done with it; the last one closes it (and any id still on it). */
    synchronized void release() {
        if (users > 0 && --users == 0) {
            targets.clear();
            channel.close();
        }
    }
}
