package org.panamaverbs.nio;

/**
 * What {@link RsocketSelector} asks of the provider's channels: their readiness, computed from what arrived
 * (completions polled, rdma_cm events handled, under the channel's lock; a TCP fallback's socket polled), the
 * descriptors that become ready when more arrives, and a note of the selectors they are registered with, which they
 * wake when a thread of their own (a listener's, another channel's poll of a shared event channel) changes their
 * readiness.
 */
interface RsocketSelectable {
    /**
     * The operations ready now ({@code SelectionKey.OP_*}), after taking what arrived.
     *
     * @return the ready set, of the channel's valid operations
     */
    int readyOps();

    /** Before a selector waits: arms the channel's completion queue; what arrived meanwhile is seen by the next look. */
    void arm();

    /**
     * Writes the descriptors to wait on (a completion channel, an rdma_cm event channel, a TCP socket) to
     * {@code fds} from {@code at}, with the {@code poll} events each is waited for in {@code events}.
     *
     * @param interest the key's interest set, which a TCP socket's events follow
     * @return how many were written, at most 2
     */
    int descriptors(int interest, int[] fds, short[] events, int at);

    /** {@code selector} registered the channel: wake it when readiness changes off its thread. */
    void selectorAdded(RsocketSelector selector);

    /** {@code selector} deregistered the channel (its key was cancelled); a closed channel frees itself after its last. */
    void selectorRemoved(RsocketSelector selector);
}
