package org.panamaverbs.nio;

import java.io.IOException;
import java.net.ProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.AbstractSelector;
import java.nio.channels.spi.SelectorProvider;
import java.util.concurrent.TimeUnit;

/**
 * The {@link SelectorProvider} whose socket channels speak librdmacm's rsocket protocol over RDMA, so that an
 * unchanged program written against {@code java.nio.channels} moves to RDMA with one system property:
 *
 * <pre>{@code
 * java --enable-native-access=ALL-UNNAMED \
 *      -Djava.nio.channels.spi.SelectorProvider=org.panamaverbs.nio.RsocketSelectorProvider \
 *      -cp app.jar:panama-verbs.jar:panama-verbs-rsocket.jar:panama-verbs-nio.jar app.Main
 * }</pre>
 *
 * <p>{@code SocketChannel.open()} then gives a channel whose connect is rdma_cm's ({@code rdma_resolve_addr},
 * {@code rdma_resolve_route}, {@code rdma_connect} with rsocket's private data) and whose reads and writes move bytes
 * through a queue pair's send and receive rings ({@code ibv_post_send} of RDMA WRITE WITH IMMEDIATE,
 * {@code ibv_poll_cq}), as C's {@code rsocket} does: its peer may be a C program under
 * {@code LD_PRELOAD=librspreload.so}, {@code rstream}, or a Java program on this provider or on the netty transport.
 * {@code ServerSocketChannel.open()} listens with {@code rdma_listen} on rdma_cm's TCP port space. Both channels work
 * in blocking and non-blocking mode; what the application writes is copied into the connection's registered send
 * ring, so its buffers need to live only for the call.
 *
 * <p>{@link #openSelector()} gives a selector over these channels (as C's {@code rpoll}: completions polled, then a
 * wait in {@code poll} on the channels' completion and rdma_cm event channels); a channel of another provider is
 * refused by it; {@code socket()} gives a channel's {@code java.net} adaptor, so Netty's NIO transport runs on these
 * channels unchanged. {@link #openPipe()} gives a kernel pipe whose ends the selectors take too. Datagram channels
 * are refused with {@link UnsupportedOperationException} (rsockets carry streams).
 *
 * <p><b>TCP fallback</b> (system property {@value #FALLBACK_PROPERTY}: {@code tcp}, the default, or {@code refuse}):
 * a connect that rdma_cm cannot make (no RDMA device serves the address or none is on this machine, or the peer
 * refused or did not answer within 30 s) is made again over TCP to the same address, as librspreload's
 * {@code connect} does, so a program keeps reaching peers that do not speak rsocket; a server channel bound to an
 * address that no RDMA device serves, or on a machine without rdma_cm, listens on TCP. A wildcard server on a
 * machine with rdma_cm listens on RDMA only. With {@code refuse}, such a connect fails with
 * {@link java.net.ConnectException} and such a bind with an {@link IOException} naming rdma_cm's error.
 *
 * <p><b>Write stall</b> (system property {@value #WRITE_STALL_PROPERTY}): a blocking write that waits that many
 * milliseconds without the peer taking a byte (no rsocket credits, or a full TCP window: a peer that stopped
 * reading) fails with an {@link IOException} saying so; the bytes taken before stay sent and the channel open. 0,
 * the default, waits as TCP does: without bound.
 *
 * <p>Errors: a connect that finds no listener fails with a {@code ConnectException} ("Connection refused"), one
 * that gets no answer within 30 s with a {@code ConnectException} ("timed out"); a connection whose work requests
 * fail (the peer's adapter gone) reads and writes an {@link IOException} naming the completion status.
 */
public final class RsocketSelectorProvider extends SelectorProvider {
    /** The system property that says what a connect or a bind that rdma_cm cannot serve does: tcp or refuse. */
    public static final String FALLBACK_PROPERTY = "panamaverbs.nio.fallback";

    /** The system property that bounds a blocking write's wait for room: milliseconds, 0 (the default) for none. */
    public static final String WRITE_STALL_PROPERTY = "panamaverbs.nio.writeStallMillis";

    private final boolean tcpFallback;
    private final long writeStallNanos;

    /**
     * The provider; made by {@link SelectorProvider#provider()} from the system property or a service file.
     *
     * @throws IllegalArgumentException when {@value #FALLBACK_PROPERTY} is neither {@code tcp} nor {@code refuse}, or
     *         {@value #WRITE_STALL_PROPERTY} is not a number of milliseconds
     */
    public RsocketSelectorProvider() {
        String fallback = System.getProperty(FALLBACK_PROPERTY, "tcp");
        if (!fallback.equals("tcp") && !fallback.equals("refuse")) {
            throw new IllegalArgumentException(FALLBACK_PROPERTY + "=" + fallback + ": say tcp (the default: what"
                    + " rdma_cm cannot serve goes over TCP) or refuse");
        }
        tcpFallback = fallback.equals("tcp");
        String stall = System.getProperty(WRITE_STALL_PROPERTY, "0");
        long millis;
        try {
            millis = Long.parseLong(stall);
        } catch (NumberFormatException e) {
            millis = -1;
        }
        if (millis < 0) {
            throw new IllegalArgumentException(WRITE_STALL_PROPERTY + "=" + stall + ": say the milliseconds a blocking"
                    + " write may wait for the peer to take bytes, or 0 for no bound");
        }
        writeStallNanos = TimeUnit.MILLISECONDS.toNanos(millis);
    }

    /** How long a blocking write may wait without taking a byte; 0 for no bound. */
    long writeStallNanos() {
        return writeStallNanos;
    }

    /** Whether what rdma_cm cannot serve goes over TCP. */
    boolean tcpFallback() {
        return tcpFallback;
    }

    @Override
    public SocketChannel openSocketChannel() throws IOException {
        return new RsocketSocketChannel(this);
    }

    @Override
    public ServerSocketChannel openServerSocketChannel() throws IOException {
        return new RsocketServerSocketChannel(this);
    }

    @Override
    public AbstractSelector openSelector() throws IOException {
        return new RsocketSelector(this);
    }

    @Override
    public Pipe openPipe() throws IOException {
        return new DescriptorPipe(this);
    }

    @Override
    public DatagramChannel openDatagramChannel() {
        throw new UnsupportedOperationException("DatagramChannel.open(): rsockets carry streams; panama-verbs-nio"
                + " provides no datagram channels");
    }

    @Override
    public DatagramChannel openDatagramChannel(ProtocolFamily family) {
        return openDatagramChannel();
    }
}
