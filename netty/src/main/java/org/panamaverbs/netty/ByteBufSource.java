package org.panamaverbs.netty;

import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;
import org.panamaverbs.rsocket.ByteSource;

/**
 * A written {@link ByteBuf} as the protocol's {@link ByteSource}: the flow copies from it into the send ring with
 * {@link ByteBuf#readBytes(ByteBuffer)}, which takes any kind of buffer (composite ones component by component) and
 * moves its reader index. One per channel, pointed at each message in turn (event loop thread only), so that writing
 * allocates nothing.
 */
final class ByteBufSource implements ByteSource {
    private ByteBuf buffer;

    ByteBufSource of(ByteBuf message) {
        buffer = message;
        return this;
    }

    @Override
    public int remaining() {
        return buffer.readableBytes();
    }

    @Override
    public void copyTo(ByteBuffer target) {
        buffer.readBytes(target);
    }
}
