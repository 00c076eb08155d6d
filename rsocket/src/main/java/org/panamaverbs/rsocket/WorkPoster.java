package org.panamaverbs.rsocket;

/**
 * Where {@link RsocketFlow} sends its work requests: the queue pair of a connection on a device, or a simulated
 * fabric in the unit tests. Requests are appended and posted together by {@link #flush()}, which signals at
 * least the last one of every post, so every request is followed by a completion that releases it.
 */
public interface WorkPoster {
    /**
     * Appends an RDMA WRITE WITH IMM of up to two slices of the send memory ({@code length1} 0 for one; both 0
     * for the immediate alone).
     *
     * @param wrId          the work request id (the flow's tag and sequence)
     * @param signaled      whether it must complete with a completion even if it does not end a post
     * @param offset0       the first slice's offset in the send memory
     * @param length0       its bytes
     * @param offset1       the second slice's offset (the ring wrapped)
     * @param length1       its bytes, 0 for none
     * @param remoteAddress where the peer's memory receives the bytes
     * @param rkey          the peer memory's rkey
     * @param immediate     the immediate data, host order
     */
    void writeWithImmediate(long wrId, boolean signaled, int offset0, int length0, int offset1, int length1,
            long remoteAddress, int rkey, int immediate);

    /**
     * Appends an RDMA WRITE without immediate (riowrite's direct write into a region the peer mapped) of up to two
     * slices of the send memory; unsignalled unless it ends a post.
     *
     * @param wrId          the work request id
     * @param offset0       the first slice's offset in the send memory
     * @param length0       its bytes
     * @param offset1       the second slice's offset (the ring wrapped)
     * @param length1       its bytes, 0 for none
     * @param remoteAddress where in the peer's mapped region the bytes go
     * @param rkey          the region's rkey
     */
    void write(long wrId, int offset0, int length0, int offset1, int length1, long remoteAddress, int rkey);

    /**
     * Appends a zero-byte RDMA WRITE without immediate (rsocket's keepalive): it only makes the peer's HCA ack.
     *
     * @param wrId the work request id
     */
    void writeZeroBytes(long wrId);

    /**
     * Posts what was appended ({@code ibv_post_send}), the last request signalled.
     *
     * @return 0, or the provider's errno
     */
    int flush();

    /**
     * Posts receives without scatter-gather entries ({@code ibv_post_recv}): each consumes one immediate.
     *
     * @param count the receives
     * @return 0, or the provider's errno
     */
    int postReceives(int count);
}
