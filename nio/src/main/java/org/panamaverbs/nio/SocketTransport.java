package org.panamaverbs.nio;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What moves a {@link RsocketSocketChannel}'s bytes: an rsocket ({@link RsocketTransport}) or, after the fallback, a
 * kernel TCP socket ({@link TcpConnection}). The channel calls it inside the JDK's blocking protocol
 * ({@code begin}/{@code end}) and under its read lock, write lock or both as the JDK's channel takes them; a
 * transport's blocking calls return when {@link #close()} is called from another thread, with a
 * {@code ClosedChannelException} the channel turns into the JDK's asynchronous-close exceptions.
 */
interface SocketTransport {
    /** Starts a connect (bound first to what {@code bind} asked); true when it completed at once. */
    boolean startConnect(InetSocketAddress target) throws IOException;

    /** Drives the connect on; waits for its end when {@code blocking}. True once connected; throws when it failed. */
    boolean finishConnect(boolean blocking) throws IOException;

    boolean isConnected();

    boolean isConnectionPending();

    /**
     * Fills {@code single}, or the buffers of {@code targets} in order, with what arrived; waits when nothing did and
     * {@code blocking}.
     *
     * @return the bytes read, -1 at the end of the stream, 0 when none came and the channel does not block
     */
    long read(ByteBuffer single, ByteBuffer[] targets, int offset, int length, boolean blocking) throws IOException;

    /**
     * Takes the bytes of {@code single}, or of the buffers of {@code sources} in order; a blocking caller waits until
     * every byte was taken.
     *
     * @return the bytes taken
     */
    long write(ByteBuffer single, ByteBuffer[] sources, int offset, int length, boolean blocking) throws IOException;

    void shutdownInput() throws IOException;

    void shutdownOutput() throws IOException;

    boolean isInputShutdown();

    boolean isOutputShutdown();

    /** The operations ready now, as a selector reports them ({@code SelectionKey.OP_*}). */
    int readyOps();

    /** Before a selector waits: arms what needs arming (a completion queue). */
    void arm();

    /** The descriptors to wait on, with their {@code poll} events, as {@link RsocketSelectable#descriptors}. */
    int descriptors(int interest, int[] fds, short[] events, int at);

    /** The local address, or null before a bind or a connect gave one. */
    InetSocketAddress localAddress();

    /** The peer's address while connected, else null. */
    InetSocketAddress remoteAddress();

    /** Ends the connection: blocked calls return, the peer hears of it. Idempotent. */
    void close();

    /**
     * Frees what the connection holds once the channel's reader and writer are out ({@code readLock},
     * {@code writeLock}) and no selector polls its descriptors; waits for the last sends as the transport does.
     */
    void release(ReentrantLock readLock, ReentrantLock writeLock);
}
