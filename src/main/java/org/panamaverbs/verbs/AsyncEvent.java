package org.panamaverbs.verbs;

/**
 * {@code struct ibv_async_event}, read with {@code ibv_get_async_event} and already acknowledged
 * ({@code ibv_ack_async_event}) when you see it, so destroying the object it names never waits.
 *
 * @param type   what happened
 * @param source the queue pair, completion queue or shared receive queue concerned (as this library knows it), or null for
 *               port and device events or objects created outside this library
 * @param port   the port concerned, or 0
 */
public record AsyncEvent(AsyncEventType type, VerbsResource source, int port) {
    /**
     * The queue pair concerned, or null.
     *
     * @return {@link #source()} as a queue pair for the events that {@link AsyncEventType#concernsQueuePair()},
     *         or null for other events and for queue pairs this library did not create
     */
    public QueuePair queuePair() {
        return source instanceof QueuePair qp ? qp : null;
    }

    /**
     * The shared receive queue concerned, or null.
     *
     * @return {@link #source()} as a shared receive queue for {@link AsyncEventType#SRQ_ERR} and
     *         {@link AsyncEventType#SRQ_LIMIT_REACHED}, or null otherwise and for queues this library did not create
     */
    public SharedReceiveQueue sharedReceiveQueue() {
        return source instanceof SharedReceiveQueue srq ? srq : null;
    }

    /**
     * The completion queue concerned, or null.
     *
     * @return {@link #source()} as a completion queue for {@link AsyncEventType#CQ_ERR}, or null otherwise and
     *         for queues this library did not create
     */
    public CompletionQueue completionQueue() {
        return source instanceof CompletionQueue cq ? cq : null;
    }
}
