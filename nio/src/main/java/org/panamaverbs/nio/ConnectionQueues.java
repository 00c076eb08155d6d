package org.panamaverbs.nio;

import java.time.Duration;

import org.panamaverbs.rsocket.RsocketConnection;
import org.panamaverbs.rsocket.RsocketHost;
import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.CompletionChannel;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.VerbsException;
import org.panamaverbs.verbs.VerbsResource;
import org.panamaverbs.verbs.WorkCompletion;

/**
 * The host of one channel's connection: a protection domain, a completion channel and a completion queue of its
 * own ({@code ibv_alloc_pd}, {@code ibv_create_comp_channel}, {@code ibv_create_cq}), so that each NIO channel is
 * driven by whichever of its threads holds its lock, with no event loop shared between channels. Polled and armed
 * under the channel's lock; freed by the channel's close.
 */
final class ConnectionQueues implements RsocketHost {
    private static final int POLL_BATCH = 32;

    private final CompletionArray completions = CompletionArray.allocate(POLL_BATCH);
    private ProtectionDomain pd;
    private CompletionChannel channel;
    private CompletionQueue cq;
    private RsocketConnection connection;

    @Override
    public ProtectionDomain protectionDomain(Context context) {
        if (pd == null) {
            pd = context.allocateProtectionDomain();
        }
        return pd;
    }

    @Override
    public CompletionQueue reserve(Context context, int entries) {
        if (cq != null) {
            throw new IllegalStateException("a channel's queues serve one connection");
        }
        channel = context.createCompletionChannel();
        cq = context.createCompletionQueue(entries, channel);
        return cq;
    }

    @Override
    public void dispatch(CompletionQueue queue, int qpNumber, RsocketConnection connection) {
        this.connection = connection;
    }

    @Override
    public void release(CompletionQueue queue, int entries, int qpNumber) {
        connection = null;
    }

    @Override
    public void closing(RsocketConnection closed) {
        // the channel's close lingers for the last sends itself, then frees the connection and these queues
    }

    /** The completion channel's descriptor, -1 before the queue pair was made. */
    int fd() {
        return channel == null ? -1 : channel.fd();
    }

    /**
     * Polls the queue and hands its completions to the connection (which then reposts and grants).
     *
     * @return the completions taken
     */
    int poll() {
        if (cq == null) {
            return 0;
        }
        int total = 0;
        int n;
        boolean took = false;
        do {
            n = cq.poll(completions);
            if (n < 0) {
                throw new VerbsException("ibv_poll_cq", -n, "polling " + cq);
            }
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = completions.get(i);
                RsocketConnection current = connection;
                if (current != null && current.onCompletion(wc)) {
                    took = true;
                }
            }
            total += n;
        } while (n == completions.capacity());
        if (took && connection != null) {
            connection.afterCompletions();
        }
        return total;
    }

    /**
     * Before a wait: takes the completion channel's pending event (else its descriptor stays readable) and arms the
     * queue ({@code ibv_req_notify_cq}) for the next completion. The caller polls once more before it waits.
     */
    void arm() {
        if (cq == null) {
            return;
        }
        while (channel.awaitEvent(Duration.ZERO) != null) {
            // consumed; the library acknowledges events in batches
        }
        int rc = cq.requestNotification(false);
        if (rc != 0) {
            throw new VerbsException("ibv_req_notify_cq", rc, "arming " + cq);
        }
    }

    /** The calling thread's turn with the queue and the connection ends (RsocketConnection#releaseThread). */
    void releaseThread() {
        completions.releaseThread();
        if (connection != null) {
            connection.releaseThread();
        }
    }

    /** Frees the queue, its channel and the protection domain (after the connection's queue pair and buffers). */
    void free() {
        VerbsResource.closeAll(cq, channel, pd); // each after what uses it: the tree decides the order
        completions.close();
    }
}
