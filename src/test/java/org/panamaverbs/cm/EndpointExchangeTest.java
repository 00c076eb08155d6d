package org.panamaverbs.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.panamaverbs.verbs.QpEndpoint;

/**
 * {@link EndpointExchange} over loopback with ephemeral ports: the exchange, the barrier, and every way a peer
 * can misbehave, each ending in an {@link ExchangeException} within the timeout. Peers run on virtual threads.
 */
class EndpointExchangeTest {
    /** Generous: the build machine is shared, and only an upper bound that rules out a hang matters here. */
    private static final long SLACK_MILLIS = 3000;
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Duration SHORT = Duration.ofMillis(500);

    private ServerSocket server;
    private InetSocketAddress serverAddress;
    private ExecutorService peers;

    @BeforeEach
    void listen() throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        serverAddress = (InetSocketAddress) server.getLocalSocketAddress();
        peers = Executors.newVirtualThreadPerTaskExecutor();
    }

    @AfterEach
    void close() throws IOException {
        peers.shutdownNow();
        server.close();
    }

    private static ExchangeMessage serverInfo() throws Exception {
        return ExchangeMessageTest.sample();
    }

    private static ExchangeMessage clientInfo() throws Exception {
        return new ExchangeMessage(new QpEndpoint(0xffffff, 7, 0xffff, ExchangeMessageTest.gid("10.0.0.2")));
    }

    /** The exception a future failed with, which must be an {@link ExchangeException}. */
    private static ExchangeException failure(Future<?> future) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(30, TimeUnit.SECONDS));
        return assertInstanceOf(ExchangeException.class, e.getCause());
    }

    private static String local(Socket raw) {
        return "peer /127.0.0.1:" + raw.getLocalPort();
    }

    @Test
    void eachSideGetsTheOthersInfo() throws Exception {
        Future<ExchangeMessage> serverGot = peers.submit(() -> EndpointExchange.accept(server, serverInfo(), TIMEOUT));
        ExchangeMessage clientGot = EndpointExchange.connect(serverAddress, clientInfo(), TIMEOUT);

        assertEquals(serverInfo(), clientGot);
        assertEquals(0x123456, clientGot.endpoint().qpNumber());
        assertEquals(0xabcdef, clientGot.endpoint().psn());
        assertEquals(0x0102, clientGot.endpoint().lid());
        assertEquals(ExchangeMessageTest.gid("fe80::250:56ff:feb2:668c"), clientGot.endpoint().gid());
        assertEquals(new RemoteRegion(0x7f0012345000L, 4096, 0xdeadbeef), clientGot.region());

        ExchangeMessage fromClient = serverGot.get(30, TimeUnit.SECONDS);
        assertEquals(clientInfo(), fromClient);
        assertEquals(0xffffff, fromClient.endpoint().qpNumber());
        assertEquals(7, fromClient.endpoint().psn());
        assertEquals(0xffff, fromClient.endpoint().lid());
        assertEquals(ExchangeMessageTest.gid("10.0.0.2"), fromClient.endpoint().gid());
        assertNull(fromClient.region());
        assertEquals(0, server.getSoTimeout(), "the server socket's SO_TIMEOUT is restored");
    }

    @Test
    void sessionsMeetAtRepeatedBarriersAndSeeTheOtherClose() throws Exception {
        Future<ExchangeMessage> serverSide = peers.submit(() -> {
            try (EndpointExchange.Session session = EndpointExchange.acceptSession(server, serverInfo(), TIMEOUT)) {
                session.barrier(TIMEOUT);
                session.barrier(TIMEOUT);
                return session.peer();
            }
        });
        try (EndpointExchange.Session session = EndpointExchange.connectSession(serverAddress, clientInfo(), TIMEOUT)) {
            assertEquals(serverInfo(), session.peer());
            assertEquals(serverAddress, session.peerAddress());
            session.barrier(TIMEOUT);
            session.barrier(TIMEOUT);
            assertEquals(clientInfo(), serverSide.get(30, TimeUnit.SECONDS));
            // The server closed after its second barrier: a third one fails at once, not at the timeout.
            long start = System.nanoTime();
            ExchangeException e = assertThrows(ExchangeException.class, () -> session.barrier(TIMEOUT));
            assertTrue(elapsedMillis(start) < SLACK_MILLIS, "took " + elapsedMillis(start) + " ms");
            assertTrue(e.getMessage().contains("peer " + serverAddress + " closed the connection after 0 of 1 bytes"
                    + " of the barrier byte"), e.getMessage());
        }
    }

    @Test
    void aBarrierThePeerNeverReachesTimesOut() throws Exception {
        Future<?> client = peers.submit(() -> {
            try (EndpointExchange.Session session = EndpointExchange.connectSession(serverAddress, clientInfo(), TIMEOUT)) {
                Thread.sleep(SHORT.toMillis() + SLACK_MILLIS); // never calls barrier
            }
            return null;
        });
        try (EndpointExchange.Session session = EndpointExchange.acceptSession(server, serverInfo(), TIMEOUT)) {
            long start = System.nanoTime();
            ExchangeException e = assertThrows(ExchangeException.class, () -> session.barrier(SHORT));
            assertBetween(start, SHORT);
            assertInstanceOf(SocketTimeoutException.class, e.getCause());
            assertTrue(e.getMessage().startsWith("timed out after 500 ms waiting for the barrier byte from peer /127.0.0.1:"),
                    e.getMessage());
        }
        client.cancel(true);
    }

    @Test
    void aClientSendingGarbageIsRefusedAtOnce() throws Exception {
        try (Socket raw = new Socket(serverAddress.getAddress(), serverAddress.getPort())) {
            raw.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            long start = System.nanoTime();
            ExchangeException e = assertThrows(ExchangeException.class,
                    () -> EndpointExchange.accept(server, serverInfo(), TIMEOUT));
            assertTrue(elapsedMillis(start) < TIMEOUT.toMillis() + SLACK_MILLIS, "took " + elapsedMillis(start) + " ms");
            assertInstanceOf(IllegalArgumentException.class, e.getCause());
            assertTrue(e.getMessage().startsWith(local(raw) + " sent a malformed endpoint message: not a Panama Verbs"
                    + " endpoint message: magic 0x47455420 ('GET ') at byte 0"), e.getMessage());
            // Nothing of ours was sent to a stranger: the server closed without answering. (It closed with our
            // garbage unread, which Linux turns into a reset rather than an end of stream.)
            int first;
            try {
                first = raw.getInputStream().read();
            } catch (SocketException reset) {
                first = -1;
            }
            assertEquals(-1, first);
        }
    }

    @Test
    void aClientAnnouncingAnotherVersionIsRefusedAfterTheHeader() throws Exception {
        byte[] header = Arrays.copyOf(clientInfo().encode(), ExchangeMessage.HEADER_BYTES);
        header[5] = 9;
        try (Socket raw = new Socket(serverAddress.getAddress(), serverAddress.getPort())) {
            raw.getOutputStream().write(header); // only the header: the server must not wait for the rest
            long start = System.nanoTime();
            ExchangeException e = assertThrows(ExchangeException.class,
                    () -> EndpointExchange.accept(server, serverInfo(), TIMEOUT));
            assertTrue(elapsedMillis(start) < SLACK_MILLIS, "took " + elapsedMillis(start) + " ms");
            assertTrue(e.getMessage().contains("unsupported endpoint message version 9 at byte 4"), e.getMessage());
        }
    }

    @Test
    void anOversizeLengthIsRefusedWithoutWaitingForIt() throws Exception {
        byte[] header = Arrays.copyOf(clientInfo().encode(), ExchangeMessage.HEADER_BYTES);
        header[6] = (byte) 0xff;
        header[7] = (byte) 0xff;
        try (Socket raw = new Socket(serverAddress.getAddress(), serverAddress.getPort())) {
            raw.getOutputStream().write(header);
            long start = System.nanoTime();
            ExchangeException e = assertThrows(ExchangeException.class,
                    () -> EndpointExchange.accept(server, serverInfo(), TIMEOUT));
            assertTrue(elapsedMillis(start) < SLACK_MILLIS, "took " + elapsedMillis(start) + " ms");
            assertEquals(local(raw) + " sent a malformed endpoint message: length field 65535 at byte 6, but version 1"
                    + " messages are 56 bytes", e.getMessage());
        }
    }

    @Test
    void aSilentClientTimesOut() throws Exception {
        try (Socket raw = new Socket(serverAddress.getAddress(), serverAddress.getPort())) {
            long start = System.nanoTime();
            ExchangeException e = assertThrows(ExchangeException.class,
                    () -> EndpointExchange.accept(server, serverInfo(), SHORT));
            assertBetween(start, SHORT);
            assertInstanceOf(SocketTimeoutException.class, e.getCause());
            assertEquals("timed out after 500 ms waiting for its endpoint message from " + local(raw)
                    + ": received 0 of 56 bytes (is the peer a Panama Verbs endpoint exchange?)", e.getMessage());
        }
    }

    @Test
    void aClientStoppingMidMessageTimesOut() throws Exception {
        try (Socket raw = new Socket(serverAddress.getAddress(), serverAddress.getPort())) {
            raw.getOutputStream().write(Arrays.copyOf(clientInfo().encode(), 20));
            long start = System.nanoTime();
            ExchangeException e = assertThrows(ExchangeException.class,
                    () -> EndpointExchange.accept(server, serverInfo(), SHORT));
            assertBetween(start, SHORT);
            assertTrue(e.getMessage().startsWith("timed out after 500 ms waiting for its endpoint message from "
                    + local(raw) + ": received 20 of 56 bytes"), e.getMessage());
        }
    }

    @Test
    void aClientClosingMidMessageIsReported() throws Exception {
        String peer;
        try (Socket raw = new Socket(serverAddress.getAddress(), serverAddress.getPort())) {
            peer = local(raw);
            raw.getOutputStream().write(Arrays.copyOf(clientInfo().encode(), 20));
        }
        ExchangeException e = assertThrows(ExchangeException.class,
                () -> EndpointExchange.accept(server, serverInfo(), TIMEOUT));
        assertEquals(peer + " closed the connection after 20 of 56 bytes of its endpoint message"
                + " (is the peer a Panama Verbs endpoint exchange?)", e.getMessage());
    }

    @Test
    void noClientAtAllTimesOut() throws Exception {
        server.setSoTimeout(12345);
        long start = System.nanoTime();
        ExchangeException e = assertThrows(ExchangeException.class,
                () -> EndpointExchange.accept(server, serverInfo(), SHORT));
        assertBetween(start, SHORT);
        assertTrue(e.getMessage().startsWith("no peer connected to " + serverAddress + " within 500 ms"), e.getMessage());
        assertEquals(12345, server.getSoTimeout(), "the server socket's SO_TIMEOUT is restored");
    }

    @Test
    void aServerThatReadsAndClosesIsReported() throws Exception {
        Future<?> rawServer = peers.submit(() -> {
            try (Socket accepted = server.accept(); InputStream in = accepted.getInputStream()) {
                assertEquals(56, in.readNBytes(56).length); // read all, so that closing sends FIN, not RST
            }
            return null;
        });
        ExchangeException e = assertThrows(ExchangeException.class,
                () -> EndpointExchange.connect(serverAddress, clientInfo(), TIMEOUT));
        assertEquals("peer " + serverAddress + " closed the connection after 0 of 56 bytes of its endpoint message"
                + " (is the peer a Panama Verbs endpoint exchange?)", e.getMessage());
        rawServer.get(30, TimeUnit.SECONDS);
    }

    @Test
    void aServerThatClosesAtOnceIsReported() throws Exception {
        Future<?> rawServer = peers.submit(() -> {
            server.accept().close();
            return null;
        });
        ExchangeException e = assertThrows(ExchangeException.class,
                () -> EndpointExchange.connect(serverAddress, clientInfo(), TIMEOUT));
        // Closing with our message unread may reset the connection instead of ending it: both are reported.
        assertTrue(e.getMessage().contains("peer " + serverAddress) && e.getMessage().contains("0 of 56 bytes"),
                e.getMessage());
        rawServer.get(30, TimeUnit.SECONDS);
    }

    @Test
    void aServerAnsweringGarbageIsRefused() throws Exception {
        Future<?> rawServer = peers.submit(() -> {
            try (Socket accepted = server.accept()) {
                accepted.getInputStream().readNBytes(56);
                accepted.getOutputStream().write("SSH-2.0-OpenSSH_9.6\r\n".getBytes(StandardCharsets.US_ASCII));
                accepted.getInputStream().read(); // until the client gives up
            }
            return null;
        });
        ExchangeException e = assertThrows(ExchangeException.class,
                () -> EndpointExchange.connect(serverAddress, clientInfo(), TIMEOUT));
        assertTrue(e.getMessage().startsWith("peer " + serverAddress + " sent a malformed endpoint message: not a"
                + " Panama Verbs endpoint message: magic 0x5353482d ('SSH-')"), e.getMessage());
        rawServer.get(30, TimeUnit.SECONDS);
    }

    @Test
    void connectingWhereNobodyListensFailsQuickly() throws Exception {
        server.close(); // the port was just ours, so nobody else listens there
        long start = System.nanoTime();
        ExchangeException e = assertThrows(ExchangeException.class,
                () -> EndpointExchange.connect(serverAddress, clientInfo(), TIMEOUT));
        assertTrue(elapsedMillis(start) < SLACK_MILLIS, "took " + elapsedMillis(start) + " ms");
        assertInstanceOf(ConnectException.class, e.getCause());
        assertTrue(e.getMessage().startsWith("could not connect to " + serverAddress + ": "), e.getMessage());
        assertTrue(e.getMessage().endsWith("(is the server side running and listening on that port?)"), e.getMessage());
    }

    @Test
    void closingTheServerSocketCancelsAnAccept() throws Exception {
        Future<ExchangeMessage> accepting = peers.submit(() -> EndpointExchange.accept(server, serverInfo(), TIMEOUT));
        Thread.sleep(200); // let it block in accept; if it has not yet, it fails on the closed socket just the same
        long start = System.nanoTime();
        server.close();
        ExchangeException e = failure(accepting);
        assertTrue(elapsedMillis(start) < SLACK_MILLIS, "took " + elapsedMillis(start) + " ms");
        assertTrue(e.getMessage().startsWith("accepting a peer on "), e.getMessage());
    }

    @Test
    void aTimeoutMustBePositive() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EndpointExchange.accept(server, serverInfo(), Duration.ZERO));
        assertEquals("the timeout must be positive, not PT0S: an exchange never waits without a bound", e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> EndpointExchange.connect(serverAddress, clientInfo(), Duration.ofSeconds(-1)));
    }

    private static long elapsedMillis(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    /** Waited about {@code timeout}: not much less (it did wait) and not much more (it did not hang). */
    private static void assertBetween(long startNanos, Duration timeout) {
        long elapsed = elapsedMillis(startNanos);
        assertTrue(elapsed >= timeout.toMillis() - 50 && elapsed < timeout.toMillis() + SLACK_MILLIS,
                "waited " + elapsed + " ms for a timeout of " + timeout.toMillis() + " ms");
    }
}
