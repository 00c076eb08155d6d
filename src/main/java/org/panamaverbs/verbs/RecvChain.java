package org.panamaverbs.verbs;

import org.panamaverbs.ffi.ibv_recv_wr;

/**
 * A reusable chain of {@code struct ibv_recv_wr} in native memory, each with room for
 * {@link #maxSge()} scatter-gather entries, edited through one {@link RecvWorkRequest} flyweight per
 * slot and posted with {@link QueuePair#postRecv(RecvChain, int)}; nothing is allocated per post.
 * The buffers the entries name must stay registered until the receive completes.
 *
 * Not thread-safe: one chain per posting thread. The native memory lives until {@link #close()}.
 */
public final class RecvChain extends WorkRequestChain {
    static final long WR_SIZE = ibv_recv_wr.layout().byteSize();

    private final RecvWorkRequest[] views;

    private RecvChain(int capacity, int maxSge) {
        super(ibv_recv_wr.layout(), ibv_recv_wr.next$offset(), ibv_recv_wr.sg_list$offset(), ibv_recv_wr.num_sge$offset(), capacity, maxSge);
        views = new RecvWorkRequest[capacity];
        for (int i = 0; i < capacity; i++) {
            views[i] = new RecvWorkRequest(this, i);
        }
    }

    /**
     * Allocates a chain of {@code capacity} zeroed receive requests with {@code maxSge} entries each.
     *
     * @param capacity the number of requests, at least 1: the most one post can hand the queue, which may
     *                 take fewer ({@code max_recv_wr} of the queue pair, {@code max_wr} of a shared receive queue)
     * @param maxSge   scatter-gather entries per request, 0 or more; the provider refuses a request that uses
     *                 more than the queue pair's {@code max_recv_sge} (a shared receive queue's {@code max_sge})
     * @return the chain, all requests zeroed ({@code wr_id} 0, no entries) and linked in order
     * @throws IllegalArgumentException if {@code capacity} &lt; 1 or {@code maxSge} &lt; 0
     * @throws RdmaUnavailableException if libibverbs cannot be loaded
     */
    public static RecvChain allocate(int capacity, int maxSge) {
        Rdma.requireLibrary();
        return new RecvChain(capacity, maxSge);
    }

    /**
     * The flyweight for request {@code index}; the same object every time.
     *
     * @param index the request's position in the chain, 0 to {@link #capacity()} - 1
     * @return the flyweight that reads and writes request {@code index}
     * @throws IndexOutOfBoundsException if {@code index} is outside the chain
     */
    public RecvWorkRequest get(int index) {
        return views[index];
    }
}
