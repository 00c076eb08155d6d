package org.panamaverbs.verbs;

import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.PortSpace;

/**
 * Checks {@link Context#capabilities()} (what {@code scripts/device-report} prints) against the device: each
 * capability is attempted, and an allowed one must work (traffic checked byte for byte, immediates and atomic
 * results included), a refused one must throw exactly the stated message, a limited one must work up to the
 * limit and then throw it, an absent RoCE version must have no usable GID. Memory windows and extended verbs
 * have no Panama Verbs API to attempt: only their status is checked. Plain Java, no JUnit, so that both the
 * device tier ({@code CapabilityTableDeviceTest}) and the PVRDMA tier ({@code PvrdmaDeviceCheck}) run it.
 */
final class CapabilityTableCheck {
    private static final long TIMEOUT_NANOS = PvrdmaDeviceCheck.TIMEOUT_NANOS;

    private final Context context;
    private final int gidIndex;
    private final InetAddress cmAddress;

    /**
     * @param context   the context whose verdicts are checked (detected or emulated profile)
     * @param gidIndex  the GID index for queue pairs, or -1 for the default
     * @param cmAddress the device's IP address, for the rdma_cm attempts
     */
    CapabilityTableCheck(Context context, int gidIndex, InetAddress cmAddress) {
        this.context = context;
        this.gidIndex = gidIndex;
        this.cmAddress = cmAddress;
    }

    /** Checks every verdict; returns one line per capability, and throws AssertionError naming every disagreement. */
    List<String> run() {
        List<String> lines = new ArrayList<>();
        List<String> disagreements = new ArrayList<>();
        for (CapabilityVerdict verdict : context.capabilities()) {
            String line = verdict.capability() + " " + verdict.status();
            try {
                check(verdict);
                lines.add("agrees: " + line);
            } catch (RuntimeException | AssertionError e) {
                disagreements.add(line + ": " + e);
                lines.add("DISAGREES: " + line + ": " + e);
            }
        }
        if (!disagreements.isEmpty()) {
            throw new AssertionError(context.profile().hardwareClass() + (context.profile().emulated() ? " (emulated)" : "")
                    + ": " + disagreements.size() + " verdicts disagree with the device: " + String.join("; ", disagreements));
        }
        return lines;
    }

    private void check(CapabilityVerdict verdict) {
        switch (verdict.status()) {
            case ALLOWED -> {
                String refusal = attempt(verdict.capability());
                require(refusal == null, "allowed, but refused: " + refusal);
            }
            case REFUSED -> {
                String refusal = attempt(verdict.capability());
                require(verdict.refusal().equals(refusal), "refused with \"" + verdict.refusal() + "\", but the attempt gave "
                        + (refusal == null ? "success" : "\"" + refusal + "\""));
            }
            case LIMITED -> {
                require(verdict.capability() == Capability.UD_QUEUE_PAIR_COUNT, "only the UD count is limited");
                String refusal = udQueuePairs(context.profile()
                        .capabilities().maxUdQueuePairs() + 1); // the last one is refused
                require(verdict.refusal().equals(refusal), "past the limit \"" + verdict.refusal() + "\", but got " + refusal);
            }
            case ABSENT -> absent(verdict);
        }
    }

    private void absent(CapabilityVerdict verdict) {
        switch (verdict.capability()) {
            case ROCE_V1, ROCE_V2 -> {
                GidType type = verdict.capability() == Capability.ROCE_V1 ? GidType.ROCE_V1 : GidType.ROCE_V2;
                boolean present = context.gidTable(1).stream().anyMatch(g -> g.type() == type);
                require(!present || context.profile().emulated() && verdict.detail().contains("not gated"),
                        "absent, but port 1 has " + type + " GIDs and the profile is not emulated");
            }
            case MEMORY_WINDOWS, EXTENDED_VERBS, RDMA_CM, RDMA_CREATE_EP -> {
                // no Panama Verbs call to attempt (or librdmacm is missing): the detail says why
                require(!verdict.detail().isEmpty(), "an absent verdict says why");
            }
            default -> throw new AssertionError("absent is not an answer for " + verdict.capability());
        }
    }

    /** Attempts {@code capability}: null if it worked, else the refusal's message (other failures propagate). */
    private String attempt(Capability capability) {
        try {
            switch (capability) {
                case RC_QUEUE_PAIRS -> createQueuePair(QpType.RC, 0);
                case UD_QUEUE_PAIRS -> createQueuePair(QpType.UD, 0);
                case UC_QUEUE_PAIRS -> createQueuePair(QpType.UC, 0);
                case RAW_PACKET_QUEUE_PAIRS -> createQueuePair(QpType.RAW_PACKET, 0);
                case XRC_QUEUE_PAIRS -> createQueuePair(QpType.XRC_SEND, 0);
                case UD_QUEUE_PAIR_COUNT -> {
                    return udQueuePairs(DeviceProfile.HWV13_MAX_UD_QPS + 1); // more than the HWv13 limit
                }
                case SHARED_RECEIVE_QUEUES -> {
                    try (ProtectionDomain pd = context.allocateProtectionDomain()) {
                        pd.createSharedReceiveQueue(16, 1).close();
                    }
                }
                case INLINE_DATA -> traffic(WrOpcode.SEND, true);
                case ATOMICS -> traffic(WrOpcode.ATOMIC_FETCH_AND_ADD, false);
                case MULTICAST -> joinAndLeaveAGroup();
                case OPCODE_SEND -> traffic(WrOpcode.SEND, false);
                case OPCODE_SEND_WITH_IMM -> traffic(WrOpcode.SEND_WITH_IMM, false);
                case OPCODE_RDMA_WRITE -> traffic(WrOpcode.RDMA_WRITE, false);
                case OPCODE_RDMA_WRITE_WITH_IMM -> traffic(WrOpcode.RDMA_WRITE_WITH_IMM, false);
                case OPCODE_RDMA_READ -> traffic(WrOpcode.RDMA_READ, false);
                case REMOTE_ACCESS -> {
                    try (ProtectionDomain pd = context.allocateProtectionDomain()) {
                        pd.allocateAndRegister(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ).close();
                    }
                }
                case ROCE_V1, ROCE_V2 -> {
                    GidType type = capability == Capability.ROCE_V1 ? GidType.ROCE_V1 : GidType.ROCE_V2;
                    require(context.gidTable(1).stream().anyMatch(g -> g.type() == type), "no " + type + " GID on port 1");
                }
                case RDMA_CM -> {
                    try (CmEventChannel channel = CmEventChannel.create(); CmId id = CmId.create(channel, PortSpace.TCP)) {
                        id.bind(new InetSocketAddress(cmAddress, 0));
                        require(id.context().name().equals(context.name()), "rdma_cm bound to " + id.context().name());
                    }
                }
                case RDMA_CREATE_EP -> createEndpoint();
                case MEMORY_WINDOWS, EXTENDED_VERBS -> throw new AssertionError(capability + " cannot be attempted from Panama Verbs");
            }
            return null;
        } catch (UnsupportedVerbException e) {
            return e.getMessage();
        }
    }

    private void createQueuePair(QpType type, int maxInlineData) {
        try (ProtectionDomain pd = context.allocateProtectionDomain(); CompletionQueue cq = context.createCompletionQueue(4)) {
            pd.createQueuePair(config(cq).type(type)
                    .capabilities(QpCapabilities.defaults().withMaxInlineData(maxInlineData)).build()).close();
        }
    }

    /** A UD queue pair attaches to a group and detaches (the datagrams: {@code MulticastDeviceTest}). */
    private void joinAndLeaveAGroup() {
        Gid group = Gid.of(new byte[] {(byte) 0xff, 0x0e, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x70, 0x76});
        try (ProtectionDomain pd = context.allocateProtectionDomain(); CompletionQueue cq = context.createCompletionQueue(4);
             QueuePair qp = pd.createQueuePair(config(cq).type(QpType.UD).build())) {
            qp.attachMulticast(group, 0);
            require(qp.multicastGroups().size() == 1, "attached: " + qp.multicastGroups());
            qp.detachMulticast(group, 0);
        }
    }

    /** Opens {@code count} UD queue pairs in a new protection domain: null if all opened, else the refusal. */
    private String udQueuePairs(int count) {
        try (ProtectionDomain pd = context.allocateProtectionDomain(); CompletionQueue cq = context.createCompletionQueue(4)) {
            for (int i = 0; i < count; i++) {
                pd.createQueuePair(config(cq).type(QpType.UD).build());
            }
            return null;
        } catch (UnsupportedVerbException e) {
            return e.getMessage();
        }
    }

    /**
     * rdma_create_ep on the device's address. Under an emulated profile the gate is asked directly: rdma_cm ids
     * borrow librdmacm's device context, whose profile is the detected one (or the {@code panamaverbs.profile}
     * property's when it is first borrowed), so a context opened with {@link Rdma#open(String, HardwareClass)}
     * does not reach them; CmConnectionDeviceTest runs the real call under the property in a second JVM.
     */
    private void createEndpoint() {
        if (context.profile().emulated()) {
            context.policy().requireCreateEndpoint();
            return;
        }
        try (CmEventChannel channel = CmEventChannel.create();
             CmId id = CmId.createEndpoint(channel, new InetSocketAddress(cmAddress, 0), true, PortSpace.TCP,
                     Duration.ofMinutes(2))) {
            require(id.context().name().equals(context.name()), "rdma_create_ep bound to " + id.context().name());
        }
    }

    /**
     * One request of {@code opcode} (inline if asked) from one RC queue pair to another, and its effect checked:
     * the bytes received, written or read, the immediate, the atomic's old and new value.
     */
    private void traffic(WrOpcode opcode, boolean inline) {
        boolean remote = context.profile().capabilities().rdmaAndImmediate(); // QEMU's model refuses remote access
        Access[] access = remote ? new Access[] {Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC}
                : new Access[] {Access.LOCAL_WRITE};
        boolean atomic = opcode == WrOpcode.ATOMIC_FETCH_AND_ADD;
        boolean withImm = opcode == WrOpcode.SEND_WITH_IMM || opcode == WrOpcode.RDMA_WRITE_WITH_IMM;
        boolean consumesReceive = opcode == WrOpcode.SEND || withImm;
        try (ProtectionDomain pd = context.allocateProtectionDomain();
             CompletionQueue cq = context.createCompletionQueue(8);
             MemoryRegion mine = pd.allocateAndRegister(4096, access);
             MemoryRegion theirs = pd.allocateAndRegister(4096, access);
             QueuePair a = pd.createQueuePair(config(cq)
                     .capabilities(QpCapabilities.defaults().withMaxInlineData(inline ? 64 : 0)).build());
             QueuePair b = pd.createQueuePair(config(cq).build());
             SendChain sends = SendChain.allocate(1, 1);
             RecvChain recvs = RecvChain.allocate(1, 1)) {
            QueuePair.connectLoopback(a, b);
            int length = atomic ? 8 : 48;
            for (int i = 0; i < 64; i++) {
                mine.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 3));
                theirs.segment().set(ValueLayout.JAVA_BYTE, 1024 + i, (byte) (i * 5 + 11));
            }
            theirs.segment().set(ValueLayout.JAVA_LONG, 2048, 40);
            if (consumesReceive) {
                recvs.get(0).wrId(2).sge(theirs, 0, 1024);
                b.postRecvOrThrow(recvs, 1);
            }
            SendWorkRequest wr = sends.get(0).wrId(1).opcode(opcode).flags(SendFlags.SIGNALED | (inline ? SendFlags.INLINE : 0))
                    .sge(mine, 0, length);
            if (atomic) {
                wr.atomic(theirs.address() + 2048, theirs.rkey(), 2, 0);
            } else if (opcode != WrOpcode.SEND && opcode != WrOpcode.SEND_WITH_IMM) {
                wr.remote(theirs.address() + (opcode == WrOpcode.RDMA_READ ? 1024 : 0), theirs.rkey());
            }
            if (withImm) {
                wr.immediateData(0x5eed);
            }
            a.postSendOrThrow(sends, 1);
            List<int[]> done = await(cq, consumesReceive ? 2 : 1);
            if (withImm) {
                require(done.stream().anyMatch(d -> d[0] == 2 && d[1] == 1 && d[2] == 0x5eed), "the immediate arrived: " + done.size());
            }
            if (atomic) {
                require(mine.segment().get(ValueLayout.JAVA_LONG, 0) == 40, "fetch-and-add returned the old value 40");
                require(theirs.segment().get(ValueLayout.JAVA_LONG, 2048) == 42, "fetch-and-add made it 42");
            } else if (opcode == WrOpcode.RDMA_READ) {
                require(mine.segment().asSlice(0, length).mismatch(theirs.segment().asSlice(1024, length)) < 0, "read the remote bytes");
            } else {
                require(mine.segment().asSlice(0, length).mismatch(theirs.segment().asSlice(0, length)) < 0, opcode + " carried the bytes");
            }
        }
    }

    private QpConfig.Builder config(CompletionQueue cq) {
        QpConfig.Builder builder = QpConfig.builder(cq).capabilities(QpCapabilities.of(4, 4));
        return gidIndex >= 0 ? builder.gidIndex(gidIndex) : builder;
    }

    /** Polls until {@code count} completions arrived, all SUCCESS; returns {wr_id, has imm, imm} of each. */
    private static List<int[]> await(CompletionQueue cq, int count) {
        List<int[]> done = new ArrayList<>();
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        try (CompletionArray completions = CompletionArray.allocate(4)) {
            while (done.size() < count) {
                int n = cq.poll(completions, 4);
                require(n >= 0, "ibv_poll_cq returned " + n);
                for (int i = 0; i < n; i++) {
                    WorkCompletion wc = completions.get(i);
                    require(wc.status() == WcStatus.SUCCESS, "completion " + wc.wrId() + ": " + wc.status());
                    done.add(new int[] {(int) wc.wrId(), wc.hasImmediateData() ? 1 : 0, wc.immediateData()});
                }
                require(n > 0 || System.nanoTime() < deadline, "only " + done.size() + " of " + count + " completions");
            }
        }
        return done;
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }
}
