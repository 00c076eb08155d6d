package org.panamaverbs.nio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The TCP fallback against the JDK's own TCP channels (the default provider, in this JVM): an unchanged blocking
 * client and server exchanging bytes both ways, a selector loop, the JDK behaviours on faults, and the switch that
 * refuses instead. A connect from this provider to a TCP listener falls back wherever it runs (rdma_cm, when the
 * machine has it, finds no rsocket listener there); this provider's own server is TCP only where the machine has no
 * rdma_cm, as the build machines do (the device tests cover an address without an RDMA device beside one with).
 */
class TcpFallbackTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final SelectorProvider JDK = jdkProvider();

    private final RsocketSelectorProvider provider = new RsocketSelectorProvider();
    private final ExecutorService peers = Executors.newCachedThreadPool(); // blocking peers: never the common pool

    @AfterEach
    void stopPeers() throws InterruptedException {
        peers.shutdownNow();
        assertTrue(peers.awaitTermination(10, TimeUnit.SECONDS), "a peer thread did not stop");
    }

    /** The JDK's default provider: SelectorProvider.provider() unless the test JVM was told to use ours. */
    private static SelectorProvider jdkProvider() {
        SelectorProvider provider = SelectorProvider.provider();
        return provider instanceof RsocketSelectorProvider ? null : provider;
    }

    private static void assumeNoRdmaCm() {
        assumeFalse(Files.exists(Path.of("/dev/infiniband/rdma_cm")), "this machine has rdma_cm, so the provider's"
                + " loopback listener is an rsocket one; the device tests cover its TCP listener on a no-RDMA address");
    }

    private static byte[] pattern(int length, long seed) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    @Test
    void aClientReachesTheJdksTcpServerAndBytesMatchBothWays() throws Exception {
        assertNotNull(JDK, "the test JVM must not name this provider as the default");
        byte[] sent = pattern(300_007, 1);
        try (ServerSocketChannel server = JDK.openServerSocketChannel().bind(new InetSocketAddress(LOOPBACK, 0));
                SocketChannel client = provider.openSocketChannel()) {
            Future<byte[]> echoed = peers.submit(() -> echoOnce(server));
            client.setOption(StandardSocketOptions.TCP_NODELAY, true);
            assertTrue(client.connect(server.getLocalAddress()));
            assertTrue(client.isConnected());
            assertEquals(server.getLocalAddress(), client.getRemoteAddress());
            assertTrue(((InetSocketAddress) client.getLocalAddress()).getPort() > 0);
            assertTrue(client.getOption(StandardSocketOptions.TCP_NODELAY));
            client.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
            assertTrue(client.getOption(StandardSocketOptions.SO_KEEPALIVE));

            Future<byte[]> received = peers.submit(() -> readAll(client, sent.length));
            ByteBuffer direct = ByteBuffer.allocateDirect(100_000).put(sent, 0, 100_000).flip();
            ByteBuffer heap = ByteBuffer.wrap(sent, 100_000, sent.length - 100_000);
            ByteBuffer[] gather = {direct, heap};
            while (heap.hasRemaining()) {
                client.write(gather);
            }
            client.shutdownOutput();
            assertArrayEquals(sent, received.get(30, TimeUnit.SECONDS), "the bytes that came back");
            assertArrayEquals(sent, echoed.get(30, TimeUnit.SECONDS), "the bytes the JDK's server read");
            assertEquals(-1, client.read(ByteBuffer.allocate(1)), "the server's close is the end of the stream");
        }
    }

    @Test
    void theJdksClientReachesThisProvidersServer() throws Exception {
        assumeNoRdmaCm();
        byte[] sent = pattern(200_003, 2);
        try (ServerSocketChannel server = provider.openServerSocketChannel().bind(new InetSocketAddress(LOOPBACK, 0));
                Socket client = new Socket()) {
            assertTrue(((InetSocketAddress) server.getLocalAddress()).getPort() > 0);
            Future<byte[]> echoed = peers.submit(() -> echoOnce(server));
            client.connect(server.getLocalAddress(), 10_000);
            Future<byte[]> received = peers.submit(() -> client.getInputStream().readAllBytes());
            OutputStream out = client.getOutputStream();
            out.write(sent);
            client.shutdownOutput();
            assertArrayEquals(sent, received.get(30, TimeUnit.SECONDS));
            assertArrayEquals(sent, echoed.get(30, TimeUnit.SECONDS));
        }
    }

    @Test
    void oneSelectorServesFourClientsOverTheFallback() throws Exception {
        assumeNoRdmaCm();
        try (Selector selector = provider.openSelector();
                ServerSocketChannel server = provider.openServerSocketChannel()) {
            server.bind(new InetSocketAddress(LOOPBACK, 0)).configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
            Future<?>[] clients = new Future<?>[4];
            for (int i = 0; i < clients.length; i++) {
                long seed = 10 + i;
                clients[i] = peers.submit(() -> {
                    byte[] sent = pattern(50_000, seed);
                    try (Socket socket = new Socket()) {
                        socket.connect(server.getLocalAddress(), 10_000);
                        socket.getOutputStream().write(sent);
                        socket.shutdownOutput();
                        assertArrayEquals(sent, socket.getInputStream().readAllBytes());
                    }
                    return null;
                });
            }
            EchoLoop.run(selector, clients.length, 60_000);
            for (Future<?> client : clients) {
                client.get(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void nonBlockingClientsConnectReadAndWriteInOneSelector() throws Exception {
        try (ServerSocketChannel server = JDK.openServerSocketChannel().bind(new InetSocketAddress(LOOPBACK, 0));
                Selector selector = provider.openSelector()) {
            Future<?> echo = peers.submit(() -> {
                for (int i = 0; i < 3; i++) {
                    SocketChannel accepted = server.accept();
                    peers.submit(() -> echoConnection(accepted));
                }
                return null;
            });
            byte[][] sent = new byte[3][];
            SocketChannel[] clients = new SocketChannel[3];
            ByteBuffer[] pending = new ByteBuffer[3];
            ByteBuffer[] received = new ByteBuffer[3];
            for (int i = 0; i < 3; i++) {
                sent[i] = pattern(40_000 + i, 20 + i);
                clients[i] = provider.openSocketChannel();
                clients[i].configureBlocking(false);
                boolean now = clients[i].connect(server.getLocalAddress());
                pending[i] = ByteBuffer.wrap(sent[i]);
                received[i] = ByteBuffer.allocate(sent[i].length);
                clients[i].register(selector, now ? SelectionKey.OP_WRITE | SelectionKey.OP_READ
                        : SelectionKey.OP_CONNECT, i);
            }
            int done = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (done < 3) {
                assertTrue(System.nanoTime() < deadline, "the exchange did not end within 60 s");
                selector.select(1_000);
                for (SelectionKey key : selector.selectedKeys()) {
                    int i = (Integer) key.attachment();
                    SocketChannel channel = clients[i];
                    if (key.isConnectable() && channel.finishConnect()) {
                        key.interestOps(SelectionKey.OP_WRITE | SelectionKey.OP_READ);
                    }
                    if (key.isValid() && key.isWritable()) {
                        channel.write(pending[i]);
                        if (!pending[i].hasRemaining()) {
                            key.interestOps(SelectionKey.OP_READ);
                        }
                    }
                    if (key.isValid() && key.isReadable() && channel.read(received[i]) >= 0
                            && !received[i].hasRemaining()) {
                        key.cancel();
                        channel.close();
                        done++;
                    }
                }
                selector.selectedKeys().clear();
            }
            for (int i = 0; i < 3; i++) {
                assertArrayEquals(sent[i], received[i].array());
            }
            echo.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void faultsEndAsTheJdksChannelsEndThem() throws Exception {
        InetSocketAddress nothing;
        try (ServerSocketChannel closed = JDK.openServerSocketChannel().bind(new InetSocketAddress(LOOPBACK, 0))) {
            nothing = (InetSocketAddress) closed.getLocalAddress();
        }
        SocketChannel refused = provider.openSocketChannel();
        assertThrows(ConnectException.class, () -> refused.connect(nothing));
        assertFalse(refused.isOpen(), "a failed connect closes the channel");

        try (ServerSocketChannel server = JDK.openServerSocketChannel().bind(new InetSocketAddress(LOOPBACK, 0))) {
            SocketChannel reader = provider.openSocketChannel();
            reader.connect(server.getLocalAddress());
            SocketChannel silent = server.accept();
            Future<?> closer = peers.submit(() -> {
                Thread.sleep(300);
                reader.close();
                return null;
            });
            assertThrows(AsynchronousCloseException.class, () -> reader.read(ByteBuffer.allocate(10)));
            closer.get(10, TimeUnit.SECONDS);
            assertEquals(-1, silent.read(ByteBuffer.allocate(1)), "the peer sees the close");

            SocketChannel writer = provider.openSocketChannel();
            writer.connect(server.getLocalAddress());
            SocketChannel notReading = server.accept();
            Future<?> writerCloser = peers.submit(() -> {
                Thread.sleep(500);
                writer.close();
                return null;
            });
            ByteBuffer forever = ByteBuffer.allocateDirect(64 << 20);
            assertThrows(AsynchronousCloseException.class, () -> writer.write(forever),
                    "a close ends a write the peer does not read");
            writerCloser.get(10, TimeUnit.SECONDS);
            notReading.close();

            SocketChannel interrupted = provider.openSocketChannel();
            interrupted.connect(server.getLocalAddress());
            SocketChannel idle = server.accept();
            Thread reading = Thread.currentThread();
            Future<?> interrupter = peers.submit(() -> {
                Thread.sleep(300);
                reading.interrupt();
                return null;
            });
            try {
                assertThrows(ClosedByInterruptException.class, () -> interrupted.read(ByteBuffer.allocate(10)));
            } finally {
                Thread.interrupted();
            }
            interrupter.get(10, TimeUnit.SECONDS);
            assertFalse(interrupted.isOpen(), "an interrupt closes the channel");

            SocketChannel reset = provider.openSocketChannel();
            reset.connect(server.getLocalAddress());
            SocketChannel resetting = server.accept();
            resetting.setOption(StandardSocketOptions.SO_LINGER, 0);
            resetting.close(); // RST
            IOException failure = assertThrows(IOException.class, () -> {
                for (int i = 0; i < 100; i++) {
                    reset.write(ByteBuffer.wrap(new byte[1000]));
                    reset.read(ByteBuffer.allocate(10));
                    Thread.sleep(10);
                }
            });
            assertInstanceOf(IOException.class, failure);
            reset.close();
            idle.close();
            silent.close();
        }
    }

    @Test
    void aBlockingWriteToAPeerThatStopsReadingFailsAfterTheStallBound() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> ProviderProperties.provider(
                RsocketSelectorProvider.WRITE_STALL_PROPERTY, "-1"));
        RsocketSelectorProvider bounded = ProviderProperties.provider(RsocketSelectorProvider.WRITE_STALL_PROPERTY,
                "400");
        try (ServerSocketChannel server = JDK.openServerSocketChannel().bind(new InetSocketAddress(LOOPBACK, 0));
                SocketChannel writer = bounded.openSocketChannel()) {
            writer.connect(server.getLocalAddress());
            try (SocketChannel notReading = server.accept()) {
                ByteBuffer forever = ByteBuffer.allocateDirect(64 << 20);
                long start = System.nanoTime();
                IOException stalled = assertThrows(IOException.class, () -> writer.write(forever));
                long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(stalled.getMessage().contains("write stalled"), stalled.getMessage());
                assertTrue(forever.position() > 0, "the bytes the kernel took before the stall stay taken");
                assertTrue(waitedMillis >= 400 && waitedMillis < 10_000, "waited " + waitedMillis + " ms");
                assertTrue(writer.isOpen(), "a stalled write leaves the channel open");
                ByteBuffer drained = ByteBuffer.allocateDirect(1 << 20);
                assertTrue(notReading.read(drained) > 0, "the peer reads what was written before the stall");
            }
        }
    }

    @Test
    void theSwitchRefusesWhatRdmaCmCannotServe() throws Exception {
        assumeNoRdmaCm();
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> ProviderProperties.provider(RsocketSelectorProvider.FALLBACK_PROPERTY, "bogus"));
        assertTrue(bad.getMessage().contains("tcp") && bad.getMessage().contains("refuse"), bad.getMessage());
        RsocketSelectorProvider refusing = ProviderProperties.provider(RsocketSelectorProvider.FALLBACK_PROPERTY,
                "refuse");
        try (ServerSocketChannel server = JDK.openServerSocketChannel().bind(new InetSocketAddress(LOOPBACK, 0));
                SocketChannel client = refusing.openSocketChannel();
                ServerSocketChannel listener = refusing.openServerSocketChannel()) {
            IOException connect = assertThrows(IOException.class, () -> client.connect(server.getLocalAddress()));
            assertTrue(connect.getMessage().contains("rdma_create_event_channel"), connect.getMessage());
            assertFalse(client.isOpen());
            IOException bind = assertThrows(IOException.class, () -> listener.bind(new InetSocketAddress(LOOPBACK, 0)));
            assertTrue(bind.getMessage().contains("over RDMA"), bind.getMessage());
        }
    }

    // ---------------------------------------------------------------------------------------------- peers

    /** Accepts one connection, sends back what it reads until the end of the stream, closes; what it read. */
    private static byte[] echoOnce(ServerSocketChannel server) throws IOException {
        try (SocketChannel accepted = server.accept()) {
            return echoConnection(accepted);
        }
    }

    private static byte[] echoConnection(SocketChannel accepted) throws IOException {
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        ByteBuffer buffer = ByteBuffer.allocate(8192);
        try (accepted) {
            while (accepted.read(buffer) >= 0) {
                buffer.flip();
                all.write(buffer.array(), 0, buffer.limit());
                while (buffer.hasRemaining()) {
                    accepted.write(buffer);
                }
                buffer.clear();
            }
        }
        return all.toByteArray();
    }

    private static byte[] readAll(SocketChannel channel, int expected) throws IOException {
        ByteBuffer into = ByteBuffer.allocate(expected);
        ByteBuffer[] scatter = {into.slice(0, expected / 2), into.slice(expected / 2, expected - expected / 2)};
        long total = 0;
        while (total < expected) {
            long n = channel.read(scatter);
            if (n < 0) {
                break;
            }
            total += n;
        }
        return Arrays.copyOf(into.array(), (int) total);
    }

    /** A one-thread selector echo server: accepts, echoes each connection until its end, then closes it. */
    private static final class EchoLoop {
        static void run(Selector selector, int connections, long timeoutMillis) throws IOException {
            int closed = 0;
            long deadline = System.currentTimeMillis() + timeoutMillis;
            while (closed < connections) {
                assertTrue(System.currentTimeMillis() < deadline, "the selector loop did not end in time");
                selector.select(1_000);
                for (SelectionKey key : selector.selectedKeys()) {
                    if (key.isAcceptable()) {
                        SocketChannel accepted = ((ServerSocketChannel) key.channel()).accept();
                        if (accepted != null) {
                            accepted.configureBlocking(false);
                            accepted.register(selector, SelectionKey.OP_READ, ByteBuffer.allocate(4096));
                        }
                    } else if (key.isReadable()) {
                        SocketChannel channel = (SocketChannel) key.channel();
                        ByteBuffer buffer = (ByteBuffer) key.attachment();
                        int n = channel.read(buffer);
                        buffer.flip();
                        while (buffer.hasRemaining()) {
                            channel.write(buffer);
                        }
                        buffer.clear();
                        if (n < 0) {
                            key.cancel();
                            channel.close();
                            closed++;
                        }
                    }
                }
                selector.selectedKeys().clear();
            }
        }
    }
}
