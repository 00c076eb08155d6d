package org.panamaverbs.netty;

import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;
import org.panamaverbs.rsocket.ByteSink;

/**
 * A read's {@link ByteBuf} as the protocol's {@link ByteSink}: the flow copies the receive ring into its writable
 * bytes with {@link ByteBuf#writeBytes(ByteBuffer)}, which moves its writer index. One per channel, pointed at each
 * buffer the channel's allocator hands out (event loop thread only).
 */
final class ByteBufSink implements ByteSink {
    private ByteBuf buffer;

    ByteBufSink of(ByteBuf target) {
        buffer = target;
        return this;
    }

    @Override
    public int room() {
        return buffer.writableBytes();
    }

    @Override
    public void copyFrom(ByteBuffer source) {
        buffer.writeBytes(source);
    }
}
