package org.panamaverbs.netty;

import io.netty.channel.ChannelOption;

/**
 * The options of {@link RdmaSocketChannel} beyond Netty's own, set like any {@link ChannelOption}
 * ({@code bootstrap.option(RdmaChannelOption.QUEUE_DEPTH, 128)}, {@code childOption(...)} on a server). Buffer
 * sizes and the queue depth are fixed when the connection is made: set them before connecting or, for a server's
 * children, with {@code childOption}.
 *
 * <p>Memory per connection is the two buffers (registered once), whatever the queue depth.
 *
 * @param <T> the option's value type
 */
public final class RdmaChannelOption<T> extends ChannelOption<T> {
    /**
     * The receive buffer the peer writes into, in bytes (rsocket's {@code rbuf}, default 131072, at least 4096,
     * rounded up to even): half of it is granted in the connection data, the other half as soon as it is free.
     * {@code SO_RCVBUF} sets it too, as rsocket does (twice the value given).
     */
    public static final ChannelOption<Integer> RECEIVE_BUFFER_SIZE = valueOf(RdmaChannelOption.class,
            "RDMA_RECEIVE_BUFFER_SIZE");
    /**
     * The send buffer written data is copied into before it is sent, in bytes (rsocket's {@code sbuf}, default
     * 131072, at least 4096). {@code SO_SNDBUF} sets it too (twice the value given).
     */
    public static final ChannelOption<Integer> SEND_BUFFER_SIZE = valueOf(RdmaChannelOption.class,
            "RDMA_SEND_BUFFER_SIZE");
    /**
     * Send and receive queue depth of the queue pair (rsocket's {@code sq_size}/{@code rq_size}, default 128,
     * 16 to 65534, lowered to the device's {@code max_qp_wr}): the receive side is the number of data messages
     * the peer may have in flight, so small messages sent fast want more.
     */
    public static final ChannelOption<Integer> QUEUE_DEPTH = valueOf(RdmaChannelOption.class, "RDMA_QUEUE_DEPTH");
    /**
     * Seconds between keepalives while {@code SO_KEEPALIVE} is on (rsocket's {@code TCP_KEEPIDLE}; default 7200,
     * like TCP's): a zero-byte RDMA WRITE whose completion fails once the peer's adapter stops answering.
     */
    public static final ChannelOption<Integer> KEEPALIVE_SECONDS = valueOf(RdmaChannelOption.class,
            "RDMA_KEEPALIVE_SECONDS");
    /**
     * Milliseconds that written data may wait for the peer's credits before the channel fails with
     * {@link RdmaWriteStalledException} and closes; 0 (the default) waits as long as the peer is connected, as a
     * TCP socket whose peer does not read does.
     *
     * <p>The wait (a stall) begins when a write attempt leaves data pending that cannot be sent (no credit, no free
     * send buffer or no granted target) and ends as soon as any of it is sent (the peer granted credits) or nothing is
     * pending; data sent after a grant ends one stall, and if data is left over, a new one begins then. The exception
     * reaches the pipeline no earlier than this many milliseconds after the stall began, and later only by the event
     * loop's latency in running a due task: its wait rounds up to a whole millisecond, plus whatever the loop is
     * busy with at that moment (other channels' completions and tasks).
     */
    public static final ChannelOption<Integer> WRITE_STALL_TIMEOUT_MILLIS = valueOf(RdmaChannelOption.class,
            "RDMA_WRITE_STALL_TIMEOUT_MILLIS");

    /**
     * How many regions the peer may map for this side to write into at once (rsocket's {@code RDMA_IOMAPSIZE},
     * default 0 as there): the size of the iomap table offered in the connection data, 24 bytes of registered
     * memory an entry. A C peer's {@code riomap(PROT_WRITE)} and {@link RdmaSocketChannel#mapRegion} on a Java
     * peer need one free entry on this side; with 0 they fail. 0 to 32512; above 128, rounded down to 128 or a
     * multiple of 256, as rsocket rounds it.
     */
    public static final ChannelOption<Integer> IOMAP_SIZE = valueOf(RdmaChannelOption.class, "RDMA_IOMAP_SIZE");

    @SuppressWarnings("deprecation")
    private RdmaChannelOption() {
        super(null);
    }
}
