package org.panamaverbs.rsocket;

import java.nio.ByteBuffer;

/**
 * The bytes an {@link RsocketFlow} write takes, in order. A transport adapts its own buffer type (Netty's
 * {@code ByteBuf}) with an object it keeps and reuses, so that writing allocates nothing; a {@link ByteBuffer} needs
 * no adapter ({@link RsocketFlow#write(ByteBuffer)}).
 */
public interface ByteSource {
    /**
     * The bytes left to take.
     *
     * @return 0 when the write is done
     */
    int remaining();

    /**
     * Copies the next {@code target.remaining()} bytes into {@code target}, from its position to its limit (a slice of
     * the send ring), and moves past them; where {@code target}'s position ends does not matter. Called on the flow's
     * thread, during the write only.
     *
     * @param target the send ring's slice to fill: never more than {@link #remaining()} bytes
     */
    void copyTo(ByteBuffer target);
}
