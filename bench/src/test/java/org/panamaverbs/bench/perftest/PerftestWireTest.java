package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.panamaverbs.verbs.Gid;

/** The exchange against a peer written by hand: perftest's byte order, and refusals of garbage within seconds. */
class PerftestWireTest {
    static final Duration SHORT = Duration.ofSeconds(3);

    /** A fake server on an ephemeral port that runs {@code script} on the accepted socket. */
    interface Script {
        void run(InputStream in, OutputStream out) throws IOException;
    }

    static int fakeServer(Script script) throws IOException {
        ServerSocket listener = new ServerSocket(0);
        Thread.ofPlatform().daemon().start(() -> {
            try (listener; Socket s = listener.accept()) {
                script.run(s.getInputStream(), s.getOutputStream());
                s.getOutputStream().flush();
                Thread.sleep(5000);
            } catch (IOException | InterruptedException ignored) {
                // the test decides
            }
        });
        return listener.getLocalPort();
    }

    static byte[] version(String v) {
        byte[] b = new byte[16];
        System.arraycopy(v.getBytes(StandardCharsets.US_ASCII), 0, b, 0, v.length());
        return b;
    }

    @Test
    void clientWritesFirstThenReadsAndKeepsPerftestsSizes() throws Exception {
        CompletableFuture<byte[]> seen = new CompletableFuture<>();
        int port = fakeServer((in, out) -> {
            // perftest's server: read the client's message, then answer, for each exchange
            java.io.ByteArrayOutputStream theirs = new java.io.ByteArrayOutputStream();
            theirs.write(in.readNBytes(16));
            out.write(version("6.06"));
            out.flush();
            theirs.write(in.readNBytes(4));
            out.write(new byte[] {0, 0, 0x20, 0}); // 8192
            out.flush();
            theirs.write(in.readNBytes(4));
            out.write(new byte[] {0, 0, 0, 64});
            out.flush();
            theirs.write(in.readNBytes(2));
            out.write(new byte[] {'2', 0});
            seen.complete(theirs.toByteArray());
        });
        try (PerftestWire wire = PerftestWire.connect("127.0.0.1", port, SHORT)) {
            // a client that waited to read first would time out here: the fake server reads first
            assertEquals("6.06", wire.exchangeVersion(SHORT)); // the peer's
            assertEquals(8192, wire.exchangeInt("cycle buffer", 4096, SHORT));
            assertEquals(64, wire.exchangeInt("cache line", 64, SHORT));
            assertEquals(2, wire.exchangeMtu(3, SHORT));
        }
        byte[] sent = seen.get(5, TimeUnit.SECONDS);
        assertEquals(PerftestWire.VERSION, new String(sent, 0, 4, StandardCharsets.US_ASCII));
        assertEquals(0, sent[4]);
        assertEquals(0x1000, ((sent[18] & 0xff) << 8) | (sent[19] & 0xff));
        assertEquals('3', sent[24]);
        assertEquals(0, sent[25]);
    }

    @Test
    void serverReadsFirstThenWrites() throws Exception {
        PeerAddress mine = new PeerAddress(0, 1, 0x22, 0x123, 0x99, 0x1000, Gid.ZERO, 0);
        PeerAddress theirs = serverHandshakeWithARawClient(mine, false, PeerAddressTest.wire(PeerAddressTest.C_RECORD),
                answer -> assertEquals(0x22, PeerAddress.parse(answer).qpn()));
        assertEquals(0xabcdef, theirs.psn());
    }

    /** With {@code --data_validation} every handshake carries 26.04's longer record, the tail markers' address in it. */
    @Test
    void aValidatingServerExchangesTheRecordWithTailMarkers() throws Exception {
        PeerAddress mine = new PeerAddress(0, 1, 0x22, 0x123, 0x99, 0x1000, 0xcc0, Gid.ZERO, 0);
        byte[] record = java.util.Arrays.copyOf(PeerAddressTest.C_RECORD_DV.getBytes(StandardCharsets.US_ASCII),
                PeerAddress.WIRE_SIZE_WITH_TAIL_MARKERS);
        PeerAddress theirs = serverHandshakeWithARawClient(mine, true, record, answer -> {
            assertEquals(PeerAddress.WIRE_SIZE_WITH_TAIL_MARKERS, answer.length);
            assertEquals(0x22, PeerAddress.parse(answer, true).qpn());
            assertEquals(0xcc0, PeerAddress.parse(answer, true).tailMarkers());
        });
        assertEquals(0x7f0000000cc0L, theirs.tailMarkers());
    }

    /**
     * A Java server's handshake (validating or not) against a raw client that writes {@code record} first and hands
     * the server's answer, as long as {@code record}, to {@code check}; the record the server received.
     */
    private static PeerAddress serverHandshakeWithARawClient(PeerAddress mine, boolean validating, byte[] record,
            java.util.function.Consumer<byte[]> check) throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        int listenPort = port;
        CompletableFuture<PeerAddress> got = CompletableFuture.supplyAsync(() -> {
            try (PerftestWire wire = PerftestWire.accept(listenPort, SHORT)) {
                if (validating) {
                    wire.validating();
                }
                return wire.handshake("address record", mine, SHORT);
            }
        });
        Thread.sleep(300);
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(record);
            check.accept(s.getInputStream().readNBytes(record.length));
        }
        return got.get(5, TimeUnit.SECONDS);
    }

    @Test
    void garbageInsteadOfAVersionIsRefusedWithinSeconds() throws Exception {
        int port = fakeServer((in, out) -> out.write("HTTP/1.1 400 Bad\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
        long start = System.nanoTime();
        try (PerftestWire wire = PerftestWire.connect("127.0.0.1", port, SHORT)) {
            PerftestException e = assertThrows(PerftestException.class, () -> wire.exchangeVersion(SHORT));
            assertTrue(e.getMessage().contains("did not send a perftest version"), e.getMessage());
        }
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5));
    }

    @Test
    void anOldPeerIsRefused() throws Exception {
        int port = fakeServer((in, out) -> out.write(version("5.60")));
        try (PerftestWire wire = PerftestWire.connect("127.0.0.1", port, SHORT)) {
            PerftestException e = assertThrows(PerftestException.class, () -> wire.exchangeVersion(SHORT));
            assertTrue(e.getMessage().contains("5.60"), e.getMessage());
        }
    }

    @Test
    void aTruncatedMessageAndASilentPeerEndInErrorsNotHangs() throws Exception {
        int closes = fakeServer((in, out) -> out.write(new byte[] {'6', '.'})); // then closes after 5 s
        try (PerftestWire wire = PerftestWire.connect("127.0.0.1", closes, SHORT)) {
            long start = System.nanoTime();
            PerftestException e = assertThrows(PerftestException.class, () -> wire.exchangeVersion(Duration.ofSeconds(1)));
            assertTrue(e.getMessage().contains("within 1 s"), e.getMessage());
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(3));
        }
        int hangsUp = fakeServer((in, out) -> {
            throw new IOException("hang up");
        });
        try (PerftestWire wire = PerftestWire.connect("127.0.0.1", hangsUp, SHORT)) {
            PerftestException e = assertThrows(PerftestException.class, () -> wire.exchangeVersion(SHORT));
            assertTrue(e.getMessage().contains("closed the connection"), e.getMessage());
        }
    }

    @Test
    void anInvalidMtuOrAddressRecordIsRefused() throws Exception {
        int port = fakeServer((in, out) -> {
            out.write(new byte[] {'9', 0});
            out.write(PeerAddressTest.wire("garbage"));
        });
        try (PerftestWire wire = PerftestWire.connect("127.0.0.1", port, SHORT)) {
            assertThrows(PerftestException.class, () -> wire.exchangeMtu(3, SHORT));
            assertThrows(PerftestException.class, () -> wire.handshake("address record",
                    new PeerAddress(0, 1, 1, 1, 1, 1, Gid.ZERO, 0), SHORT));
        }
    }

    @Test
    void noServerIsOneClearError() {
        PerftestException e = assertThrows(PerftestException.class, () -> PerftestWire.connect("127.0.0.1", 1, SHORT));
        assertTrue(e.getMessage().contains("is the server running"), e.getMessage());
    }
}
