package org.panamaverbs.rsocket;

import java.nio.ByteBuffer;

/** A {@link ByteBuffer} as a {@link ByteSource}, kept by a flow so that {@code write(ByteBuffer)} allocates nothing. */
final class ByteBufferSource implements ByteSource {
    ByteBuffer buffer;

    ByteBufferSource(ByteBuffer buffer) {
        this.buffer = buffer;
    }

    @Override
    public int remaining() {
        return buffer.remaining();
    }

    @Override
    public void copyTo(ByteBuffer target) {
        int length = target.remaining();
        target.put(target.position(), buffer, buffer.position(), length);
        buffer.position(buffer.position() + length);
    }
}
