package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.panamaverbs.verbs.AtomicCapability;
import org.panamaverbs.verbs.DeviceAttributes;
import org.panamaverbs.verbs.Gid;

/**
 * The exchange against C perftest peers written by hand, one per release, each in its release's order as its
 * {@code perftest_communication.c} and {@code write_bw.c} run it: version, cycle buffer, cache line, MTU, then (26.01
 * always; 26.04 because this side announces 6.29) the parameter negotiation record, the address records, the closing
 * handshake and, before 23.10, "done". Both directions; then records of the other size, mismatches, truncated and
 * garbage records.
 */
class PerftestDialectTest {
    static final Duration SHORT = Duration.ofSeconds(3);
    static final PeerAddress JAVA_RECORD = new PeerAddress(0, 1, 0x22, 0x123, 0x99, 0x1000, Gid.ZERO, 0);

    /** The releases, as the peer's C code behaves with a peer announcing {@code theirVersion}. */
    enum Release {
        PERFTEST_4_5("6.06", true), PERFTEST_24_01("6.20", false), PERFTEST_25_01("6.24", false),
        PERFTEST_26_01("6.28", false), PERFTEST_26_04("6.29", false);

        final String version;
        final boolean writesDone;

        Release(String version, boolean writesDone) {
            this.version = version;
            this.writesDone = writesDone;
        }

        /** 26.01: {@code negotiate_params} always; 26.04: only when {@code atof(rem_version) >= 6.28}. */
        boolean negotiatesWith(String theirVersion) {
            return switch (this) {
                case PERFTEST_26_01 -> true;
                case PERFTEST_26_04 -> Double.parseDouble(theirVersion) >= 6.28;
                default -> false;
            };
        }
    }

    /**
     * {@code struct perftest_parameters_negotiate} as C perftest fills it in for {@code ib_write_bw -s 4096 -n 200}
     * on a device with {@code max_qp_rd_atom} 128, written from gcc's layout of the struct (x86_64): the fields at
     * their offsets in network order, {@code ibv_device_attr} at 80 in the machine's order.
     */
    static final class CRecord {
        int testMethod;
        int connectionType;
        int verb = 2;
        int tst = 1;
        int reportFmt = 1;
        long size = 4096;
        long iters = 200;
        int numOfQps = 1;
        int duration = 5;
        int dataValidation;
        int maxQpRdAtom = 128;

        byte[] bytes(int recordSize) {
            ByteBuffer b = ByteBuffer.allocate(recordSize);
            b.putInt(0, testMethod).putInt(4, connectionType).putInt(8, verb).putInt(12, tst).putInt(24, reportFmt);
            b.putLong(32, size).putLong(40, iters).putInt(52, numOfQps).putInt(56, duration).putInt(76, dataValidation);
            b.put(80, "20.1.1".getBytes(StandardCharsets.US_ASCII));
            b.order(ByteOrder.nativeOrder()).putInt(80 + 96, 0x02c9).putInt(80 + 144, maxQpRdAtom).put(80 + 227, (byte) 1);
            return b.array();
        }
    }

    /** What the Java side runs in these tests: ib_write_bw -s 4096 -n 200 on a device with max_qp_rd_atom 16. */
    static final ParameterNegotiation.Parameters MINE = new ParameterNegotiation.Parameters(0, 0, 2, 1, 0, 0, 1, 4096,
            200, 0, 1, 5, 0, 0, 0, 0, 0, 16);

    static DeviceAttributes attributes() {
        return new DeviceAttributes("1.0.0", 0x0250_56ff_feb2_668cL, 0x0250_56ff_feb2_668cL, -1, 0xfffff000L, 0, 0, 0,
                1024, 4096, 0x21, 4, 4, 1024, 4096, 4096, 1024, 16, 16, AtomicCapability.NONE, 0, 0, 1024, 0, 0, 0, 1, 1);
    }

    static byte[] version(String v) {
        return Arrays.copyOf(v.getBytes(StandardCharsets.US_ASCII), 16);
    }

    /** What a hand-written C peer received, message by message, and how it ended. */
    record Seen(byte[] version, byte[] negotiation, byte[] afterClose) {
    }

    /** A C server's side up to the MTU (reads first, then writes, every message); returns the client's version. */
    static byte[] serverUpToMtu(String version, InputStream in, OutputStream out) throws IOException {
        byte[] theirVersion = in.readNBytes(16);
        out.write(version(version));
        in.readNBytes(4);
        out.write(new byte[] {0, 0, 0x10, 0});
        in.readNBytes(4);
        out.write(new byte[] {0, 0, 0, 64});
        in.readNBytes(2);
        out.write(new byte[] {'3', 0});
        return theirVersion;
    }

    /** A C server of {@code release}. */
    static Seen cServer(Release release, CRecord record, int recordSize, InputStream in, OutputStream out) throws IOException {
        byte[] theirVersion = serverUpToMtu(release.version, in, out);
        byte[] negotiation = null;
        if (release.negotiatesWith(new String(theirVersion, 0, 4, StandardCharsets.US_ASCII))) {
            negotiation = new byte[recordSize];
            int n = in.read(negotiation); // perftest's ethernet_read_data: one read(2) of its own size
            negotiation = Arrays.copyOf(negotiation, Math.max(n, 0));
            if (n != recordSize) {
                return new Seen(theirVersion, negotiation, null); // "Couldn't read reports": it exits
            }
            out.write(record.bytes(recordSize));
        }
        in.readNBytes(PeerAddress.WIRE_SIZE);
        out.write(PeerAddressTest.wire(PeerAddressTest.C_RECORD));
        in.readNBytes(PeerAddress.WIRE_SIZE); // ctx_close_connection: the closing handshake
        out.write(PeerAddressTest.wire(PeerAddressTest.C_RECORD));
        out.flush();
        return new Seen(theirVersion, negotiation, closing(release, in, out));
    }

    /**
     * The end of ctx_close_connection: before 23.10 "done" and a NUL, then close. Both sides do it at once and neither
     * reads the other's; here what the Java side sent is read to its end first, so that the unread "done" of a 4.5
     * peer cannot reset the connection before the test has seen it.
     */
    static byte[] closing(Release release, InputStream in, OutputStream out) throws IOException {
        byte[] rest = in.readAllBytes();
        if (release.writesDone) {
            try {
                out.write(new byte[] {'d', 'o', 'n', 'e', 0});
            } catch (IOException ignored) {
                // the Java side has closed: nobody reads it, as with perftest
            }
        }
        return rest;
    }

    /** A C client of {@code release}: writes first, then reads, every message. */
    static Seen cClient(Release release, CRecord record, int recordSize, InputStream in, OutputStream out) throws IOException {
        out.write(version(release.version));
        byte[] theirVersion = in.readNBytes(16);
        out.write(new byte[] {0, 0, 0x10, 0});
        in.readNBytes(4);
        out.write(new byte[] {0, 0, 0, 64});
        in.readNBytes(4);
        out.write(new byte[] {'3', 0});
        in.readNBytes(2);
        byte[] negotiation = null;
        if (release.negotiatesWith(new String(theirVersion, 0, 4, StandardCharsets.US_ASCII))) {
            out.write(record.bytes(recordSize));
            negotiation = in.readNBytes(recordSize);
        }
        out.write(PeerAddressTest.wire(PeerAddressTest.C_RECORD));
        in.readNBytes(PeerAddress.WIRE_SIZE);
        out.write(PeerAddressTest.wire(PeerAddressTest.C_RECORD));
        in.readNBytes(PeerAddress.WIRE_SIZE);
        return new Seen(theirVersion, negotiation, closing(release, in, out));
    }

    interface Peer {
        Seen run(InputStream in, OutputStream out) throws IOException;
    }

    /** Runs {@code peer} as the server on an ephemeral port; its result completes when it is done. */
    static int serve(Peer peer, CompletableFuture<Seen> seen) throws IOException {
        ServerSocket listener = new ServerSocket(0);
        Thread.ofPlatform().daemon().start(() -> {
            try (listener; Socket s = listener.accept()) {
                s.setSoTimeout(10_000);
                seen.complete(peer.run(s.getInputStream(), s.getOutputStream()));
            } catch (IOException | RuntimeException e) {
                seen.completeExceptionally(e);
            }
        });
        return listener.getLocalPort();
    }

    /** The Java side's steps, in PerftestSession's order; returns the peer's negotiated parameters (or null). */
    static ParameterNegotiation.Parameters javaSide(PerftestWire wire, Integer recordSize) {
        wire.exchangeVersion(SHORT);
        wire.exchangeInt("cycle buffer", 4096, SHORT);
        wire.exchangeInt("cache line size", 64, SHORT);
        wire.exchangeMtu(3, SHORT);
        ParameterNegotiation.Parameters theirs = wire.negotiate(MINE, attributes(), recordSize, SHORT);
        if (theirs != null) {
            PerftestRelease release = wire.peerRelease();
            ParameterNegotiation.check(MINE, theirs, release.negotiation(), release.describe());
        }
        assertEquals(0x11, wire.handshake("address record", JAVA_RECORD, SHORT).qpn());
        wire.closeConnection(JAVA_RECORD, SHORT);
        return theirs;
    }

    static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        }
    }

    static Socket connectWhenListening(int port) throws InterruptedException {
        for (int attempt = 0; ; attempt++) {
            try {
                Socket s = new Socket("127.0.0.1", port);
                s.setSoTimeout(10_000);
                return s;
            } catch (IOException e) {
                if (attempt == 50) {
                    throw new AssertionError("the Java server never listened", e);
                }
                Thread.sleep(100);
            }
        }
    }

    /** Checks what the C peer saw: this side's version, its negotiation record (or none) and the end of the stream. */
    static void assertPeerSaw(Release release, Seen seen) {
        assertEquals("6.29", new String(seen.version(), 0, 4, StandardCharsets.US_ASCII));
        assertArrayEquals(new byte[12], Arrays.copyOfRange(seen.version(), 4, 16));
        if (release.negotiatesWith("6.29")) {
            assertEquals(ParameterNegotiation.RECORD_SIZE, seen.negotiation().length);
            ByteBuffer b = ByteBuffer.wrap(seen.negotiation());
            assertEquals(2, b.getInt(8), "verb WRITE");
            assertEquals(1, b.getInt(12), "tst BW");
            assertEquals(4096, b.getLong(32), "size");
            assertEquals(200, b.getLong(40), "iters");
            assertEquals(5, b.getInt(56), "duration");
            assertEquals(16, b.order(ByteOrder.nativeOrder()).getInt(80 + 144), "max_qp_rd_atom");
        } else {
            assertNull(seen.negotiation());
        }
        // after its last handshake the Java side closes; it writes "done" only to a release that does so itself
        assertArrayEquals(release.writesDone ? new byte[] {'d', 'o', 'n', 'e', 0} : new byte[0], seen.afterClose());
    }

    @ParameterizedTest
    @EnumSource(Release.class)
    void javaClientAgainstEachReleasesServer(Release release) throws Exception {
        CompletableFuture<Seen> seen = new CompletableFuture<>();
        int port = serve((in, out) -> cServer(release, new CRecord(), ParameterNegotiation.RECORD_SIZE, in, out), seen);
        ParameterNegotiation.Parameters theirs;
        try (PerftestWire wire = PerftestWire.connect("127.0.0.1", port, SHORT)) {
            theirs = javaSide(wire, null);
            assertEquals(release.version, wire.peerRelease().version());
        }
        assertPeerSaw(release, seen.get(10, TimeUnit.SECONDS));
        if (release.negotiatesWith("6.29")) {
            assertEquals(128, theirs.maxQpRdAtom());
            assertEquals(4096, theirs.size());
        } else {
            assertNull(theirs);
        }
    }

    /** What a Java server and a hand-written C client saw of each other. */
    record ServerRun(Seen seen, ParameterNegotiation.Parameters theirs) {
    }

    /** A Java server against {@code release}'s client, whose negotiation record (if any) is {@code recordSize} bytes. */
    static ServerRun javaServerAgainst(Release release, int recordSize) throws Exception {
        int port = freePort();
        CompletableFuture<ParameterNegotiation.Parameters> java = CompletableFuture.supplyAsync(() -> {
            try (PerftestWire wire = PerftestWire.accept(port, SHORT)) {
                return javaSide(wire, null);
            }
        });
        Seen seen;
        try (Socket s = connectWhenListening(port)) {
            seen = cClient(release, new CRecord(), recordSize, s.getInputStream(), s.getOutputStream());
        }
        return new ServerRun(seen, java.get(10, TimeUnit.SECONDS));
    }

    @ParameterizedTest
    @EnumSource(Release.class)
    void eachReleasesClientAgainstJavaServer(Release release) throws Exception {
        ServerRun run = javaServerAgainst(release, ParameterNegotiation.RECORD_SIZE);
        assertPeerSaw(release, run.seen());
        if (release.negotiatesWith("6.29")) {
            assertEquals(128, run.theirs().maxQpRdAtom());
        } else {
            assertNull(run.theirs());
        }
    }

    /** A perftest built without mlx5 direct verbs sends 312 bytes: the Java server answers with 312. */
    @Test
    void aServerAnswersA312ByteRecordWith312Bytes() throws Exception {
        ServerRun run = javaServerAgainst(Release.PERFTEST_26_01, ParameterNegotiation.RECORD_SIZE_WITHOUT_MLX5DV);
        assertEquals(ParameterNegotiation.RECORD_SIZE_WITHOUT_MLX5DV, run.seen().negotiation().length);
        assertEquals(4096, run.theirs().size());
        assertArrayEquals(new byte[0], run.seen().afterClose()); // the next message (the address record) was in step
    }

    /** The client must guess the server's build: a wrong guess either way is one line naming the fix. */
    @Test
    void aClientOfTheWrongRecordSizeSaysWhichToUse() throws Exception {
        // a 312-byte server takes the first 312 bytes of a 320-byte record and answers with 312
        CompletableFuture<Seen> seen = new CompletableFuture<>();
        int port = serve((in, out) -> cServer(Release.PERFTEST_26_04, new CRecord(),
                ParameterNegotiation.RECORD_SIZE_WITHOUT_MLX5DV, in, out), seen);
        try (PerftestWire wire = PerftestWire.connect("127.0.0.1", port, SHORT)) {
            PerftestException e = assertThrows(PerftestException.class, () -> javaSide(wire, null));
            assertTrue(e.getMessage().contains("perftest 26.04 (version 6.29)")
                    && e.getMessage().contains("--negotiation-size 312"), e.getMessage());
        }
        // a 320-byte server fails its read of 312 bytes and exits
        CompletableFuture<Seen> exits = new CompletableFuture<>();
        port = serve((in, out) -> cServer(Release.PERFTEST_26_01, new CRecord(), ParameterNegotiation.RECORD_SIZE, in, out),
                exits);
        try (PerftestWire wire = PerftestWire.connect("127.0.0.1", port, SHORT)) {
            PerftestException e = assertThrows(PerftestException.class,
                    () -> javaSide(wire, ParameterNegotiation.RECORD_SIZE_WITHOUT_MLX5DV));
            assertTrue(e.getMessage().contains("perftest 26.01 (version 6.28) closed the connection")
                    && e.getMessage().contains("without --negotiation-size"), e.getMessage());
        }
    }

    /** What the peer runs differently is named with the release and the flag, as perftest refuses it too. */
    @Test
    void aDifferentTestOrAFeatureTheJavaToolsLackIsRefusedByName() throws Exception {
        CRecord other = new CRecord();
        other.size = 65536;
        PerftestException e = negotiationFails(other);
        assertTrue(e.getMessage().startsWith("perftest 26.04 (version 6.29) runs size=65536 and this side 4096")
                && e.getMessage().contains("-s"), e.getMessage());

        CRecord validating = new CRecord();
        validating.dataValidation = 1;
        e = negotiationFails(validating);
        assertTrue(e.getMessage().contains("data_validation=ON") && e.getMessage().contains("--data_validation on one side"
                + " only"), e.getMessage());

        CRecord latency = new CRecord();
        latency.tst = 0;
        e = negotiationFails(latency);
        assertTrue(e.getMessage().contains("tst=LAT and this side BW"), e.getMessage());
    }

    private static PerftestException negotiationFails(CRecord theirs) throws Exception {
        CompletableFuture<Seen> seen = new CompletableFuture<>();
        int port = serve((in, out) -> cServer(Release.PERFTEST_26_04, theirs, ParameterNegotiation.RECORD_SIZE, in, out), seen);
        try (PerftestWire wire = PerftestWire.connect("127.0.0.1", port, SHORT)) {
            return assertThrows(PerftestException.class, () -> javaSide(wire, null));
        }
    }

    /** A server that answers the version as 26.01 does, then sends {@code record} as its negotiation and waits. */
    static int negotiatingServer(byte[] record, boolean thenClose) throws IOException {
        ServerSocket listener = new ServerSocket(0);
        Thread.ofPlatform().daemon().start(() -> {
            try (listener; Socket s = listener.accept()) {
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream();
                serverUpToMtu("6.28", in, out);
                in.readNBytes(ParameterNegotiation.RECORD_SIZE);
                out.write(record);
                out.flush();
                if (!thenClose) {
                    Thread.sleep(8000);
                }
            } catch (IOException | InterruptedException ignored) {
                // the test decides
            }
        });
        return listener.getLocalPort();
    }

    static PerftestException negotiateWithin(int port, Duration timeout, long seconds) {
        long start = System.nanoTime();
        try (PerftestWire wire = PerftestWire.connect("127.0.0.1", port, SHORT)) {
            wire.exchangeVersion(SHORT);
            wire.exchangeInt("cycle buffer", 4096, SHORT);
            wire.exchangeInt("cache line size", 64, SHORT);
            wire.exchangeMtu(3, SHORT);
            PerftestException e = assertThrows(PerftestException.class,
                    () -> wire.negotiate(MINE, attributes(), null, timeout));
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(seconds), "took too long: " + e.getMessage());
            return e;
        }
    }

    @Test
    void truncatedAndGarbageRecordsAreRefusedWithinSeconds() throws Exception {
        byte[] part = Arrays.copyOf(new CRecord().bytes(ParameterNegotiation.RECORD_SIZE), 100);
        PerftestException closed = negotiateWithin(negotiatingServer(part, true), SHORT, 5);
        assertTrue(closed.getMessage().contains("perftest 26.01 (version 6.28) closed the connection after 100 bytes of"
                + " the parameter negotiation record"), closed.getMessage());

        PerftestException silent = negotiateWithin(negotiatingServer(part, false), Duration.ofSeconds(1), 4);
        assertTrue(silent.getMessage().contains("sent only 100 of the 312 bytes of the parameter negotiation record"
                + " within 1 s"), silent.getMessage());

        byte[] garbage = new byte[ParameterNegotiation.RECORD_SIZE];
        Arrays.fill(garbage, (byte) 'A');
        PerftestException malformed = negotiateWithin(negotiatingServer(garbage, false), SHORT, 5);
        assertTrue(malformed.getMessage().contains("the parameter negotiation record of perftest 26.01 (version 6.28) is"
                + " malformed (test_method is 1094795585"), malformed.getMessage());

        byte[] longer = Arrays.copyOf(new CRecord().bytes(ParameterNegotiation.RECORD_SIZE), 328);
        PerftestException tooLong = negotiateWithin(negotiatingServer(longer, false), SHORT, 5);
        assertTrue(tooLong.getMessage().contains("sent more than 320 bytes"), tooLong.getMessage());
    }

    /** A peer that sends nothing where 26.01 negotiates is a timeout naming the release, not a hang. */
    @Test
    void aSilentPeerOfANegotiatingReleaseIsNamed() throws Exception {
        PerftestException e = negotiateWithin(negotiatingServer(new byte[0], false), Duration.ofSeconds(1), 4);
        assertTrue(e.getMessage().contains("running perftest 26.01 (version 6.28) sent no parameter negotiation record"
                + " within 1 s"), e.getMessage());
    }

    @Test
    void releasesAreNamedAndTheirDialectsKnown() {
        assertEquals("perftest 4.5-0.17 (version 6.06)", PerftestRelease.of("6.06").describe());
        assertEquals("perftest 25.01 (version 6.24)", PerftestRelease.of("6.24").describe());
        assertEquals("perftest version 6.31 (newer than 26.04, the newest release these tools know)",
                PerftestRelease.of("6.31").describe());
        assertNull(PerftestRelease.of("GET /"));
        assertTrue(PerftestRelease.of("5.60").isTooOld());
        assertTrue(PerftestRelease.of("6.16").writesDone());
        assertTrue(!PerftestRelease.of("6.17").writesDone());
        assertNull(PerftestRelease.of("6.27").negotiation());
        assertEquals(ParameterNegotiation.Layout.PERFTEST_26_01, PerftestRelease.of("6.28").negotiation());
        assertEquals(ParameterNegotiation.Layout.PERFTEST_26_04, PerftestRelease.of("6.29").negotiation());
        assertEquals(ParameterNegotiation.Layout.PERFTEST_26_04, PerftestRelease.of("6.31").negotiation());
        assertTrue(!PerftestRelease.of("6.28").hasTailMarkers() && PerftestRelease.of("6.29").hasTailMarkers());
        assertEquals(PerftestRelease.NEWEST_KNOWN_VERSION, PerftestWire.VERSION);
    }

    /** The record this side sends, byte for byte at gcc's offsets; and the peer's max_qp_rd_atom lowers the reads. */
    @Test
    void theRecordIsPerftestsStructAndTheReadsComeDownToThePeers() {
        ParameterNegotiation.Parameters read = new ParameterNegotiation.Parameters(1, 2, 4, 0, 0, 1, 0, 1024, 0, 0, 3, 7,
                1, 0, 0, 0, 0, 16);
        byte[] b26 = ParameterNegotiation.encode(read, attributes(), ParameterNegotiation.Layout.PERFTEST_26_04,
                ParameterNegotiation.RECORD_SIZE);
        assertEquals(320, b26.length);
        ByteBuffer b = ByteBuffer.wrap(b26);
        assertEquals(1, b.getInt(0));
        assertEquals(2, b.getInt(4));
        assertEquals(4, b.getInt(8));
        assertEquals(1, b.getInt(20));
        assertEquals(0, b.getInt(28), "padding");
        assertEquals(1024, b.getLong(32));
        assertEquals(3, b.getInt(52));
        assertEquals(7, b.getInt(56));
        assertEquals(1, b.getInt(60));
        assertEquals("1.0.0", new String(b26, 80, 5, StandardCharsets.US_ASCII));
        assertEquals(0, b26[85]);
        assertArrayEquals(new byte[] {2, 0x50, 0x56, (byte) 0xff, (byte) 0xfe, (byte) 0xb2, 0x66, (byte) 0x8c},
                Arrays.copyOfRange(b26, 144, 152), "node_guid in network order");
        ByteBuffer attr = ByteBuffer.wrap(b26).order(ByteOrder.nativeOrder());
        assertEquals(1024, attr.getInt(80 + 108), "max_qp");
        assertEquals(16, attr.getInt(80 + 144), "max_qp_rd_atom");
        assertEquals(1, b26[80 + 227], "phys_port_cnt");
        assertEquals(0, b.getLong(312), "mlx5dv_comp_mask");
        assertEquals(312, ParameterNegotiation.encode(read, attributes(), ParameterNegotiation.Layout.PERFTEST_26_01,
                ParameterNegotiation.RECORD_SIZE_WITHOUT_MLX5DV).length);
        assertEquals(read, ParameterNegotiation.decode(b26, ParameterNegotiation.Layout.PERFTEST_26_04, "a peer"));

        CRecord fewer = new CRecord();
        fewer.maxQpRdAtom = 4;
        ParameterNegotiation.Parameters theirs = ParameterNegotiation.decode(fewer.bytes(312),
                ParameterNegotiation.Layout.PERFTEST_26_01, "a peer");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        assertEquals(4, ParameterNegotiation.outstandingReads(16, theirs, new java.io.PrintStream(printed, true)));
        assertEquals(" out_reads is greater than remote max_qp_rd_atom, using remote max_qp_rd_atom\n", printed.toString());
        assertEquals(1, ParameterNegotiation.outstandingReads(1, theirs, System.out));
    }
}
