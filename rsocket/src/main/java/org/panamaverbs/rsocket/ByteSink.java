package org.panamaverbs.rsocket;

import java.nio.ByteBuffer;

/**
 * Where an {@link RsocketFlow} read puts received bytes, adapted as a {@link ByteSource} is; a {@link ByteBuffer}
 * needs no adapter ({@link RsocketFlow#read(ByteBuffer)}).
 */
public interface ByteSink {
    /**
     * The bytes the sink can take.
     *
     * @return the room left
     */
    int room();

    /**
     * Takes every byte of {@code source}, from its position to its limit (a slice of the receive ring). Called on the
     * flow's thread, during the read only: the bytes are copied, the slice is not kept.
     *
     * @param source the receive ring's slice: never more than {@link #room()} bytes
     */
    void copyFrom(ByteBuffer source);
}
