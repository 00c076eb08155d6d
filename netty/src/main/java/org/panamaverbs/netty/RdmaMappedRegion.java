package org.panamaverbs.netty;

import java.lang.foreign.MemorySegment;

import org.panamaverbs.rsocket.RsocketConnection;

/**
 * Memory of this side that the peer may write into directly: rsocket's {@code riomap(fd, buf, size, PROT_WRITE, 0,
 * offset)}, made by {@link RdmaSocketChannel#mapRegion}. The peer's {@code riowrite} (or a Java peer's
 * {@link RdmaDirectWrite}) at offsets {@code [offset(), offset() + size())} lands in {@link #segment()} by RDMA
 * WRITE, without a copy and without this side's software: nothing is read, no event fires. The peer tells of its
 * writes its own way, as rsocket's programs do: a stream message sent after the writes (it arrives after them, on
 * the same reliable connection) or a flag byte at the end of the region, read with an acquiring or volatile access.
 *
 * <p>Verbs: {@code ibv_reg_mr} with remote write access on the connection's protection domain; the entry
 * ({@code struct rs_iomap}) reaches the peer as an RDMA WRITE WITH IMM into its iomap table, before any data written
 * after the mapping. The device may write the memory until {@link #close()} or the channel's close, whichever comes
 * first ({@code ibv_dereg_mr}); the memory itself (zeroed, page-aligned native memory) stays readable for as long as
 * this object is reachable, with what the peer wrote before, and the garbage collector frees it after that, as
 * riostream's buffer stays its program's after {@code riounmap} and {@code rclose}.
 */
public final class RdmaMappedRegion implements AutoCloseable {
    private final RdmaSocketChannel channel;
    private final RsocketConnection connection;
    private final RsocketConnection.Mapped mapped;
    private final long offset;

    RdmaMappedRegion(RdmaSocketChannel channel, RsocketConnection connection, RsocketConnection.Mapped mapped,
            long offset) {
        this.channel = channel;
        this.connection = connection;
        this.mapped = mapped;
        this.offset = offset;
    }

    /**
     * {@return the memory the peer writes into; its bytes change under the reader while the peer writes (read a flag
     * byte with an acquiring access), and no longer once the region is closed}
     */
    public MemorySegment segment() {
        return mapped.memory();
    }

    /** {@return the offset the peer knows the region by: its first byte is the peer's {@code offset()}} */
    public long offset() {
        return offset;
    }

    /** {@return the region's size in bytes} */
    public int size() {
        return (int) mapped.memory().byteSize();
    }

    /** {@return the channel the region is mapped on} */
    public RdmaSocketChannel channel() {
        return channel;
    }

    /**
     * {@code riounmap}: deregisters the memory ({@code ibv_dereg_mr}) and frees its entry of the peer's table for
     * another region; the memory stays readable. As in rsocket, the peer is not told: a write of its into the region
     * afterwards fails on its side with a remote access error, which ends the connection. Idempotent; any thread.
     */
    @Override
    public void close() {
        // deregistered at once, on this thread; the table slot is the loop's
        mapped.region().close();
        if (channel.eventLoop().inEventLoop()) {
            connection.unmapRegion(mapped);
        } else {
            try {
                channel.eventLoop().execute(() -> connection.unmapRegion(mapped));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // the loop is shut down: the connection and its slots are gone with it
            }
        }
    }

    @Override
    public String toString() {
        return "RdmaMappedRegion[offset " + offset + ", " + size() + " bytes, slot " + mapped.slot()
                + "]";
    }
}
