package org.panamaverbs.cm;

import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.AddressHandle;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Grh;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QpType;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.WcOpcode;
import org.panamaverbs.verbs.WcStatus;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.CompletionArray;

/**
 * The other process of {@link CmConnectionDeviceTest}: a server (or a client to be killed) in its own JVM, as a
 * user's peer would be. Prints {@code LISTENING <port>} when it accepts connections and one line per thing
 * the test checks; exits 0 when its part went as expected, 1 otherwise. Every wait is bounded.
 *
 * <pre>
 * CmPeer rc-server ADDR        one RC connection: echo SENDs, check RDMA WRITE/WRITE_WITH_IMM, serve READ
 * CmPeer ud-server ADDR        one UD request: check a datagram, answer it reversed
 * CmPeer reject-server ADDR    reject one request with private data
 * CmPeer stream-server ADDR    one RC connection receiving until killed
 * CmPeer loop-server ADDR N    N connections, concurrently: echo one SEND each, then wait for the disconnect
 * CmPeer rc-client ADDR PORT   connect, say CONNECTED, wait to be killed
 * CmPeer withdrawing-client ADDR PORT  send two requests and withdraw each (WITHDRAWN n), then as rc-client
 * CmPeer create-ep ADDR        rdma_create_ep for ADDR (passive), printing what the gate says
 * CmPeer echo-server ADDR PORT N  one RC connection on PORT: echo N SENDs (SEND/RECV only, for PVRDMA)
 * </pre>
 */
public final class CmPeer {
    static final Duration WAIT = Duration.ofSeconds(60);
    static final int REGION = 4096;
    static final int WRITE_SEED = 7;
    static final int WRITE_IMM_SEED = 11;
    static final int READ_SEED = 13;
    static final int SEND_SEED = 3;
    static final int DATAGRAM_SEED = 17;
    static final int IMMEDIATE = 0xC0FFEE;
    static final byte[] SERVER_HELLO = "hello from the server".getBytes(StandardCharsets.US_ASCII);
    static final byte[] CLIENT_HELLO = "hello from the client".getBytes(StandardCharsets.US_ASCII);
    static final byte[] REJECTION = "server full, try later".getBytes(StandardCharsets.US_ASCII);

    private CmPeer() {
    }

    public static void main(String[] args) throws Exception {
        InetAddress address = InetAddress.getByName(args[1]);
        boolean ok = switch (args[0]) {
            case "rc-server" -> rcServer(address);
            case "ud-server" -> udServer(address);
            case "reject-server" -> rejectServer(address);
            case "stream-server" -> streamServer(address);
            case "loop-server" -> loopServer(address, Integer.parseInt(args[2]));
            case "rc-client" -> rcClient(new InetSocketAddress(address, Integer.parseInt(args[2])));
            case "withdrawing-client" -> withdrawingClient(new InetSocketAddress(address, Integer.parseInt(args[2])));
            case "create-ep" -> createEndpoint(address);
            case "echo-server" -> echoServer(address, Integer.parseInt(args[2]), Integer.parseInt(args[3]));
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        };
        System.out.flush();
        System.exit(ok ? 0 : 1);
    }

    static void fill(MemoryRegion region, long offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            region.segment().set(ValueLayout.JAVA_BYTE, offset + i, pattern(seed, i));
        }
    }

    static byte pattern(int seed, int i) {
        return (byte) (seed * 31 + i * 7 + (i >>> 8));
    }

    static boolean holds(MemoryRegion region, long offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            if (region.segment().get(ValueLayout.JAVA_BYTE, offset + i) != pattern(seed, i)) {
                return false;
            }
        }
        return true;
    }

    static byte[] bytes(MemoryRegion region, long offset, int length) {
        return region.segment().asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }

    /** One completion copied out of the flyweight. */
    record Done(long wrId, WcStatus status, WcOpcode opcode, int byteLength, int imm, int sourceQp) {
        static Done of(WorkCompletion wc) {
            return new Done(wc.wrId(), wc.status(), wc.opcode(), wc.byteLength(), wc.immediateData(), wc.sourceQp());
        }
    }

    /** Polls until {@code n} completions arrived or {@code timeout} passed (then fewer are returned). */
    static List<Done> poll(CompletionQueue cq, int n, Duration timeout) {
        List<Done> done = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        try (CompletionArray wcs = CompletionArray.allocate(16)) {
            while (done.size() < n && System.nanoTime() < deadline) {
                int got = cq.poll(wcs, Math.min(16, n - done.size()));
                if (got < 0) {
                    throw new IllegalStateException("ibv_poll_cq returned " + got);
                }
                for (int i = 0; i < got; i++) {
                    done.add(Done.of(wcs.get(i)));
                }
                if (got == 0) {
                    // yield, not onSpinWait: the loop server and the concurrent clients poll from 32 virtual
                    // threads on 2 carriers, and a virtual thread that spins never lets another one mount
                    // (one whose completion had arrived could then time out unscheduled)
                    Thread.yield();
                }
            }
        }
        return done;
    }

    static Done pollOne(CompletionQueue cq) {
        List<Done> done = poll(cq, 1, WAIT);
        if (done.isEmpty()) {
            throw new IllegalStateException("no completion within " + WAIT + " on " + cq);
        }
        return done.getFirst();
    }

    private static RdmaServer listen(InetAddress address, ConnectionOptions options) {
        RdmaServer server = RdmaServer.listen(new InetSocketAddress(address, 0), options, 64);
        System.out.println("LISTENING " + server.localAddress().getPort());
        System.out.flush();
        return server;
    }

    private static boolean rcServer(InetAddress address) {
        MemoryRegion[] regions = new MemoryRegion[2];
        try (RecvChain recvs = RecvChain.allocate(4, 1); SendChain sends = SendChain.allocate(1, 1)) {
            ConnectionOptions options = ConnectionOptions.builder().privateData(SERVER_HELLO).prepare(c -> {
                regions[0] = c.protectionDomain().allocateAndRegister(REGION, Access.LOCAL_WRITE, Access.REMOTE_WRITE,
                        Access.REMOTE_READ);
                fill(regions[0], 2048, 256, READ_SEED);
                regions[1] = c.protectionDomain().allocateAndRegister(REGION, Access.LOCAL_WRITE);
                for (int i = 0; i < 4; i++) {
                    recvs.get(i).wrId(100 + i).sge(regions[1], i * 512L, 512);
                }
                c.queuePair().postRecvOrThrow(recvs, 4);
                c.offer(regions[0]);
            }).build();
            try (RdmaServer server = listen(address, options); Connection c = server.accept(WAIT)) {
                if (c == null) {
                    System.out.println("NO-CONNECTION");
                    return false;
                }
                System.out.println("PEER-DATA " + new String(c.peerPrivateData(), StandardCharsets.US_ASCII));
                QueuePair qp = c.queuePair();
                MemoryRegion remote = regions[0];
                MemoryRegion buffer = regions[1];
                // 1: a SEND, echoed back from where it landed
                Done received = pollOne(c.completionQueue());
                System.out.println("RECV " + received.status() + " " + received.opcode() + " " + received.byteLength());
                int slot = (int) (received.wrId() - 100);
                sends.get(0).wrId(1).opcode(org.panamaverbs.verbs.WrOpcode.SEND).flags(SendFlags.SIGNALED)
                        .sge(buffer, slot * 512L, received.byteLength());
                qp.postSendOrThrow(sends, 1);
                System.out.println("ECHO " + pollOne(c.completionQueue()).status());
                // 2: RDMA WRITE then WRITE_WITH_IMM, whose receive completion says both arrived
                Done imm = pollOne(c.completionQueue());
                boolean written = holds(remote, 0, 128, WRITE_SEED);
                boolean writtenWithImm = holds(remote, 512, 64, WRITE_IMM_SEED);
                String report = String.format("%s %s imm=0x%x write=%s with-imm=%s", imm.status(), imm.opcode(), imm.imm(),
                        written ? "ok" : "bad", writtenWithImm ? "ok" : "bad");
                System.out.println("WRITES " + report);
                byte[] text = report.getBytes(StandardCharsets.US_ASCII);
                buffer.segment().asSlice(3072, text.length).copyFrom(java.lang.foreign.MemorySegment.ofArray(text));
                sends.get(0).wrId(2).sge(buffer, 3072, text.length);
                qp.postSendOrThrow(sends, 1);
                System.out.println("REPORT-SENT " + pollOne(c.completionQueue()).status());
                // 3: the client READs [2048, 2304) and disconnects
                boolean gone = c.awaitDisconnected(WAIT);
                System.out.println(gone ? "DISCONNECTED" : "STILL-CONNECTED");
                return gone && written && writtenWithImm && received.status() == WcStatus.SUCCESS;
            }
        }
    }

    private static boolean udServer(InetAddress address) {
        MemoryRegion[] regions = new MemoryRegion[1];
        int capacity = Grh.SIZE + 1024;
        try (RecvChain recvs = RecvChain.allocate(1, 1); SendChain sends = SendChain.allocate(1, 1)) {
            ConnectionOptions options = ConnectionOptions.builder().portSpace(PortSpace.UDP).privateData(SERVER_HELLO)
                    .prepare(c -> {
                        regions[0] = c.protectionDomain().allocateAndRegister(2L * capacity, Access.LOCAL_WRITE);
                        recvs.get(0).wrId(7).sge(regions[0], 0, capacity);
                        c.queuePair().postRecvOrThrow(recvs, 1);
                    }).build();
            try (RdmaServer server = listen(address, options); Connection c = server.accept(WAIT)) {
                if (c == null) {
                    System.out.println("NO-REQUEST");
                    return false;
                }
                int clientQpn = Integer.parseInt(new String(c.peerPrivateData(), StandardCharsets.US_ASCII));
                Done d = pollOne(c.completionQueue());
                int payload = d.byteLength() - Grh.SIZE;
                boolean intact = holds(regions[0], Grh.SIZE, payload, DATAGRAM_SEED);
                System.out.printf("DATAGRAM %s %d from-qp-matches=%s bytes=%s%n", d.status(), payload,
                        d.sourceQp() == clientQpn, intact ? "ok" : "bad");
                // answer with the payload reversed, to the source the GRH names
                byte[] reversed = bytes(regions[0], Grh.SIZE, payload);
                for (int i = 0; i < reversed.length / 2; i++) {
                    byte t = reversed[i];
                    reversed[i] = reversed[reversed.length - 1 - i];
                    reversed[reversed.length - 1 - i] = t;
                }
                regions[0].segment().asSlice(capacity, payload).copyFrom(java.lang.foreign.MemorySegment.ofArray(reversed));
                QueuePair qp = c.queuePair();
                try (AddressHandle ah = c.protectionDomain().createAddressHandle(AddressHandle.Target.of(
                        Grh.sourceGid(regions[0].segment(), 0), qp.gidIndex(), qp.config().port()))) {
                    sends.get(0).wrId(8).opcode(org.panamaverbs.verbs.WrOpcode.SEND).flags(SendFlags.SIGNALED)
                            .sge(regions[0], capacity, payload).ud(ah, d.sourceQp(), 0x01234567);
                    qp.postSendOrThrow(sends, 1);
                    System.out.println("REPLIED " + pollOne(c.completionQueue()).status());
                }
                return d.status() == WcStatus.SUCCESS && intact && d.sourceQp() == clientQpn;
            }
        }
    }

    private static boolean rejectServer(InetAddress address) {
        try (CmEventChannel channel = CmEventChannel.create(); CmId listener = CmId.create(channel, PortSpace.TCP)) {
            listener.bind(new InetSocketAddress(address, 0));
            listener.listen(4);
            System.out.println("LISTENING " + listener.localAddress().getPort());
            System.out.flush();
            CmEvent request = listener.awaitConnectionRequest(WAIT);
            if (request == null) {
                System.out.println("NO-REQUEST");
                return false;
            }
            try (CmId id = request.id()) {
                id.reject(REJECTION);
            }
            System.out.println("REJECTED");
            return true;
        }
    }

    private static boolean streamServer(InetAddress address) {
        MemoryRegion[] regions = new MemoryRegion[1];
        int depth = 64;
        try (RecvChain recvs = RecvChain.allocate(depth, 1)) {
            ConnectionOptions options = ConnectionOptions.builder().prepare(c -> {
                regions[0] = c.protectionDomain().allocateAndRegister(depth * 256L, Access.LOCAL_WRITE);
                for (int i = 0; i < depth; i++) {
                    recvs.get(i).wrId(i).sge(regions[0], i * 256L, 256);
                }
                c.queuePair().postRecvOrThrow(recvs, depth);
            }).build();
            try (RdmaServer server = listen(address, options); Connection c = server.accept(WAIT)) {
                long received = 0;
                try (CompletionArray wcs = CompletionArray.allocate(16)) {
                    while (!c.isPeerDisconnected()) {
                        int n = c.completionQueue().poll(wcs);
                        for (int i = 0; i < n; i++) {
                            int slot = (int) wcs.get(i).wrId();
                            recvs.get(0).wrId(slot).sge(regions[0], slot * 256L, 256);
                            c.queuePair().postRecvOrThrow(recvs, 1);
                            if (++received == 1) {
                                System.out.println("STREAMING");
                                System.out.flush();
                            }
                        }
                    }
                }
                return true;
            }
        }
    }

    private static boolean loopServer(InetAddress address, int connections) throws InterruptedException {
        AtomicInteger served = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        List<Thread> handlers = new ArrayList<>();
        ConnectionOptions options = ConnectionOptions.builder().capabilities(QpCapabilities.of(4, 4)).prepare(c -> {
            MemoryRegion buffer = c.protectionDomain().allocateAndRegister(256, Access.LOCAL_WRITE);
            try (RecvChain recvs = RecvChain.allocate(1, 1)) {
                recvs.get(0).wrId(1).sge(buffer, 0, 256);
                c.queuePair().postRecvOrThrow(recvs, 1);
            }
        }).build();
        try (RdmaServer server = listen(address, options)) {
            for (int i = 0; i < connections; i++) {
                Connection c = server.accept(WAIT);
                if (c == null) {
                    System.out.println("NO-CONNECTION after " + i);
                    return false;
                }
                handlers.add(Thread.ofVirtual().start(() -> {
                    try (c; SendChain sends = SendChain.allocate(1, 1)) {
                        Done d = pollOne(c.completionQueue());
                        MemoryRegion buffer = c.protectionDomain().allocateAndRegister(256, Access.LOCAL_WRITE);
                        buffer.segment().copyFrom(java.lang.foreign.MemorySegment.ofArray(c.peerPrivateData()));
                        sends.get(0).wrId(2).opcode(org.panamaverbs.verbs.WrOpcode.SEND).flags(SendFlags.SIGNALED)
                                .sge(buffer, 0, c.peerPrivateData().length);
                        c.queuePair().postSendOrThrow(sends, 1);
                        Done sent = pollOne(c.completionQueue());
                        String tag = new String(c.peerPrivateData(), StandardCharsets.US_ASCII);
                        // say which step failed: a bare count hides whether data or the disconnect went wrong
                        String why = d.status() != WcStatus.SUCCESS ? "receive " + d
                                : sent.status() != WcStatus.SUCCESS ? "send " + sent
                                : !c.awaitDisconnected(WAIT) ? "no DISCONNECTED event within " + WAIT : null;
                        if (why != null) {
                            System.out.println("HANDLER-FAILED " + tag + ": " + why);
                        }
                        (why == null ? served : failed).incrementAndGet();
                    } catch (RuntimeException e) {
                        failed.incrementAndGet();
                        System.out.println("HANDLER-FAILED " + e);
                    }
                }));
            }
            for (Thread t : handlers) {
                t.join(WAIT);
            }
        }
        System.out.println("SERVED " + served.get() + " FAILED " + failed.get());
        return served.get() == connections;
    }

    /** SEND/RECV only (QEMU's PVRDMA model carries nothing else): echo {@code count} messages, then await the disconnect. */
    private static boolean echoServer(InetAddress address, int port, int count) {
        MemoryRegion[] buffer = new MemoryRegion[1];
        try (RecvChain recvs = RecvChain.allocate(count, 1); SendChain sends = SendChain.allocate(1, 1)) {
            ConnectionOptions options = ConnectionOptions.builder().capabilities(QpCapabilities.of(count, count))
                    .privateData(SERVER_HELLO).prepare(c -> {
                        buffer[0] = c.protectionDomain().allocateAndRegister(count * 1024L, Access.LOCAL_WRITE);
                        for (int i = 0; i < count; i++) {
                            recvs.get(i).wrId(i).sge(buffer[0], i * 1024L, 1024);
                        }
                        c.queuePair().postRecvOrThrow(recvs, count);
                    }).build();
            try (RdmaServer server = RdmaServer.listen(new InetSocketAddress(address, port), options, 4)) {
                System.out.println("LISTENING " + server.localAddress().getPort());
                System.out.flush();
                try (Connection c = server.accept(Duration.ofMinutes(15))) {
                    if (c == null) {
                        System.out.println("NO-CONNECTION");
                        return false;
                    }
                    boolean ok = true;
                    for (int i = 0; i < count; i++) {
                        Done received = pollOne(c.completionQueue());
                        sends.get(0).wrId(100 + i).opcode(org.panamaverbs.verbs.WrOpcode.SEND).flags(SendFlags.SIGNALED)
                                .sge(buffer[0], received.wrId() * 1024L, received.byteLength());
                        c.queuePair().postSendOrThrow(sends, 1);
                        ok &= received.status() == WcStatus.SUCCESS && pollOne(c.completionQueue()).status() == WcStatus.SUCCESS;
                    }
                    boolean gone = c.awaitDisconnected(WAIT);
                    System.out.println("ECHOED " + count + (ok ? " ok" : " with errors") + (gone ? ", disconnected" : ", still connected"));
                    return ok && gone;
                }
            }
        }
    }

    private static boolean createEndpoint(InetAddress address) {
        try (CmEventChannel channel = CmEventChannel.create()) {
            try (CmId id = CmId.createEndpoint(channel, new InetSocketAddress(address, 0), true, PortSpace.TCP, WAIT)) {
                System.out.println("CREATED " + id);
            } catch (org.panamaverbs.verbs.UnsupportedVerbException e) {
                System.out.println("REFUSED " + e.getMessage());
            }
        }
        return true;
    }

    private static boolean rcClient(InetSocketAddress server) throws InterruptedException {
        Connection c = Connection.connect(server, ConnectionOptions.builder().privateData(CLIENT_HELLO).build(), WAIT);
        System.out.println("CONNECTED " + Arrays.toString(c.peerPrivateData()).length());
        System.out.flush();
        Thread.sleep(WAIT.toMillis()); // the test kills this process
        c.close();
        return false;
    }

    /**
     * Two connection requests that their client withdraws, as a client whose connect gives up does: each one
     * is sent ({@code rdma_connect}), its ESTABLISHED wait ends after 300 ms unanswered, and the id is closed
     * (the kernel sends the server a reject). Then a connection as {@code rc-client} makes it.
     */
    private static boolean withdrawingClient(InetSocketAddress server) throws InterruptedException {
        for (int i = 1; i <= 2; i++) {
            CmEventChannel channel = CmEventChannel.create();
            ProtectionDomain pd = null;
            CompletionQueue cq = null;
            try {
                CmId id = CmId.create(channel, PortSpace.TCP);
                id.resolveAddress(server, WAIT);
                id.resolveRoute(WAIT);
                pd = id.context().allocateProtectionDomain();
                cq = id.context().createCompletionQueue(16);
                id.createQueuePair(pd, QpConfig.builder(cq).type(QpType.RC).build());
                try {
                    id.connect(ConnParam.defaults(), Duration.ofMillis(300));
                    System.out.println("CONNECTED although the server did not accept");
                    return false;
                } catch (CmException e) {
                    if (!e.timedOut()) {
                        System.out.println("FAILED " + e);
                        return false;
                    }
                }
                id.close(); // rdma_destroy_id: the request is withdrawn (its queue pair closes with it)
                System.out.println("WITHDRAWN " + i);
                System.out.flush();
            } finally {
                channel.close();
                if (cq != null) {
                    cq.close();
                }
                if (pd != null) {
                    pd.close();
                }
            }
        }
        return rcClient(server);
    }
}
