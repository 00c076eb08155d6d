package org.panamaverbs.verbs;

import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.cm.CmEventType;
import org.panamaverbs.cm.CmException;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.Connection;
import org.panamaverbs.cm.ConnectionOptions;
import org.panamaverbs.cm.PortSpace;

/**
 * The device tests of the PVRDMA tiers ({@code scripts/test-pvrdma}): run on the real {@code vmw_pvrdma}
 * driver and provider over QEMU's pvrdma model, in a nested guest where starting a JVM takes minutes. So
 * this is a plain {@code main} with few classes and no JUnit, and one JVM checks every device the guest has:
 * per device (configuration) it prints one line per check, then {@code configuration NAME (DEVICE): N passed,
 * N failed}; at the end the device report's line and {@code N passed, N failed} for all; it exits 1 if any check
 * failed.
 *
 * <p>Environment (set by {@code scripts/rdma-guest --tier pvrdma|pvrdma-hwv13|pvrdma-both}):
 * {@code RDMA_TEST_DEVICE} (vmw_pvrdma0), {@code RDMA_TEST_ADDRESS} (the guest's IPv4 address on its NIC),
 * {@code RDMA_TEST_GID_INDEX} (the GID of that address; the fec0:: GID of QEMU's user network is not on the
 * backend) and {@code PANAMA_VERBS_GUEST_TIER}, which says which class detection must find there (HWv13-class in
 * tier pvrdma-hwv13, else HWv14-class); in tier pvrdma-both also the HWv13-class device,
 * {@code PANAMA_VERBS_PVRDMA_HWV13_DEVICE}, {@code _ADDRESS} and {@code _GID_INDEX}. The first argument is the
 * path of the C program {@code opcode_probe} (src/test/c), whose measurements of what the device does with
 * each opcode are the evidence for the gates of QEMU's model; check "opcode-evidence" runs it.
 */
public final class PvrdmaDeviceCheck {
    // nested TCG: a SEND takes milliseconds. The AOT cache's training run (scripts/test-pvrdma) gives 1 s: on the
    // stand-in provider nothing completes, and the training only has to reach each check's classes
    static final long TIMEOUT_NANOS = Long.getLong("panamaverbs.test.completionTimeoutSeconds", 120) * 1_000_000_000L;
    private static final int BUFFER = 16384;

    private final Context context;
    private final ProtectionDomain pd;
    private final int gidIndex;
    private final InetAddress address;
    private final HardwareClass expected;
    private final String probe;
    private final CompletionArray completions = CompletionArray.allocate(8);
    private int passed;
    private int failed;

    /**
     * One device of the guest and the class detection must find on it: configuration {@code pvrdma}
     * (HWv14-class) or {@code pvrdma-hwv13} (the driver reports max_srq 0).
     */
    private record Configuration(String name, String device, int gidIndex, InetAddress address, HardwareClass expected) {
    }

    private PvrdmaDeviceCheck(Context context, Configuration configuration, String probe) {
        this.probe = probe;
        this.context = context;
        this.pd = context.allocateProtectionDomain();
        this.gidIndex = configuration.gidIndex();
        this.address = configuration.address();
        this.expected = configuration.expected();
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: PvrdmaDeviceCheck OPCODE_PROBE [CHECK...]   (default: every check)");
            System.exit(2);
        }
        String[] names = {"opcode-evidence", "detection", "srq", "rc-send-recv", "gate-atomics", "gate-multicast", "gate-inline", "gate-qp-types",
            "gate-ud-limit", "gate-remote-access", "gate-opcodes", "gate-create-ep", "capability-table", "rdma-cm",
            "device-report"};
        if (args.length > 1) {
            names = Arrays.copyOfRange(args, 1, args.length);
        }
        int passed = 0;
        int failed = 0;
        for (Configuration configuration : configurations()) {
            try (Context context = Rdma.open(configuration.device())) {
                System.out.println("configuration " + configuration.name() + ": profile of " + configuration.device()
                        + " (expected " + configuration.expected().description() + "):");
                System.out.print(context.profile().describe().indent(2));
                PvrdmaDeviceCheck check = new PvrdmaDeviceCheck(context, configuration, args[0]);
                for (String name : names) {
                    if (!name.equals("device-report")) { // after every context is closed, as a user's run would be
                        check.run(name);
                    }
                }
                check.completions.close();
                System.out.println("configuration " + configuration.name() + " (" + configuration.device() + "): "
                        + check.passed + " passed, " + check.failed + " failed");
                passed += check.passed;
                failed += check.failed;
            }
        }
        if (Arrays.asList(names).contains("device-report")) {
            if (timed("device-report", PvrdmaDeviceCheck::deviceReport)) {
                passed++;
            } else {
                failed++;
            }
        }
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }

    /**
     * The guest's devices: RDMA_TEST_* describe the first (HWv13-class in tier pvrdma-hwv13, else HWv14-class);
     * PANAMA_VERBS_PVRDMA_HWV13_* the HWv13-class device beside it in tier pvrdma-both.
     */
    private static List<Configuration> configurations() throws java.net.UnknownHostException {
        boolean hwv13Tier = getenv("PANAMA_VERBS_GUEST_TIER", "pvrdma").equals("pvrdma-hwv13");
        List<Configuration> configurations = new ArrayList<>();
        configurations.add(new Configuration(hwv13Tier ? "pvrdma-hwv13" : "pvrdma",
                getenv(DeviceUnderTest.DEVICE_ENV, "vmw_pvrdma0"),
                Integer.parseInt(getenv(DeviceUnderTest.GID_INDEX_ENV, "-1")),
                InetAddress.getByName(Objects.requireNonNullElse(DeviceUnderTest.addressOrNull(), "10.251.0.2")),
                hwv13Tier ? HardwareClass.PVRDMA_HWV13 : HardwareClass.PVRDMA_HWV14));
        String hwv13Device = System.getenv("PANAMA_VERBS_PVRDMA_HWV13_DEVICE");
        if (hwv13Device != null && !hwv13Device.isBlank()) {
            configurations.add(new Configuration("pvrdma-hwv13", hwv13Device,
                    Integer.parseInt(getenv("PANAMA_VERBS_PVRDMA_HWV13_GID_INDEX", "-1")),
                    InetAddress.getByName(getenv("PANAMA_VERBS_PVRDMA_HWV13_ADDRESS", "10.252.0.2")),
                    HardwareClass.PVRDMA_HWV13));
        }
        return configurations;
    }

    /**
     * scripts/device-report's report of this guest's devices, in this JVM: starting a second JVM costs minutes in
     * the nested guest. Its command line is left out: picocli's classes are Java 5 bytecode, which no class
     * archive holds linked, so the nested guest would read and verify about 170 of them. Needs
     * bench/target/panama-verbs-bench.jar on the class path (scripts/test-pvrdma puts it there); called by
     * reflection because the library's tests do not depend on bench/.
     */
    private static void deviceReport() throws Exception {
        Class<?> report = Class.forName("org.panamaverbs.bench.report.DeviceReport");
        java.io.PrintWriter out = new java.io.PrintWriter(System.out, true);
        java.lang.reflect.Method print = report.getDeclaredMethod("print", java.io.PrintWriter.class, String.class,
                HardwareClass.class, boolean.class);
        print.setAccessible(true); // package-private: the report without its command line
        try {
            print.invoke(null, out, null, null, false);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } finally {
            out.flush();
        }
    }

    private static String getenv(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    private void run(String name) {
        if (timed(name, () -> runCheck(name))) {
            passed++;
        } else {
            failed++;
        }
    }

    /** A check's body; it fails by throwing. */
    private interface Body {
        void run() throws Exception;
    }

    /** Runs one check and prints its line: PASS or FAIL, with its duration (and why it failed). */
    private static boolean timed(String name, Body body) {
        long start = System.nanoTime();
        try {
            body.run();
            System.out.printf("PASS %-20s %6.1f s%n", name, (System.nanoTime() - start) / 1e9);
            return true;
        } catch (Throwable t) {
            System.out.printf("FAIL %-20s %6.1f s: %s%n", name, (System.nanoTime() - start) / 1e9, t);
            t.printStackTrace(System.out);
            return false;
        }
    }

    private void runCheck(String name) throws Exception {
        switch (name) {
            case "opcode-evidence" -> opcodeEvidence();
            case "detection" -> detection();
            case "srq" -> sharedReceiveQueue();
            case "rc-send-recv" -> rcSendRecv();
            case "gate-atomics" -> gateAtomics();
            case "gate-multicast" -> gateMulticast();
            case "gate-inline" -> gateInline();
            case "gate-qp-types" -> gateQueuePairTypes();
            case "gate-ud-limit" -> gateUdLimit();
            case "gate-remote-access" -> gateRemoteAccess();
            case "gate-opcodes" -> gateOpcodes();
            case "gate-create-ep" -> gateCreateEndpoint();
            case "capability-table" -> capabilityTable();
            case "rdma-cm" -> rdmaCm();
            default -> throw new IllegalArgumentException(name);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // checks

    /**
     * What scripts/device-report prints for this device is what it does: every verdict of
     * {@link Context#capabilities()}, under the detected profile and both emulated ones, attempted here.
     */
    private void capabilityTable() throws Exception {
        for (HardwareClass profile : HardwareClass.values()) {
            try (Context ctx = Rdma.open(context.name(), profile)) {
                for (String line : new CapabilityTableCheck(ctx, gidIndex, address).run()) {
                    System.out.println("  " + profile.propertyValue() + " " + line);
                }
            }
        }
    }

    /** rdma_create_ep is refused on the real device, before librdmacm is asked. */
    private void gateCreateEndpoint() throws Exception {
        try (CmEventChannel channel = CmEventChannel.create()) {
            try (CmId id = CmId.createEndpoint(channel, new InetSocketAddress(address, 0), true, PortSpace.TCP,
                    Duration.ofMinutes(2))) {
                check(false, "rdma_create_ep was allowed: " + id);
            } catch (UnsupportedVerbException e) {
                check(e.verb().equals("rdma_create_ep"), "verb " + e.verb());
                check(e.getMessage().contains("this device is " + expected.description()
                        + "-class; VMware lists rdma_create_ep as unsupported on PVRDMA"), e.getMessage());
            }
        }
    }

    /**
     * rdma_cm between two processes: this JVM connects to the C {@code cm_sendrecv server} (librdmacm) that
     * scripts/test-pvrdma started beside it on port {@code PANAMA_VERBS_CM_PORT}, finds its (non-Panama Verbs)
     * private data kept whole, has three messages echoed byte for byte over SEND/RECV (the server answers
     * each with its 64-byte buffer, one receive posted at a time), and disconnects.
     */
    private void rdmaCm() throws Exception {
        String port = System.getenv("PANAMA_VERBS_CM_PORT");
        check(port != null, "PANAMA_VERBS_CM_PORT names the port of the C cm_sendrecv server (scripts/test-pvrdma starts it)");
        InetSocketAddress server = new InetSocketAddress(address, Integer.parseInt(port));
        int[] lengths = {1, 32, 64};
        MemoryRegion[] buffer = new MemoryRegion[1];
        try (RecvChain recvs = RecvChain.allocate(3, 1); SendChain sends = SendChain.allocate(1, 1)) {
            ConnectionOptions options = ConnectionOptions.builder().capabilities(QpCapabilities.of(4, 4))
                    .privateData("pvrdma client".getBytes(StandardCharsets.US_ASCII)).prepare(c -> {
                        buffer[0] = c.protectionDomain().allocateAndRegister(8192, Access.LOCAL_WRITE);
                        for (int i = 0; i < 3; i++) {
                            recvs.get(i).wrId(10 + i).sge(buffer[0], 4096 + i * 1024L, 1024);
                        }
                        c.queuePair().postRecvOrThrow(recvs, 3);
                    }).build();
            Connection c = connectWhenListening(server, options);
            try (c) {
                byte[] peerData = c.peerPrivateData();
                check(c.remoteRegion() == null && peerData.length > 0 && Arrays.equals(peerData, new byte[peerData.length]),
                        "a C peer's private data (none sent: the CM field's zeros) is kept whole: " + Arrays.toString(peerData));
                check(c.context().heldBy() != null && c.queuePair().heldBy().startsWith("rdma_cm id"),
                        "rdma_cm's context and queue pair are held by their owners");
                check(c.context().profile().hardwareClass() == expected, "the cm context is detected " + expected);
                int offset = 0;
                for (int m = 0; m < 3; m++) {
                    fill(buffer[0], offset, lengths[m], 40 + m);
                    sends.get(0).wrId(m).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(buffer[0], offset, lengths[m]);
                    c.queuePair().postSendOrThrow(sends, 1);
                    List<long[]> done = new ArrayList<>();
                    long deadline = System.nanoTime() + TIMEOUT_NANOS;
                    while (done.size() < 2 && System.nanoTime() < deadline) {
                        int n = c.completionQueue().poll(completions);
                        for (int i = 0; i < n; i++) {
                            WorkCompletion wc = completions.get(i);
                            check(wc.status() == WcStatus.SUCCESS, "message " + m + ": " + wc);
                            done.add(new long[] {wc.wrId(), wc.byteLength()});
                        }
                    }
                    check(done.size() == 2, "message " + m + ": send and echo completions, got " + done.size());
                    long echoId = done.stream().filter(d -> d[0] >= 10).findFirst().orElseThrow()[0];
                    long echoAt = 4096 + (echoId - 10) * 1024;
                    check(Arrays.equals(buffer[0].segment().asSlice(offset, lengths[m]).toArray(ValueLayout.JAVA_BYTE),
                            buffer[0].segment().asSlice(echoAt, lengths[m]).toArray(ValueLayout.JAVA_BYTE)),
                            "message " + m + " (" + lengths[m] + " bytes) echoed byte for byte");
                    offset += lengths[m];
                }
                c.id().disconnect();
                check(c.awaitDisconnected(Duration.ofMinutes(2)), "this side's DISCONNECTED");
            }
        }
    }

    /** A REJECTED (the server not listening yet) or a timeout is retried for 10 minutes. */
    private static Connection connectWhenListening(InetSocketAddress server, ConnectionOptions options) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
        while (true) {
            try {
                return Connection.connect(server, options, Duration.ofMinutes(3));
            } catch (CmException e) {
                if ((e.event() != CmEventType.REJECTED && !e.timedOut()) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(5000);
            }
        }
    }

    /**
     * What QEMU's model does with each opcode, measured by opcode_probe with plain libibverbs: the premise of
     * the gates that refuse RDMA WRITE/READ, immediate data and remote access there. If QEMU ever carried them,
     * this fails, and the gates must be revisited.
     */
    private void opcodeEvidence() throws Exception {
        Process process = new ProcessBuilder(probe, context.name(), Integer.toString(gidIndex)).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        int status = process.waitFor();
        System.out.print(output.indent(2));
        check(status == 0, "opcode_probe exited " + status);
        String send = line(output, "SEND:");
        check(send.contains("requester: success, opcode 0") && send.contains("responder: success, opcode 128, 64 bytes")
                && send.contains("receive buffer holds the requester's bytes"), "SEND moves the bytes: " + send);
        check(line(output, "SEND_WITH_IMM:").contains("responder: success, opcode 128, 64 bytes, no imm;"),
                "SEND_WITH_IMM arrives without its immediate data");
        for (String op : new String[] {"RDMA_WRITE:", "RDMA_WRITE_WITH_IMM:"}) {
            String write = line(output, op);
            check(write.contains("responder: success, opcode 128, 64 bytes, no imm;")
                    && write.contains("remote address unchanged (not written)")
                    && write.contains("receive buffer holds the requester's bytes"),
                    op + " is carried as a plain SEND into the posted receive: " + write);
        }
        String read = line(output, "RDMA_READ:");
        check(read.contains("local buffer unchanged (not read)") && read.contains("responder: success, opcode 128")
                && read.contains("receive buffer holds the requester's local buffer (sent, not read)"),
                "RDMA_READ is carried as a plain SEND of the local buffer: " + read);
        for (String sges : new String[] {"SEND 3 gather entries -> 1 scatter entry:", "SEND 1 gather entry -> 3 scatter entries:",
                "SEND 3 gather entries -> 3 scatter entries:"}) {
            String line = line(output, sges);
            check(line.contains("responder: success, opcode 128, 64 bytes") && line.contains("receive buffer holds the requester's bytes"),
                    "scatter-gather: " + line);
        }
        check(line(output, "memory regions:").contains("rkey 0xffffffff / 0xffffffff"), "rkey 0xffffffff");
    }

    private static String line(String output, String prefix) {
        for (String line : output.split("\n")) {
            if (line.startsWith(prefix) || line.contains(": " + prefix)) {
                return line;
            }
        }
        throw new AssertionError("opcode_probe printed no line " + prefix);
    }

    private void detection() {
        DeviceProfile profile = context.profile();
        DeviceAttributes device = context.attributes();
        check(profile.hardwareClass() == expected, "detected " + profile.hardwareClass() + ", expected " + expected);
        check(!profile.emulated(), "detected, not emulated");
        check(device.vendorPartId() == 2080 && device.vendorId() == 0, "QEMU's model: vendor_part_id 2080, vendor_id 0");
        check(contains(profile.reasons(), "QEMU's PVRDMA model"), "reasons name QEMU's model: " + profile.reasons());
        DeviceProfile.Capabilities c = profile.capabilities();
        boolean hwv14 = expected == HardwareClass.PVRDMA_HWV14;
        check(c.sharedReceiveQueues() == hwv14, "SRQ allowed only on HWv14-class");
        check(c.maxUdQueuePairs() == (hwv14 ? -1 : 3), "UD limit " + c.maxUdQueuePairs());
        check(!c.atomics() && !c.inline() && !c.unreliableConnected() && !c.rdmaAndImmediate(), "capabilities " + c);
        check(c.roceV1() && !c.roceV2(), "QEMU's model runs RoCE v1 only: " + context.gidTable(1));
        check(device.maxSrq() == (hwv14 ? 512 : 0), "max_srq " + device.maxSrq());
    }

    private void sharedReceiveQueue() {
        if (expected == HardwareClass.PVRDMA_HWV13) {
            try {
                pd.createSharedReceiveQueue(16, 1).close();
                throw new AssertionError("ibv_create_srq was not refused on an HWv13-class device");
            } catch (UnsupportedVerbException e) {
                check(e.verb().equals("ibv_create_srq"), "verb " + e.verb());
                check(e.getMessage().equals("ibv_create_srq failed: not supported: this device is PVRDMA HWv13 (ESXi 6.5)"
                        + "-class: max_srq = 0; shared receive queues need PVRDMA HWv14 (ESXi 6.7) or later"), e.getMessage());
            }
            return;
        }
        try (SharedReceiveQueue srq = pd.createSharedReceiveQueue(16, 1);
             CompletionQueue sendCq = context.createCompletionQueue(16);
             CompletionQueue recvCq = context.createCompletionQueue(16);
             MemoryRegion mr = pd.allocateAndRegister(BUFFER, Access.LOCAL_WRITE);
             SendChain sends = SendChain.allocate(2, 1);
             RecvChain recvs = RecvChain.allocate(2, 1)) {
            try {
                System.out.println("  ibv_query_srq: max_wr " + srq.query().maxWr());
            } catch (VerbsException e) {
                System.out.println("  ibv_query_srq: " + e.getMessage()); // observed: EINVAL on QEMU's model
            }
            QueuePair receiver = pd.createQueuePair(config(sendCq, recvCq).srq(srq).build());
            QueuePair sender = pd.createQueuePair(config(sendCq, sendCq).build());
            QueuePair.connectLoopback(sender, receiver);
            recvs.get(0).wrId(100).sge(mr, 8192, 1024);
            recvs.get(1).wrId(101).sge(mr, 9216, 1024);
            srq.postRecvOrThrow(recvs, 2);
            for (int m = 0; m < 2; m++) {
                fill(mr, m * 1024L, 700, 40 + m);
                sends.get(0).wrId(m).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(mr, m * 1024L, 700);
                sender.postSendOrThrow(sends, 1);
            }
            expectSuccess(sendCq, 2, WcOpcode.SEND, sender.qpNumber(), -1);
            List<long[]> received = expectSuccess(recvCq, 2, WcOpcode.RECV, receiver.qpNumber(), 700);
            for (int m = 0; m < 2; m++) {
                long at = received.get(m)[0] == 100 ? 8192 : 9216;
                checkBytes(mr, m * 1024L, mr, at, 700, "message " + m + " through the SRQ");
            }
            receiver.close();
            sender.close();
        }
    }

    private void rcSendRecv() {
        try (CompletionQueue cqA = context.createCompletionQueue(16);
             CompletionQueue cqB = context.createCompletionQueue(16);
             MemoryRegion mrA = pd.allocateAndRegister(BUFFER, Access.LOCAL_WRITE);
             MemoryRegion mrB = pd.allocateAndRegister(BUFFER, Access.LOCAL_WRITE);
             QueuePair a = pd.createQueuePair(config(cqA, cqA)
                     .capabilities(QpCapabilities.defaults().withMaxSendSge(3)).build());
             QueuePair b = pd.createQueuePair(config(cqB, cqB)
                     .capabilities(QpCapabilities.defaults().withMaxRecvSge(3)).build());
             SendChain sends = SendChain.allocate(4, 3);
             RecvChain recvs = RecvChain.allocate(4, 3)) {
            QueuePair.connectLoopback(a, b);
            check(a.state() == QpState.RTS && b.state() == QpState.RTS, "both queue pairs in RTS");
            // three single-entry messages (1 byte, half and all of max_msg_sz 1024) and one gathered from three entries
            int[] lengths = {1, 512, 1024};
            for (int m = 0; m < 3; m++) {
                recvs.get(m).wrId(10 + m).sge(mrB, 4096L * m, 1024);
            }
            recvs.get(3).wrId(13).sge(0, mrB, 12288, 100).sge(1, mrB, 12400, 100).sge(2, mrB, 12500, 100).numSge(3);
            b.postRecvOrThrow(recvs, 4);
            for (int m = 0; m < 3; m++) {
                fill(mrA, 4096L * m, lengths[m], m + 1);
                sends.get(m).wrId(m).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(mrA, 4096L * m, lengths[m]);
            }
            fill(mrA, 12288, 300, 9);
            sends.get(3).wrId(3).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                    .sge(0, mrA, 12288, 120).sge(1, mrA, 12408, 80).sge(2, mrA, 12488, 100).numSge(3);
            a.postSendOrThrow(sends, 4);
            List<long[]> sent = expectSuccess(cqA, 4, WcOpcode.SEND, a.qpNumber(), -1);
            check(Arrays.equals(ids(sent), new long[] {0, 1, 2, 3}), "send completions in order: " + Arrays.toString(ids(sent)));
            List<long[]> received = expectSuccess(cqB, 4, WcOpcode.RECV, b.qpNumber(), -1);
            check(Arrays.equals(ids(received), new long[] {10, 11, 12, 13}), "receive completions in order");
            for (int m = 0; m < 3; m++) {
                check(received.get(m)[1] == lengths[m], "message " + m + " byte_len " + received.get(m)[1]);
                checkBytes(mrA, 4096L * m, mrB, 4096L * m, lengths[m], "message " + m);
                check(mrB.segment().get(ValueLayout.JAVA_BYTE, 4096L * m + lengths[m]) == 0, "nothing past message " + m);
            }
            check(received.get(3)[1] == 300, "byte_len of the gathered message: " + received.get(3)[1]);
            checkBytes(mrA, 12288, mrB, 12288, 100, "scattered part 1");
            checkBytes(mrA, 12388, mrB, 12400, 100, "scattered part 2");
            checkBytes(mrA, 12488, mrB, 12500, 100, "scattered part 3");
        }
    }

    private void gateAtomics() {
        try (CompletionQueue cq = context.createCompletionQueue(4);
             MemoryRegion mr = pd.allocateAndRegister(64, Access.LOCAL_WRITE);
             QueuePair qp = pd.createQueuePair(config(cq, cq).build());
             SendChain sends = SendChain.allocate(1, 1)) {
            QueuePair.connectLoopback(qp, qp);
            sends.get(0).wrId(1).atomic(mr.address(), mr.rkey(), 0, 1).opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                    .flags(SendFlags.SIGNALED).sge(mr, 0, 8);
            UnsupportedVerbException e = expectRefusal(() -> qp.postSend(sends, 1), "ibv_post_send");
            check(e.getMessage().contains("no atomic operations"), e.getMessage());
            check(context.attributes().atomicCapability() == AtomicCapability.NONE, "device reports ATOMIC_NONE");
        }
    }

    /** The driver has no attach_mcast and leaves max_mcast_grp 0: the gate refuses before the kernel's EOPNOTSUPP. */
    private void gateMulticast() {
        try (CompletionQueue cq = context.createCompletionQueue(4);
             QueuePair qp = pd.createQueuePair(config(cq, cq).type(QpType.UD).build())) {
            Gid group = Gid.of(new byte[] {(byte) 0xff, 0x0e, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x70, 0x76});
            UnsupportedVerbException e = expectRefusal(() -> qp.attachMulticast(group, 0), "ibv_attach_mcast");
            check(e.getMessage().contains("no multicast"), e.getMessage());
            check(qp.multicastGroups().isEmpty(), "attached: " + qp.multicastGroups());
            check(context.attributes().maxMcastGrp() == 0, "device reports max_mcast_grp "
                    + context.attributes().maxMcastGrp());
        }
    }

    private void gateInline() {
        try (CompletionQueue cq = context.createCompletionQueue(4)) {
            UnsupportedVerbException e = expectRefusal(() -> pd.createQueuePair(config(cq, cq)
                    .capabilities(QpCapabilities.defaults().withMaxInlineData(64)).build()),
                    "ibv_create_qp");
            check(e.getMessage().contains("forces max_inline_data to 0"), e.getMessage());
            try (MemoryRegion mr = pd.allocateAndRegister(64, Access.LOCAL_WRITE);
                 QueuePair qp = pd.createQueuePair(config(cq, cq).build());
                 SendChain sends = SendChain.allocate(1, 1)) {
                check(qp.capabilities().maxInlineData() == 0, "max_inline_data " + qp.capabilities().maxInlineData());
                QueuePair.connectLoopback(qp, qp);
                sends.get(0).wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED | SendFlags.INLINE).sge(mr, 0, 16);
                expectRefusal(() -> qp.postSend(sends, 1), "ibv_post_send");
            }
        }
    }

    private void gateQueuePairTypes() {
        try (CompletionQueue cq = context.createCompletionQueue(4)) {
            for (QpType type : new QpType[] {QpType.UC, QpType.RAW_PACKET}) {
                UnsupportedVerbException e = expectRefusal(() -> pd.createQueuePair(config(cq, cq).type(type).build()),
                        "ibv_create_qp");
                check(e.getMessage().contains("RC and UD queue pairs only"), e.getMessage());
            }
        }
    }

    private void gateUdLimit() {
        List<QueuePair> open = new ArrayList<>();
        try (CompletionQueue cq = context.createCompletionQueue(4)) {
            for (int i = 0; i < 3; i++) {
                open.add(pd.createQueuePair(config(cq, cq).type(QpType.UD).build()));
            }
            if (expected == HardwareClass.PVRDMA_HWV13) {
                UnsupportedVerbException e = expectRefusal(() -> pd.createQueuePair(config(cq, cq).type(QpType.UD).build()),
                        "ibv_create_qp");
                check(e.getMessage().contains("at most 3 UD queue pairs and 3 are open"), e.getMessage());
                open.removeFirst().close();
                open.add(pd.createQueuePair(config(cq, cq).type(QpType.UD).build()));
            } else {
                open.add(pd.createQueuePair(config(cq, cq).type(QpType.UD).build()));
                check(open.size() == 4, "HWv14-class: a 4th UD queue pair");
            }
        } finally {
            for (QueuePair qp : open) {
                qp.close();
            }
        }
    }

    private void gateRemoteAccess() {
        UnsupportedVerbException e = expectRefusal(
                () -> pd.allocateAndRegister(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE).close(), "ibv_reg_mr");
        check(e.getMessage().contains("rkey 0xffffffff"), e.getMessage());
        expectRefusal(() -> pd.allocateAndRegister(4096, Access.REMOTE_READ).close(), "ibv_reg_mr");
        try (MemoryRegion local = pd.allocateAndRegister(4096, Access.LOCAL_WRITE)) {
            check(local.rkey() == -1, "QEMU's model gives rkey 0xffffffff: 0x" + Integer.toHexString(local.rkey()));
        }
    }

    private void gateOpcodes() {
        try (CompletionQueue cq = context.createCompletionQueue(8);
             MemoryRegion mr = pd.allocateAndRegister(4096, Access.LOCAL_WRITE);
             QueuePair a = pd.createQueuePair(config(cq, cq).build());
             QueuePair b = pd.createQueuePair(config(cq, cq).build());
             SendChain sends = SendChain.allocate(2, 1);
             RecvChain recvs = RecvChain.allocate(1, 1)) {
            QueuePair.connectLoopback(a, b);
            for (WrOpcode op : new WrOpcode[] {WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.RDMA_READ,
                    WrOpcode.SEND_WITH_IMM}) {
                // a chain of a valid SEND and the refused request: nothing may be posted
                sends.get(0).wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(mr, 0, 16);
                sends.get(1).wrId(2).opcode(op).flags(SendFlags.SIGNALED).sge(mr, 0, 16).remote(mr.address(), mr.rkey());
                UnsupportedVerbException e = expectRefusal(() -> a.postSend(sends, 2), "ibv_post_send");
                check(e.getMessage().contains("work request 1 is " + op + ", which would arrive as a plain SEND"), e.getMessage());
            }
            // nothing was posted, and the queue pairs still work
            recvs.get(0).wrId(7).sge(mr, 2048, 64);
            b.postRecvOrThrow(recvs, 1);
            fill(mr, 0, 16, 77);
            a.postSendOrThrow(sends, 1);
            List<long[]> done = expectSuccess(cq, 2, null, -1, -1);
            check(Arrays.stream(ids(done)).sorted().boxed().toList().equals(List.of(1L, 7L)), "only the SEND and its receive");
            checkBytes(mr, 0, mr, 2048, 16, "the SEND after the refusals");
        }
    }

    // ---------------------------------------------------------------------------------------------
    // helpers

    private QpConfig.Builder config(CompletionQueue sendCq, CompletionQueue recvCq) {
        return QpConfig.builder(sendCq, recvCq).capabilities(QpCapabilities.of(8, 8)).gidIndex(gidIndex);
    }

    /**
     * Polls until {@code count} completions arrived, checks each is SUCCESS (and, when given, its opcode,
     * queue pair and length) and returns {wr_id, byte_len} per completion in arrival order.
     */
    private List<long[]> expectSuccess(CompletionQueue cq, int count, WcOpcode opcode, int qpNumber, int byteLength) {
        List<long[]> done = new ArrayList<>();
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (done.size() < count) {
            int n = cq.poll(completions, Math.min(8, count - done.size()));
            check(n >= 0, "ibv_poll_cq returned " + n);
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = completions.get(i);
                String what = "completion wr_id " + wc.wrId() + ": " + wc.status() + " " + wc.opcode() + " " + wc.byteLength()
                        + " bytes on QP " + wc.qpNumber();
                check(wc.status() == WcStatus.SUCCESS, what);
                check(opcode == null || wc.opcode() == opcode, what + ", expected " + opcode);
                check(qpNumber < 0 || wc.qpNumber() == qpNumber, what + ", expected QP " + qpNumber);
                check(byteLength < 0 || wc.byteLength() == byteLength, what + ", expected " + byteLength + " bytes");
                check(!wc.hasImmediateData(), what + " carries no immediate data");
                done.add(new long[] {wc.wrId(), wc.byteLength()});
            }
            if (n == 0 && System.nanoTime() > deadline) {
                throw new AssertionError("only " + done.size() + " of " + count + " completions within "
                        + TIMEOUT_NANOS / 1_000_000_000L + " s");
            }
        }
        return done;
    }

    private interface Action {
        void run();
    }

    private static UnsupportedVerbException expectRefusal(Action action, String verb) {
        try {
            action.run();
        } catch (UnsupportedVerbException e) {
            check(e.verb().equals(verb), "refused verb " + e.verb() + ", expected " + verb + ": " + e.getMessage());
            return e;
        }
        throw new AssertionError(verb + " was not refused");
    }

    private static long[] ids(List<long[]> completions) {
        return completions.stream().mapToLong(c -> c[0]).toArray();
    }

    private static boolean contains(List<String> lines, String text) {
        return lines.stream().anyMatch(line -> line.contains(text));
    }

    private static void fill(MemoryRegion mr, long offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            mr.segment().set(ValueLayout.JAVA_BYTE, offset + i, (byte) (seed * 31 + i * 7 + (i >>> 8) + 1));
        }
    }

    private static void checkBytes(MemoryRegion from, long fromOffset, MemoryRegion to, long toOffset, int length, String what) {
        long mismatch = from.segment().asSlice(fromOffset, length).mismatch(to.segment().asSlice(toOffset, length));
        check(mismatch < 0, what + ": " + length + " bytes differ from byte " + mismatch);
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }
}
