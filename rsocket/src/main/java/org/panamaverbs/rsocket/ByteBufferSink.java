package org.panamaverbs.rsocket;

import java.nio.ByteBuffer;

/** A {@link ByteBuffer} as a {@link ByteSink}, kept by a flow as {@link ByteBufferSource} is. */
final class ByteBufferSink implements ByteSink {
    ByteBuffer buffer;

    @Override
    public int room() {
        return buffer.remaining();
    }

    @Override
    public void copyFrom(ByteBuffer source) {
        buffer.put(source);
    }
}
