package org.panamaverbs.netty;

/**
 * Where {@link RsocketFlow} sends its work requests: the queue pair of a connection on a device, or a simulated
 * fabric in the unit tests. Requests are appended and posted together by {@link #flush()}, which signals at
 * least the last one of every post, so every request is followed by a completion that releases it.
 */
interface WorkPoster {
    /**
     * Appends an RDMA WRITE WITH IMM of up to two slices of the send memory ({@code length1} 0 for one; both 0
     * for the immediate alone).
     */
    void writeWithImmediate(long wrId, boolean signaled, int offset0, int length0, int offset1, int length1,
            long remoteAddress, int rkey, int immediate);

    /**
     * Appends an RDMA WRITE without immediate (riowrite's direct write into a region the peer mapped) of up to two
     * slices of the send memory; unsignalled unless it ends a post.
     */
    void write(long wrId, int offset0, int length0, int offset1, int length1, long remoteAddress, int rkey);

    /** Appends a zero-byte RDMA WRITE without immediate (rsocket's keepalive): it only makes the peer's HCA ack. */
    void writeZeroBytes(long wrId);

    /** Posts what was appended, the last request signalled; returns 0 or the provider's errno. */
    int flush();

    /** Posts {@code count} receives without scatter-gather entries (each consumes one immediate); 0 or errno. */
    int postReceives(int count);
}
