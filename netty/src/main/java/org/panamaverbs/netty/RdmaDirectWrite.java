package org.panamaverbs.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * A write straight into memory the peer mapped (rsocket's {@code riowrite(fd, buf, count, offset, flags)}): written
 * to an {@link RdmaSocketChannel} like a {@link ByteBuf}, its bytes land in the peer's region that holds
 * {@code offset} (a C peer's {@code riomap}, a Java peer's {@link RdmaSocketChannel#mapRegion}) by RDMA WRITE,
 * without the peer's software; nothing is added to the stream the peer reads. It is ordered with the channel's other
 * writes: data written after it reaches the peer after these bytes are in place, so a stream message after it tells
 * the peer that they are.
 *
 * <p>Verbs: {@code IBV_WR_RDMA_WRITE} from the channel's registered send buffer (the content is copied there, as
 * riowrite copies it, so it may be released once the write's future completes) to the peer's region, in transfers of
 * 2 KiB doubling to 64 KiB that count against the send queue and buffer like stream data.
 *
 * <p>Errors: the write's future fails with {@link IllegalArgumentException} when the peer's mapped regions do not
 * hold every byte of {@code [offset, offset + content.readableBytes())} (nothing is sent then); a write into a
 * region the peer has unmapped fails on the connection with a remote access error and closes the channel.
 */
public final class RdmaDirectWrite extends DefaultByteBufHolder {
    private final long offset;
    private final int startIndex;

    /**
     * A write of {@code content}'s readable bytes to the peer's mapped {@code offset}.
     *
     * @param offset  where the content goes in the peer's mapped offsets (riowrite's {@code offset}), not negative
     * @param content the bytes (its readable ones); released when the write completes or fails
     * @throws IllegalArgumentException if {@code offset} is negative
     */
    public RdmaDirectWrite(long offset, ByteBuf content) {
        super(content);
        if (offset < 0) {
            throw new IllegalArgumentException("a mapped offset is not negative: " + offset);
        }
        this.offset = offset;
        this.startIndex = content.readerIndex();
    }

    /** {@return where the first byte goes, in the peer's mapped offsets} */
    public long offset() {
        return offset;
    }

    /** Where the next unsent byte goes (the content's reader index moves as bytes are sent). */
    long nextOffset() {
        return offset + content().readerIndex() - startIndex;
    }

    @Override
    public RdmaDirectWrite replace(ByteBuf content) {
        return new RdmaDirectWrite(offset, content);
    }

    @Override
    public RdmaDirectWrite copy() {
        return (RdmaDirectWrite) super.copy();
    }

    @Override
    public RdmaDirectWrite duplicate() {
        return (RdmaDirectWrite) super.duplicate();
    }

    @Override
    public RdmaDirectWrite retainedDuplicate() {
        return (RdmaDirectWrite) super.retainedDuplicate();
    }

    @Override
    public RdmaDirectWrite retain() {
        super.retain();
        return this;
    }

    @Override
    public RdmaDirectWrite retain(int increment) {
        super.retain(increment);
        return this;
    }

    @Override
    public RdmaDirectWrite touch() {
        super.touch();
        return this;
    }

    @Override
    public RdmaDirectWrite touch(Object hint) {
        super.touch(hint);
        return this;
    }

    @Override
    public String toString() {
        return "RdmaDirectWrite[offset " + offset + ", " + content() + "]";
    }
}
