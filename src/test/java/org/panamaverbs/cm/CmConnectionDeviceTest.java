package org.panamaverbs.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.AddressHandle;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.DeviceUnderTest;
import org.panamaverbs.verbs.Grh;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QpType;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.VerbsException;
import org.panamaverbs.verbs.WcOpcode;
import org.panamaverbs.verbs.WcStatus;
import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.WrOpcode;

/**
 * rdma_cm between two processes on the real device: this JVM and a {@link CmPeer} JVM, over the device's
 * IP address ({@code RDMA_TEST_ADDRESS}, which the Soft-RoCE guest sets).
 * Bytes, immediates, private data and statuses are compared; faults end within stated bounds.
 */
@Tag("rdma-device")
class CmConnectionDeviceTest {
    static final Duration TIMEOUT = Duration.ofSeconds(60);
    static InetAddress address;

    @BeforeAll
    static void findAddress() throws IOException {
        address = DeviceUnderTest.requireAddress("rdma_cm tests");
    }

    /** A {@link CmPeer} in its own JVM, with its stdout lines queued for the test. */
    static final class Peer implements AutoCloseable {
        final Process process;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final List<String> all = new ArrayList<>();

        Peer(String... args) throws IOException {
            this(List.of(), args);
        }

        Peer(List<String> jvmOptions, String... args) throws IOException {
            String java = ProcessHandle.current().info().command().orElse("java");
            // the guest's tiers put the jars of the peers' AOT cache first (scripts/lib/aot-cache.sh)
            String classPath = System.getProperty("panamaverbs.test.peerClassPathPrefix", "")
                    + System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
            List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED"));
            // C1 only, or what the guest's tiers set (interpreted): a JVM that lives seconds gains nothing from C2
            command.addAll(List.of(System.getProperty("panamaverbs.test.peerJvmOptions",
                    "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC").trim().split(" +")));
            command.addAll(jvmOptions);
            command.addAll(List.of("-cp", classPath, CmPeer.class.getName()));
            command.addAll(Arrays.asList(args));
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
            Thread.ofVirtual().start(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = in.readLine()) != null; ) {
                        synchronized (all) {
                            all.add(line);
                        }
                        lines.add(line);
                    }
                } catch (IOException ignored) {
                    // the process ended
                }
            });
        }

        /** The first line starting with {@code prefix} (earlier lines are skipped); fails after {@code timeout}. */
        String expect(String prefix, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new AssertionError("the peer did not print '" + prefix + "' within " + timeout + "; it printed: " + output());
                }
                if (line.startsWith(prefix)) {
                    return line.substring(prefix.length()).trim();
                }
            }
        }

        int port() throws InterruptedException {
            return Integer.parseInt(expect("LISTENING ", TIMEOUT));
        }

        int exit() throws InterruptedException {
            assertTrue(process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS), "the peer did not exit: " + output());
            return process.exitValue();
        }

        String output() {
            synchronized (all) {
                return String.join("\n", all);
            }
        }

        @Override
        public void close() throws InterruptedException {
            if (process.isAlive()) {
                process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void rcConnectionCarriesPrivateDataSendWriteWithImmediateAndRead() throws Exception {
        try (Peer server = new Peer("rc-server", address.getHostAddress())) {
            int port = server.port();
            MemoryRegion[] local = new MemoryRegion[1];
            try (SendChain sends = SendChain.allocate(1, 1); RecvChain recvs = RecvChain.allocate(2, 1)) {
                ConnectionOptions options = ConnectionOptions.builder().privateData(CmPeer.CLIENT_HELLO).prepare(c -> {
                    local[0] = c.protectionDomain().allocateAndRegister(CmPeer.REGION, Access.LOCAL_WRITE);
                    recvs.get(0).wrId(50).sge(local[0], 1024, 512);
                    recvs.get(1).wrId(51).sge(local[0], 1536, 512);
                    c.queuePair().postRecvOrThrow(recvs, 2);
                }).build();
                try (Connection c = Connection.connect(new InetSocketAddress(address, port), options, TIMEOUT)) {
                    assertArrayEquals(CmPeer.SERVER_HELLO, c.peerPrivateData());
                    assertEquals("hello from the client", server.expect("PEER-DATA ", TIMEOUT));
                    RemoteRegion remote = c.remoteRegion();
                    assertNotNull(remote, "the server offered its region");
                    assertEquals(CmPeer.REGION, remote.length());
                    assertEquals(QueuePair.class, c.queuePair().getClass());
                    assertEquals("rdma_cm id " + c.id(), c.queuePair().heldBy());
                    MemoryRegion mr = local[0];
                    QueuePair qp = c.queuePair();

                    // SEND, echoed back byte for byte
                    CmPeer.fill(mr, 0, 300, CmPeer.SEND_SEED);
                    sends.get(0).wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(mr, 0, 300);
                    qp.postSendOrThrow(sends, 1);
                    List<CmPeer.Done> done = CmPeer.poll(c.completionQueue(), 2, TIMEOUT);
                    assertEquals(2, done.size(), "send completion and the echo: " + done);
                    CmPeer.Done echo = done.stream().filter(d -> d.opcode() == WcOpcode.RECV).findFirst().orElseThrow();
                    assertEquals(WcStatus.SUCCESS, echo.status());
                    assertEquals(300, echo.byteLength());
                    assertArrayEquals(CmPeer.bytes(mr, 0, 300), CmPeer.bytes(mr, 1024, 300));
                    assertEquals("SUCCESS RECV 300", server.expect("RECV ", TIMEOUT));

                    // RDMA WRITE and WRITE_WITH_IMM into the offered region
                    CmPeer.fill(mr, 0, 128, CmPeer.WRITE_SEED);
                    sends.get(0).wrId(2).opcode(WrOpcode.RDMA_WRITE).flags(0).sge(mr, 0, 128).remote(remote.address(), remote.rkey());
                    qp.postSendOrThrow(sends, 1);
                    CmPeer.fill(mr, 512, 64, CmPeer.WRITE_IMM_SEED);
                    sends.get(0).wrId(3).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).flags(SendFlags.SIGNALED)
                            .immediateData(CmPeer.IMMEDIATE).sge(mr, 512, 64).remote(remote.address() + 512, remote.rkey());
                    qp.postSendOrThrow(sends, 1);
                    done = CmPeer.poll(c.completionQueue(), 2, TIMEOUT);
                    assertEquals(2, done.size(), "WRITE_WITH_IMM completion and the server's report: " + done);
                    assertTrue(done.stream().allMatch(d -> d.status() == WcStatus.SUCCESS), done.toString());
                    CmPeer.Done report = done.stream().filter(d -> d.opcode() == WcOpcode.RECV).findFirst().orElseThrow();
                    String expected = "SUCCESS RECV_RDMA_WITH_IMM imm=0xc0ffee write=ok with-imm=ok";
                    assertEquals(expected, new String(CmPeer.bytes(mr, 1536, report.byteLength()), StandardCharsets.US_ASCII));
                    assertEquals(expected, server.expect("WRITES ", TIMEOUT));

                    // RDMA READ of what the server prepared
                    sends.get(0).wrId(4).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED).sge(mr, 2048, 256)
                            .remote(remote.address() + 2048, remote.rkey());
                    qp.postSendOrThrow(sends, 1);
                    CmPeer.Done read = CmPeer.pollOne(c.completionQueue());
                    assertEquals(WcStatus.SUCCESS, read.status());
                    assertEquals(WcOpcode.RDMA_READ, read.opcode());
                    assertTrue(CmPeer.holds(mr, 2048, 256, CmPeer.READ_SEED), "the READ brought the server's bytes");

                    c.id().disconnect();
                    assertTrue(c.awaitDisconnected(TIMEOUT), "this side's own DISCONNECTED arrived");
                }
                // the server saw the disconnect too, and exits 0
                assertEquals("", server.expect("DISCONNECTED", TIMEOUT));
                assertEquals(0, server.exit(), server.output());
            }
        }
    }

    @Test
    void udOverRdmaCmResolvesThePeerAndCarriesDatagramsBothWays() throws Exception {
        try (Peer server = new Peer("ud-server", address.getHostAddress())) {
            int port = server.port();
            MemoryRegion[] local = new MemoryRegion[1];
            int capacity = Grh.SIZE + 1024;
            try (SendChain sends = SendChain.allocate(1, 1); RecvChain recvs = RecvChain.allocate(1, 1)) {
                ConnectionOptions options = ConnectionOptions.builder().portSpace(PortSpace.UDP).prepare(c -> {
                    local[0] = c.protectionDomain().allocateAndRegister(2L * capacity, Access.LOCAL_WRITE);
                    recvs.get(0).wrId(9).sge(local[0], capacity, capacity);
                    c.queuePair().postRecvOrThrow(recvs, 1);
                    // the QPN exists only now: the server checks the datagram's source against it
                    c.sendPrivateData(Integer.toString(c.queuePair().qpNumber()).getBytes(StandardCharsets.US_ASCII));
                }).build();
                try (Connection c = Connection.connect(new InetSocketAddress(address, port), options, TIMEOUT)) {
                    UdPeer peer = c.udPeer();
                    assertNotNull(peer, "ESTABLISHED carried the server's address vector, QPN and Q_Key");
                    assertEquals(0x01234567, peer.qkey(), "rdma_cm's RDMA_UDP_QKEY");
                    assertArrayEquals(CmPeer.SERVER_HELLO, Arrays.copyOf(c.peerPrivateData(), CmPeer.SERVER_HELLO.length));
                    MemoryRegion mr = local[0];
                    CmPeer.fill(mr, 0, 200, CmPeer.DATAGRAM_SEED);
                    try (AddressHandle ah = c.protectionDomain().createAddressHandle(peer.target())) {
                        sends.get(0).wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(mr, 0, 200)
                                .ud(ah, peer.qpNumber(), peer.qkey());
                        c.queuePair().postSendOrThrow(sends, 1);
                        List<CmPeer.Done> done = CmPeer.poll(c.completionQueue(), 2, TIMEOUT);
                        assertEquals(2, done.size(), "send completion and the reply: " + done + "\n" + server.output());
                        CmPeer.Done reply = done.stream().filter(d -> d.opcode() == WcOpcode.RECV).findFirst().orElseThrow();
                        assertEquals(WcStatus.SUCCESS, reply.status());
                        assertEquals(Grh.SIZE + 200, reply.byteLength());
                        assertEquals(peer.qpNumber(), reply.sourceQp());
                        byte[] sent = CmPeer.bytes(mr, 0, 200);
                        byte[] back = CmPeer.bytes(mr, capacity + Grh.SIZE, 200);
                        for (int i = 0; i < 200; i++) {
                            assertEquals(sent[i], back[199 - i], "byte " + i + " came back reversed");
                        }
                    }
                }
                assertEquals("SUCCESS 200 from-qp-matches=true bytes=ok", server.expect("DATAGRAM ", TIMEOUT));
                assertEquals(0, server.exit(), server.output());
            }
        }
    }

    /**
     * Runs {@code failing} twice, asserting on both what it threw, and that the second run ended within {@code bound}:
     * the first pays the JVM's first rdma_cm and verbs calls (17 s for the first event channel alone in a cold JVM in
     * the emulated guest), so the bound is on the failure's own path.
     */
    private static <T extends Throwable> void failsPromptly(Class<T> type, Executable failing, Consumer<T> check,
            Duration bound) {
        check.accept(assertThrows(type, failing));
        long start = System.nanoTime();
        T e = assertThrows(type, failing);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        check.accept(e);
        assertTrue(took.compareTo(bound) < 0, "took " + took + ": " + e.getMessage());
    }

    @Test
    void nothingListeningIsRejectedAtOnce() {
        // a port nobody listens on: bind one and close it
        int port;
        try (RdmaServer probe = RdmaServer.listen(new InetSocketAddress(address, 0), ConnectionOptions.defaults(), 1)) {
            port = probe.localAddress().getPort();
        }
        failsPromptly(CmException.class,
                () -> Connection.connect(new InetSocketAddress(address, port), ConnectionOptions.defaults(), TIMEOUT),
                e -> {
                    assertEquals(CmEventType.REJECTED, e.event());
                    assertEquals(CmId.REJECT_INVALID_SERVICE_ID, e.status());
                    assertEquals("ECONNREFUSED", e.errnoName());
                    assertTrue(e.getMessage().contains("nothing is listening"), e.getMessage());
                }, Duration.ofSeconds(20));
    }

    @Test
    void anAddressNoRdmaDeviceReachesFailsResolution() throws Exception {
        // TEST-NET-1 (RFC 5737): no route from the guest's RDMA netdev, so resolution fails without traffic
        InetSocketAddress nowhere = new InetSocketAddress(InetAddress.getByName("192.0.2.1"), 7471);
        failsPromptly(VerbsException.class,
                () -> Connection.connect(nowhere, ConnectionOptions.defaults(), Duration.ofSeconds(10)),
                e -> {
                    assertEquals("rdma_resolve_addr", e.verb(), e.getMessage());
                    assertTrue(List.of("ENETUNREACH", "EHOSTUNREACH", "EADDRNOTAVAIL", "ETIMEDOUT", "ENODEV")
                            .contains(e.errnoName()), e.getMessage());
                }, Duration.ofSeconds(20));
    }

    @Test
    void aRejectionCarriesTheServersPrivateData() throws Exception {
        try (Peer server = new Peer("reject-server", address.getHostAddress())) {
            int port = server.port();
            CmException e = assertThrows(CmException.class,
                    () -> Connection.connect(new InetSocketAddress(address, port), ConnectionOptions.defaults(), TIMEOUT));
            assertEquals(CmEventType.REJECTED, e.event());
            assertEquals(CmId.REJECT_CONSUMER, e.status());
            assertArrayEquals(CmPeer.REJECTION, Arrays.copyOf(e.privateData(), CmPeer.REJECTION.length));
            assertTrue(e.getMessage().contains("the peer rejected the connection"), e.getMessage());
            assertEquals("", server.expect("REJECTED", TIMEOUT));
            assertEquals(0, server.exit(), server.output());
        }
    }

    @Test
    void aKilledServerBecomesADisconnectOrErrorCompletionsInBoundedTime() throws Exception {
        try (Peer server = new Peer("stream-server", address.getHostAddress())) {
            int port = server.port();
            MemoryRegion[] local = new MemoryRegion[1];
            ConnectionOptions options = ConnectionOptions.builder().parameters(ConnParam.defaults().withRetries(3, 3))
                    .prepare(c -> local[0] = c.protectionDomain().allocateAndRegister(256, Access.LOCAL_WRITE)).build();
            try (Connection c = Connection.connect(new InetSocketAddress(address, port), options, TIMEOUT);
                    SendChain sends = SendChain.allocate(1, 1); CompletionArray wcs = CompletionArray.allocate(16)) {
                sends.get(0).wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(local[0], 0, 256);
                int outstanding = 0;
                boolean killed = false;
                long killedAt = 0;
                WcStatus failure = null;
                while (true) {
                    if (outstanding < 8 && failure == null && c.queuePair().postSend(sends, 1) == 0) {
                        outstanding++;
                    }
                    int n = c.completionQueue().poll(wcs);
                    for (int i = 0; i < n; i++, outstanding--) {
                        if (wcs.get(i).status() != WcStatus.SUCCESS && failure == null) {
                            failure = wcs.get(i).status();
                        }
                    }
                    if (!killed) {
                        server.expect("STREAMING", TIMEOUT);
                        server.process.destroyForcibly(); // SIGKILL, mid-stream
                        killed = true;
                        killedAt = System.nanoTime();
                    }
                    if (failure != null || c.isPeerDisconnected()) {
                        break;
                    }
                    assertTrue(System.nanoTime() - killedAt < TimeUnit.SECONDS.toNanos(60),
                            "no disconnect and no error completion within 60 s of killing the server");
                }
                Duration noticed = Duration.ofNanos(System.nanoTime() - killedAt);
                System.out.println("cm: server killed; client saw " + (failure != null ? "completion status " + failure
                        : "RDMA_CM_EVENT_DISCONNECTED") + " after " + noticed.toMillis() + " ms");
                // REM_OP_ERR: the request reached the dying server's QP after the kernel moved it to ERR and
                // it answered with a NAK (seen once on rxe, 2026-11-24)
                assertTrue(failure == null || failure == WcStatus.RETRY_EXC_ERR || failure == WcStatus.WR_FLUSH_ERR
                        || failure == WcStatus.RNR_RETRY_EXC_ERR || failure == WcStatus.REM_OP_ERR, "status " + failure);
            }
        }
    }

    @Test
    void aKilledClientReleasesTheServersConnection() throws Exception {
        try (RdmaServer server = RdmaServer.listen(new InetSocketAddress(address, 0), ConnectionOptions.defaults(), 4);
                Peer client = new Peer("rc-client", address.getHostAddress(), Integer.toString(server.localAddress().getPort()))) {
            Connection c = server.accept(TIMEOUT);
            assertNotNull(c, "the client connected: " + client.output());
            assertArrayEquals(CmPeer.CLIENT_HELLO, c.peerPrivateData());
            client.expect("CONNECTED", TIMEOUT);
            client.process.destroyForcibly();
            long killedAt = System.nanoTime();
            assertTrue(c.awaitDisconnected(TIMEOUT), "the server saw the killed client's disconnect");
            System.out.println("cm: client killed; server saw RDMA_CM_EVENT_DISCONNECTED after "
                    + Duration.ofNanos(System.nanoTime() - killedAt).toMillis() + " ms");
            c.close();
            assertTrue(c.id().isClosed());
            assertTrue(c.queuePair().isClosed());
            assertTrue(c.protectionDomain().isClosed());
        }
    }

    @Test
    void aRequestItsClientWithdrewFailsItsAcceptClearlyAndTheServerSkipsIt() throws Exception {
        try (RdmaServer server = RdmaServer.listen(new InetSocketAddress(address, 0), ConnectionOptions.defaults(), 4);
                Peer client = new Peer("withdrawing-client", address.getHostAddress(),
                        Integer.toString(server.localAddress().getPort()))) {
            client.expect("WITHDRAWN 1", TIMEOUT);
            // the client's reject reaches this side's kernel in milliseconds on the device; no event reports it
            Thread.sleep(1000);
            CmEvent request = server.listeningId().awaitConnectionRequest(TIMEOUT);
            assertNotNull(request, "the first request is still queued: " + client.output());
            CmId id = request.id();
            try (ProtectionDomain pd = id.context().allocateProtectionDomain();
                    CompletionQueue cq = id.context().createCompletionQueue(16)) {
                CmException e = assertThrows(CmException.class,
                        () -> id.createQueuePair(pd, QpConfig.builder(cq).type(QpType.RC).build()));
                assertTrue(e.requestWithdrawn(), e.toString());
                assertEquals("EINVAL", e.errnoName());
                assertTrue(e.getMessage().contains("withdrew it") && e.getMessage().contains("rdma_create_qp"), e.getMessage());
                System.out.println("cm: a withdrawn request's accept: " + e.getMessage());
                id.close();
            }
            client.expect("WITHDRAWN 2", TIMEOUT);
            Thread.sleep(1000);
            // the second withdrawn request is skipped; the third, which its client keeps, is accepted
            Connection c = server.accept(TIMEOUT);
            assertNotNull(c, "the third request was accepted: " + client.output());
            assertArrayEquals(CmPeer.CLIENT_HELLO, c.peerPrivateData());
            client.expect("CONNECTED", TIMEOUT);
        }
    }

    @Test
    void manySequentialAndConcurrentConnections() throws Exception {
        int sequential = Integer.getInteger("panamaverbs.cm.cycles", 200);
        int concurrent = 32;
        try (Peer server = new Peer("loop-server", address.getHostAddress(), Integer.toString(sequential + concurrent))) {
            InetSocketAddress target = new InetSocketAddress(address, server.port());
            long start = System.nanoTime();
            for (int i = 0; i < sequential; i++) {
                cycle(target, "cycle-" + i);
            }
            long sequentialMillis = Duration.ofNanos(System.nanoTime() - start).toMillis();
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
            List<Connection> open = new java.util.concurrent.CopyOnWriteArrayList<>();
            for (int i = 0; i < concurrent; i++) {
                String tag = "concurrent-" + i;
                threads.add(Thread.ofVirtual().start(() -> {
                    try {
                        open.add(cycleKeepOpen(target, tag));
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join(TIMEOUT);
            }
            assertEquals(List.of(), failures);
            assertEquals(concurrent, open.size(), "all connections open at once");
            for (Connection c : open) {
                c.close();
            }
            String served = server.expect("SERVED ", TIMEOUT);
            assertEquals("" + (sequential + concurrent) + " FAILED 0", served,
                    () -> server.output().lines().filter(l -> l.startsWith("HANDLER-FAILED")).toList().toString());
            assertEquals(0, server.exit(), server.output());
            System.out.println("cm: " + sequential + " sequential connect/transfer/disconnect cycles in " + sequentialMillis
                    + " ms, then " + concurrent + " concurrent connections");
        }
    }

    private static void cycle(InetSocketAddress target, String tag) {
        cycleKeepOpen(target, tag).close();
    }

    /** Connects with {@code tag} as private data, SENDs it, and checks the server's echo of it. */
    private static Connection cycleKeepOpen(InetSocketAddress target, String tag) {
        byte[] data = tag.getBytes(StandardCharsets.US_ASCII);
        MemoryRegion[] buffer = new MemoryRegion[1];
        ConnectionOptions options = ConnectionOptions.builder()
                .capabilities(QpCapabilities.of(4, 4)).privateData(data).prepare(c -> {
            buffer[0] = c.protectionDomain().allocateAndRegister(512, Access.LOCAL_WRITE);
            try (RecvChain recvs = RecvChain.allocate(1, 1)) {
                recvs.get(0).wrId(2).sge(buffer[0], 256, 256);
                c.queuePair().postRecvOrThrow(recvs, 1);
            }
        }).build();
        Connection c = Connection.connect(target, options, TIMEOUT);
        try (SendChain sends = SendChain.allocate(1, 1)) {
            buffer[0].segment().copyFrom(java.lang.foreign.MemorySegment.ofArray(data));
            sends.get(0).wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(buffer[0], 0, data.length);
            c.queuePair().postSendOrThrow(sends, 1);
            List<CmPeer.Done> done = CmPeer.poll(c.completionQueue(), 2, TIMEOUT);
            assertEquals(2, done.size(), tag + ": " + done);
            assertTrue(done.stream().allMatch(d -> d.status() == WcStatus.SUCCESS), tag + ": " + done);
            assertArrayEquals(data, CmPeer.bytes(buffer[0], 256, data.length), tag);
            return c;
        } catch (RuntimeException | AssertionError e) {
            c.close();
            throw e;
        }
    }

    @Test
    void createEndpointMakesAnEventDrivenIdThatConnects() throws Exception {
        try (RdmaServer server = RdmaServer.listen(new InetSocketAddress(address, 0), ConnectionOptions.defaults(), 4);
                CmEventChannel channel = CmEventChannel.create()) {
            Thread acceptor = acceptOneUntilDisconnected(server);
            CmId id = CmId.createEndpoint(channel, server.localAddress(), false, PortSpace.TCP, TIMEOUT);
            try (var pd = id.context().allocateProtectionDomain(); var cq = id.context().createCompletionQueue(8)) {
                id.createQueuePair(pd, org.panamaverbs.verbs.QpConfig.builder(cq).build());
                CmEvent established = id.connect(ConnParam.defaults(), TIMEOUT);
                assertEquals(CmEventType.ESTABLISHED, established.type());
                assertEquals(server.localAddress(), id.peerAddress());
                id.disconnect();
                assertTrue(id.awaitDisconnected(TIMEOUT));
                id.close();
            }
            acceptor.join(TIMEOUT);
        }
    }

    @Test
    void createEndpointIsRefusedUnderAPvrdmaProfile() throws Exception {
        try (Peer peer = new Peer(List.of("-Dpanamaverbs.profile=pvrdma-hwv14"), "create-ep", address.getHostAddress())) {
            String refusal = peer.expect("REFUSED ", TIMEOUT);
            assertTrue(refusal.startsWith("rdma_create_ep failed: not supported: this device runs under an emulated PVRDMA"
                    + " HWv14 (ESXi 6.7) profile; VMware lists rdma_create_ep as unsupported on PVRDMA"), refusal);
            assertEquals(0, peer.exit(), peer.output());
        }
        try (Peer peer = new Peer("create-ep", address.getHostAddress())) {
            assertTrue(peer.expect("CREATED ", TIMEOUT).startsWith("CmId[TCP"), peer.output());
            assertEquals(0, peer.exit(), peer.output());
        }
    }

    /** A thread that accepts one connection of {@code server} and waits for its disconnection. */
    private static Thread acceptOneUntilDisconnected(RdmaServer server) {
        return Thread.ofVirtual().start(() -> {
            try (Connection accepted = server.accept(TIMEOUT)) {
                assertNotNull(accepted);
                assertTrue(accepted.awaitDisconnected(TIMEOUT));
            }
        });
    }

    @Test
    void typeOfServiceAndAckTimeoutReachTheQueuePairRdmaCmConnects() throws Exception {
        try (RdmaServer server = RdmaServer.listen(new InetSocketAddress(address, 0), ConnectionOptions.defaults(), 4);
                CmEventChannel channel = CmEventChannel.create()) {
            Thread acceptor = acceptOneUntilDisconnected(server);
            CmId id = CmId.create(channel, PortSpace.TCP);
            try {
                id.resolveAddress(server.localAddress(), TIMEOUT);
                assertThrows(IllegalArgumentException.class, () -> id.setTypeOfService(256));
                assertThrows(IllegalArgumentException.class, () -> id.setAckTimeout(32));
                id.setTypeOfService(0x48);
                id.setAckTimeout(17);
                id.resolveRoute(TIMEOUT);
                try (var pd = id.context().allocateProtectionDomain(); var cq = id.context().createCompletionQueue(8)) {
                    assertThrows(IllegalArgumentException.class, () -> id.createQueuePair(pd, QpConfig.builder(cq).pkeyIndex(1).build()));
                    QueuePair qp = id.createQueuePair(pd, QpConfig.builder(cq).build());
                    assertEquals(CmEventType.ESTABLISHED, id.connect(ConnParam.defaults(), TIMEOUT).type());
                    var attributes = qp.query();
                    assertEquals(17, attributes.timeout(), "RDMA_OPTION_ID_ACK_TIMEOUT");
                    if (id.context().queryPort(id.port()).linkLayer() == org.panamaverbs.verbs.LinkLayer.ETHERNET) {
                        // on InfiniBand the kernel maps the TOS to a service level instead
                        assertEquals(0x48, attributes.trafficClass(), "RDMA_OPTION_ID_TOS as the GRH traffic class");
                    }
                    id.disconnect();
                    assertTrue(id.awaitDisconnected(TIMEOUT));
                }
            } finally {
                id.close();
            }
            acceptor.join(TIMEOUT);
        }
        try (CmEventChannel channel = CmEventChannel.create()) {
            CmId closed = CmId.create(channel, PortSpace.TCP);
            closed.close();
            assertThrows(IllegalStateException.class, () -> closed.setTypeOfService(0));
        }
        // the same through Connection.connect's options
        try (RdmaServer server = RdmaServer.listen(new InetSocketAddress(address, 0), ConnectionOptions.defaults(), 4)) {
            Thread acceptor = acceptOneUntilDisconnected(server);
            ConnectionOptions tos = ConnectionOptions.builder().typeOfService(0x28).build();
            try (Connection c = Connection.connect(server.localAddress(), tos, TIMEOUT)) {
                if (c.id().context().queryPort(c.id().port()).linkLayer() == org.panamaverbs.verbs.LinkLayer.ETHERNET) {
                    assertEquals(0x28, c.queuePair().query().trafficClass());
                }
                c.id().disconnect();
                assertTrue(c.awaitDisconnected(TIMEOUT));
            }
            acceptor.join(TIMEOUT);
        }
        assertThrows(IllegalArgumentException.class, () -> ConnectionOptions.builder().typeOfService(-1));
    }

    @Test
    void closingTheIdClosesItsQueuePairOnceAndUseAfterCloseThrows() {
        try (CmEventChannel channel = CmEventChannel.create()) {
            CmId id = CmId.create(channel, PortSpace.TCP);
            id.bind(new InetSocketAddress(address, 0));
            var ctx = id.context();
            assertEquals("librdmacm (rdma_cm's device context)", ctx.heldBy());
            try (var pd = ctx.allocateProtectionDomain(); var cq = ctx.createCompletionQueue(16)) {
                QueuePair qp = id.createQueuePair(pd, org.panamaverbs.verbs.QpConfig.builder(cq).build());
                assertThrows(IllegalStateException.class, () -> id.createQueuePair(pd, org.panamaverbs.verbs.QpConfig.builder(cq).build()));
                assertThrows(IllegalArgumentException.class, () -> id.createQueuePair(pd,
                        org.panamaverbs.verbs.QpConfig.builder(cq).type(org.panamaverbs.verbs.QpType.UD).build()));
                id.close();
                assertTrue(qp.isClosed(), "closing the id closed its queue pair first");
                qp.close(); // idempotent: rdma_destroy_qp ran once
                id.close();
                assertThrows(IllegalStateException.class, () -> id.listen(1));
                assertThrows(IllegalStateException.class, () -> id.awaitEvent(Duration.ofMillis(1)));
            }
            assertFalse(ctx.isClosed(), "the borrowed context stays usable");
            assertEquals(CmEventType.UNKNOWN, CmEventType.of(99));
        }
    }

    /**
     * The threads that wait for an id's events (a listener's, a connection's watcher) wait without a timed
     * re-check, so closing must wake them: a waiter with a minute to go returns at once, and every later
     * waiter too. Closing the channel interrupts its reader instead of waiting out a poll interval.
     */
    @Test
    void closingAnIdWakesEveryWaiterAndClosingTheChannelStopsItsReaderAtOnce() throws Exception {
        CmEventChannel channel = CmEventChannel.create();
        try {
            CmId listener = CmId.create(channel, PortSpace.TCP);
            listener.bind(new InetSocketAddress(address, 0));
            listener.listen(1);
            BlockingQueue<Object> outcomes = new LinkedBlockingQueue<>();
            List<Thread> waiters = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                waiters.add(Thread.ofVirtual().start(() -> {
                    try {
                        outcomes.add(String.valueOf(listener.awaitConnectionRequest(Duration.ofMinutes(1))));
                    } catch (RuntimeException e) {
                        outcomes.add(e);
                    }
                }));
            }
            Thread.sleep(300); // both are waiting
            long closing = System.nanoTime();
            listener.close();
            for (int i = 0; i < 2; i++) {
                Object outcome = outcomes.poll(10, TimeUnit.SECONDS);
                assertNotNull(outcome, "a waiter was still waiting 10 s after the id closed");
                assertTrue(outcome instanceof IllegalStateException e && e.getMessage().contains("closed"),
                        "waiter " + i + ": " + outcome);
            }
            long wokenMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closing);
            for (Thread waiter : waiters) {
                assertTrue(waiter.join(Duration.ofSeconds(5)));
            }
            assertThrows(IllegalStateException.class, () -> listener.awaitEvent(Duration.ofMinutes(1)));
            System.out.println("cm: two waiters of a closed id woken in " + wokenMillis + " ms");
        } finally {
            long closing = System.nanoTime();
            channel.close();
            long closedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closing);
            System.out.println("cm: channel closed in " + closedMillis + " ms");
            assertTrue(closedMillis < 3000, "closing an idle channel took " + closedMillis + " ms");
        }
    }
}
