package org.panamaverbs.rsocket;

import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.ProtectionDomain;

/**
 * What an {@link RsocketConnection} needs from the transport that drives it: per device a protection domain and
 * completion queues, completions handed to the connection whose queue pair they belong to, and a place for a closed
 * connection to linger until its last sends complete. An event loop shares one completion queue among its
 * connections; a transport without one may give each connection a queue of its own.
 *
 * <p>The transport calls every method on the thread that drives its connections (an event loop, or whichever thread
 * holds the connection's lock); it polls its queues, hands each completion to
 * {@link RsocketConnection#onCompletion}, and then calls {@link RsocketConnection#afterCompletions()} once per
 * connection that took one.
 */
public interface RsocketHost {
    /**
     * The protection domain the connections on {@code context} register their buffers in; it outlives them.
     *
     * @param context the device of a connection's rdma_cm id
     * @return the protection domain
     */
    ProtectionDomain protectionDomain(Context context);

    /**
     * A completion queue of {@code context} with room for {@code entries} more completions (a queue pair's send and
     * receive depth), polled by the transport from now on.
     *
     * @param context the device
     * @param entries the completions the connection may have outstanding
     * @return the queue its queue pair will use
     */
    CompletionQueue reserve(Context context, int entries);

    /**
     * The completions of queue pair {@code qpNumber} on {@code queue} go to {@code connection} from now on.
     *
     * @param queue      a queue {@link #reserve} returned
     * @param qpNumber   the connection's queue pair
     * @param connection its connection
     */
    void dispatch(CompletionQueue queue, int qpNumber, RsocketConnection connection);

    /**
     * Gives back what {@link #reserve} took, and ends the dispatch of {@code qpNumber}: its queue pair is being
     * destroyed.
     *
     * @param queue    the queue
     * @param entries  the entries reserved
     * @param qpNumber the queue pair, -1 when none was made
     */
    void release(CompletionQueue queue, int entries, int qpNumber);

    /**
     * {@code connection} was closed: the host frees it ({@link RsocketConnection#free()}) once
     * {@link RsocketConnection#canBeFreed} says so, polling its queue meanwhile, or at once when the host shuts down.
     *
     * @param connection the closed connection
     */
    void closing(RsocketConnection connection);
}
