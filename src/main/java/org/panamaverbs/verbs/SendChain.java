package org.panamaverbs.verbs;

import org.panamaverbs.ffi.ibv_send_wr;

/**
 * A reusable chain of {@code struct ibv_send_wr} in native memory, each with room for
 * {@link #maxSge()} scatter-gather entries, edited through one {@link SendWorkRequest} flyweight per
 * slot and posted with {@link QueuePair#postSend(SendChain, int)}. Fill the requests once, then
 * patch only what changes (wr_id, offsets) between posts: nothing is allocated per post.
 *
 * <pre>{@code
 * try (SendChain wrs = SendChain.allocate(16, 1)) {
 *     wrs.get(0).wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
 *               .sge(region, 0, 4096).remote(peerAddress, peerRkey);
 *     int rc = qp.postSend(wrs, 1);   // 0, or an errno value; wrs.failedIndex() names the refused request
 * }
 * }</pre>
 *
 * Not thread-safe: one chain per posting thread. The native memory lives until {@link #close()}; the
 * device only reads a request during the post call, so the chain may be changed as soon as the call returns.
 */
public final class SendChain extends WorkRequestChain {
    static final long WR_SIZE = ibv_send_wr.layout().byteSize();

    static final int SPECIAL_ATOMIC = 1;
    static final int SPECIAL_INLINE = 2;
    static final int SPECIAL_UD = 4;

    private final SendWorkRequest[] views;
    /** Per request: whether it is atomic or inline, which {@link QueuePair#postSend} checks against the queue pair. */
    private final byte[] special;
    /** Per request: the address handle of a UD send, kept so a closed handle is refused before the post. */
    private final AddressHandle[] addressHandles;
    /** How many requests are special: 0 keeps the post path to a single compare. */
    int specialCount;

    private SendChain(int capacity, int maxSge) {
        super(ibv_send_wr.layout(), ibv_send_wr.next$offset(), ibv_send_wr.sg_list$offset(), ibv_send_wr.num_sge$offset(), capacity, maxSge);
        views = new SendWorkRequest[capacity];
        special = new byte[capacity];
        addressHandles = new AddressHandle[capacity];
        for (int i = 0; i < capacity; i++) {
            views[i] = new SendWorkRequest(this, i);
        }
    }

    /**
     * Allocates a chain of {@code capacity} zeroed send requests with {@code maxSge} scatter-gather
     * entries each.
     *
     * @param capacity the number of requests, at least 1: the most one post can hand the send queue, which
     *                 takes at most its {@code max_send_wr} outstanding requests
     * @param maxSge   scatter-gather entries per request, 0 or more (0 suits requests without payload);
     *                 the provider refuses a request that uses more than the queue pair's {@code max_send_sge}
     * @return the chain, all requests zeroed (opcode {@link WrOpcode#RDMA_WRITE}, no flags, no entries) and
     *         linked in order
     * @throws IllegalArgumentException if {@code capacity} &lt; 1 or {@code maxSge} &lt; 0
     * @throws RdmaUnavailableException if libibverbs cannot be loaded
     */
    public static SendChain allocate(int capacity, int maxSge) {
        Rdma.requireLibrary();
        return new SendChain(capacity, maxSge);
    }

    void markSpecial(int index, int bits) {
        unproven(index); // the next post checks the request against the queue pair again
        int old = special[index];
        if ((old == 0) != (bits == 0)) {
            specialCount += bits == 0 ? -1 : 1;
        }
        special[index] = (byte) bits;
    }

    int special(int index) {
        return special[index];
    }

    void addressHandle(int index, AddressHandle handle) {
        addressHandles[index] = handle;
    }

    AddressHandle addressHandle(int index) {
        return addressHandles[index];
    }

    /**
     * The flyweight for request {@code index}; the same object every time.
     *
     * @param index the request's position in the chain, 0 to {@link #capacity()} - 1
     * @return the flyweight that reads and writes request {@code index}
     * @throws IndexOutOfBoundsException if {@code index} is outside the chain
     */
    public SendWorkRequest get(int index) {
        return views[index];
    }
}
