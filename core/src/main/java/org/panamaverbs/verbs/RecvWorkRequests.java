package org.panamaverbs.verbs;

import org.panamaverbs.ffi.ibv_recv_wr;

/**
 * A reusable chain of {@code struct ibv_recv_wr} in native memory, each with room for
 * {@link #maxSge()} scatter-gather entries, edited through one {@link RecvWorkRequest} flyweight per
 * slot and posted with {@link QueuePair#postRecv(RecvWorkRequests, int)}; nothing is allocated per post.
 * The buffers the entries name must stay registered until the receive completes.
 *
 * Not thread-safe: one chain per posting thread. The native memory lives until {@link #close()}.
 */
public final class RecvWorkRequests extends WorkRequestChain {
    static final long WR_SIZE = ibv_recv_wr.layout().byteSize();

    private final RecvWorkRequest[] views;

    private RecvWorkRequests(int capacity, int maxSge) {
        super(ibv_recv_wr.layout(), ibv_recv_wr.next$offset(), ibv_recv_wr.sg_list$offset(), ibv_recv_wr.num_sge$offset(), capacity, maxSge);
        views = new RecvWorkRequest[capacity];
        for (int i = 0; i < capacity; i++) {
            views[i] = new RecvWorkRequest(this, i);
        }
    }

    /**
     * Allocates a chain of {@code capacity} zeroed receive requests with {@code maxSge} entries each.
     *
     * @throws IllegalArgumentException if {@code capacity} &lt; 1 or {@code maxSge} &lt; 0
     * @throws RdmaUnavailableException if libibverbs cannot be loaded
     */
    public static RecvWorkRequests allocate(int capacity, int maxSge) {
        Rdma.requireLibrary();
        return new RecvWorkRequests(capacity, maxSge);
    }

    /** The flyweight for request {@code index}; the same object every time. */
    public RecvWorkRequest get(int index) {
        return views[index];
    }
}
