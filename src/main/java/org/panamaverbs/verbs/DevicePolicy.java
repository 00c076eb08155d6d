package org.panamaverbs.verbs;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Every gate in one place: what a device allows, derived from its {@link DeviceProfile} (detected or
 * emulated), and the {@link UnsupportedVerbException} for what it does not. The verbs classes consult the
 * context's policy when they create objects, and a queue pair keeps it in one final field for the checks
 * on the data path ({@link #checkSend}), which run only when a chain holds special requests or the policy
 * says every post needs them ({@link #checksEveryPost}).
 *
 * <p>One subclass per device class: {@link Generic} gates only by what a device reports (no atomics when
 * {@code atomic_cap} is NONE, no shared receive queues when {@code max_srq} is 0); {@link Pvrdma} adds what
 * VMware's paravirtual device lacks on each hardware version, and what QEMU's model of it cannot carry.
 * Another device class with quirks of its own is one more subclass here.
 */
abstract sealed class DevicePolicy permits DevicePolicy.Generic, DevicePolicy.Pvrdma {
    private static final int REMOTE_ACCESS = Access.REMOTE_WRITE.bit() | Access.REMOTE_READ.bit() | Access.REMOTE_ATOMIC.bit();
    private static final int DEFAULT_ACCESS = Access.bits(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);

    final DeviceProfile profile;
    final DeviceAttributes device;
    final String deviceName;

    private DevicePolicy(DeviceProfile profile, DeviceAttributes device, String deviceName) {
        this.profile = profile;
        this.device = device;
        this.deviceName = deviceName;
    }

    /** The policy for a device of {@code profile} with {@code device}'s limits. */
    static DevicePolicy of(DeviceProfile profile, DeviceAttributes device, String deviceName) {
        return profile.hardwareClass().isPvrdma() ? new Pvrdma(profile, device, deviceName)
                : new Generic(profile, device, deviceName);
    }

    final DeviceProfile.Capabilities capabilities() {
        return profile.capabilities();
    }

    // Each gate is a refusal (null when allowed) and a require method that throws it: the verbs call the
    // require methods, capabilities() reports the refusals, so the report cannot drift from the gates.

    /** Refusal of {@code ibv_create_srq}, or null. */
    abstract UnsupportedVerbException sharedReceiveQueueRefusal();

    /** Refusal of {@code ibv_create_qp} for {@code type} with {@code liveUdQueuePairs} UD queue pairs already open, or null. */
    abstract UnsupportedVerbException queuePairTypeRefusal(QpType type, int liveUdQueuePairs);

    /** Refusal of atomic work requests (compare-and-swap, fetch-and-add), or null. */
    abstract UnsupportedVerbException atomicsRefusal();

    /** Refusal of inline data ({@code max_inline_data} at creation, {@code IBV_SEND_INLINE} at post), or null. */
    abstract UnsupportedVerbException inlineRefusal(String verb);

    /** Refusal of {@code ibv_attach_mcast}, or null. */
    abstract UnsupportedVerbException multicastRefusal();

    /** Refusal of {@code rdma_create_ep}, or null. */
    abstract UnsupportedVerbException createEndpointRefusal();

    private void throwIfRefused(UnsupportedVerbException refusal) {
        if (refusal != null) {
            throw refused(refusal);
        }
    }

    /**
     * Reports {@code refusal} (INFO on the {@code org.panamaverbs.verbs} logger, a {@code VerbRefused} JFR event)
     * and returns it for the caller to throw: every refusal a verb throws passes here, the reports of
     * {@link #verdicts} do not. On the data path this runs only when a post is refused.
     */
    final UnsupportedVerbException refused(UnsupportedVerbException refusal) {
        org.panamaverbs.internal.ControlEvents.verbRefused(deviceName, refusal.verb(), profile.hardwareClass().name(),
                profile.emulated(), refusal.getMessage());
        return refusal;
    }

    /** Gate of {@code ibv_create_srq}. */
    final void requireSharedReceiveQueues() {
        throwIfRefused(sharedReceiveQueueRefusal());
    }

    /** Gate of {@code ibv_create_qp} for {@code type}, with {@code liveUdQueuePairs} UD queue pairs already open. */
    final void requireQueuePairType(QpType type, int liveUdQueuePairs) {
        throwIfRefused(queuePairTypeRefusal(type, liveUdQueuePairs));
    }

    /** Gate of atomic work requests (compare-and-swap, fetch-and-add). */
    final void requireAtomics() {
        throwIfRefused(atomicsRefusal());
    }

    /** Gate of inline data ({@code max_inline_data} at creation, {@code IBV_SEND_INLINE} at post). */
    final void requireInline(String verb) {
        throwIfRefused(inlineRefusal(verb));
    }

    /** Gate of {@code ibv_attach_mcast}. */
    final void requireMulticast() {
        throwIfRefused(multicastRefusal());
    }

    /** Gate of {@code rdma_create_ep}. */
    final void requireCreateEndpoint() {
        throwIfRefused(createEndpointRefusal());
    }

    /** Refusal of {@code ibv_reg_mr} with remote access flags ({@link Access#REMOTE_WRITE} and the like), or null. */
    final UnsupportedVerbException remoteAccessRefusal(int accessBits) {
        if (!capabilities().rdmaAndImmediate() && (accessBits & REMOTE_ACCESS) != 0) {
            return new UnsupportedVerbException("ibv_reg_mr", QEMU_MODEL + " and gives every memory region rkey"
                    + " 0xffffffff, so remote access cannot work", ONLY_SEND_REMEDY);
        }
        return null;
    }

    /** Gate of {@code ibv_reg_mr} with remote access flags ({@link Access#REMOTE_WRITE} and the like). */
    final void requireRemoteAccess(int accessBits) {
        throwIfRefused(remoteAccessRefusal(accessBits));
    }

    /** Refusal of a send request with {@code opcode} at position {@code index} of a chain, or null. */
    final UnsupportedVerbException opcodeRefusal(WrOpcode opcode, int index) {
        if (!capabilities().rdmaAndImmediate() && opcode != WrOpcode.SEND) {
            return new UnsupportedVerbException("ibv_post_send", QEMU_MODEL + "; work request " + index + " is "
                    + opcode + ", which would arrive as a plain SEND" + (opcode == WrOpcode.SEND_WITH_IMM
                    || opcode == WrOpcode.RDMA_WRITE_WITH_IMM ? " without its immediate data" : ""), ONLY_SEND_REMEDY);
        }
        return null;
    }

    /** Gate of a send request with {@code opcode} (checked at post only where {@link #checksOpcodes()}). */
    final void requireOpcode(WrOpcode opcode, int index) {
        throwIfRefused(opcodeRefusal(opcode, index));
    }

    /** {@code device_cap_flags} bits of memory windows: {@code IBV_DEVICE_MEM_WINDOW}, {@code _TYPE_2A}, {@code _TYPE_2B}. */
    private static final int MEMORY_WINDOW_FLAGS = 1 << 17 | 1 << 23 | 1 << 24;

    /**
     * Every {@link Capability} as this policy answers it, for {@link Context#capabilities()}: the refused and
     * limited ones carry the message of the exception their gate throws.
     *
     * @param gids           the GID tables of every port
     * @param rdmacmProblem  why librdmacm does not load, or null when it does
     */
    final List<CapabilityVerdict> verdicts(List<GidEntry> gids, String rdmacmProblem) {
        List<CapabilityVerdict> verdicts = new ArrayList<>();
        for (Capability capability : Capability.values()) {
            verdicts.add(verdict(capability, gids, rdmacmProblem));
        }
        return List.copyOf(verdicts);
    }

    private CapabilityVerdict verdict(Capability capability, List<GidEntry> gids, String rdmacmProblem) {
        DeviceProfile.Capabilities allowed = capabilities();
        int udLimit = allowed.maxUdQueuePairs();
        return switch (capability) {
            case RC_QUEUE_PAIRS -> gated(capability, queuePairRefusal(QpType.RC, 0, 0), "max_qp " + device.maxQp());
            case UD_QUEUE_PAIRS -> gated(capability, queuePairRefusal(QpType.UD, 0, 0), "");
            case UD_QUEUE_PAIR_COUNT -> udLimit < 0
                    ? new CapabilityVerdict(capability, CapabilityVerdict.Status.ALLOWED, "up to the device's max_qp "
                            + device.maxQp(), null)
                    : new CapabilityVerdict(capability, CapabilityVerdict.Status.LIMITED, "at most " + udLimit
                            + " open at once per context", queuePairRefusal(QpType.UD, 0, udLimit).getMessage());
            case UC_QUEUE_PAIRS -> gated(capability, queuePairRefusal(QpType.UC, 0, 0), "");
            case RAW_PACKET_QUEUE_PAIRS -> gated(capability, queuePairRefusal(QpType.RAW_PACKET, 0, 0), "");
            case XRC_QUEUE_PAIRS -> gated(capability, queuePairRefusal(QpType.XRC_SEND, 0, 0), "");
            case SHARED_RECEIVE_QUEUES -> gated(capability, sharedReceiveQueueRefusal(), "max_srq " + device.maxSrq());
            case ATOMICS -> gated(capability, atomicsRefusal(), "atomic_cap " + device.atomicCapability());
            case MULTICAST -> gated(capability, multicastRefusal(), "max_mcast_grp " + device.maxMcastGrp()
                    + ", max_mcast_qp_attach " + device.maxMcastQpAttach());
            case INLINE_DATA -> gated(capability, inlineRefusal("ibv_create_qp"), inlineRefusal("ibv_create_qp") != null ? ""
                    : "up to the max_inline_data ibv_create_qp grants the queue pair");
            case OPCODE_SEND -> gated(capability, opcodeRefusal(WrOpcode.SEND, 0), "");
            case OPCODE_SEND_WITH_IMM -> gated(capability, opcodeRefusal(WrOpcode.SEND_WITH_IMM, 0), "");
            case OPCODE_RDMA_WRITE -> gated(capability, opcodeRefusal(WrOpcode.RDMA_WRITE, 0), "");
            case OPCODE_RDMA_WRITE_WITH_IMM -> gated(capability, opcodeRefusal(WrOpcode.RDMA_WRITE_WITH_IMM, 0), "");
            case OPCODE_RDMA_READ -> gated(capability, opcodeRefusal(WrOpcode.RDMA_READ, 0), "");
            case REMOTE_ACCESS -> gated(capability, remoteAccessRefusal(REMOTE_ACCESS), "");
            case ROCE_V1 -> roce(capability, GidType.ROCE_V1, allowed.roceV1(), gids);
            case ROCE_V2 -> roce(capability, GidType.ROCE_V2, allowed.roceV2(), gids);
            case MEMORY_WINDOWS -> memoryWindows(capability);
            case EXTENDED_VERBS -> extendedVerbs(capability);
            case RDMA_CM -> rdmacmProblem != null ? absentRdmacm(capability, rdmacmProblem)
                    : new CapabilityVerdict(capability, CapabilityVerdict.Status.ALLOWED, device.maxQpRdAtom() == 0
                            ? "responder resources and initiator depth are capped at max_qp_rd_atom 0 and"
                                    + " max_qp_init_rd_atom " + device.maxQpInitRdAtom() : "", null);
            case RDMA_CREATE_EP -> rdmacmProblem != null ? absentRdmacm(capability, rdmacmProblem)
                    : gated(capability, createEndpointRefusal(), "");
        };
    }

    private static CapabilityVerdict gated(Capability capability, UnsupportedVerbException refusal, String detail) {
        return refusal == null ? new CapabilityVerdict(capability, CapabilityVerdict.Status.ALLOWED, detail, null)
                : new CapabilityVerdict(capability, CapabilityVerdict.Status.REFUSED, detail, refusal.getMessage());
    }

    private CapabilityVerdict roce(Capability capability, GidType type, boolean allowed, List<GidEntry> gids) {
        List<String> where = gids.stream().filter(g -> g.type() == type)
                .map(g -> "port " + g.port() + " index " + g.index()).toList();
        if (allowed) {
            return new CapabilityVerdict(capability, CapabilityVerdict.Status.ALLOWED, "GIDs at " + String.join(", ", where), null);
        }
        String why = where.isEmpty() ? "no " + capability.label() + " GID on any port"
                : "the device has " + capability.label() + " GIDs (" + String.join(", ", where) + "), but a " + profile.hardwareClass()
                        .description() + " host has none: not gated, so pick GIDs of another type to behave as it would";
        return new CapabilityVerdict(capability, CapabilityVerdict.Status.ABSENT, why, null);
    }

    private CapabilityVerdict memoryWindows(Capability capability) {
        if (profile.hardwareClass().isPvrdma()) {
            return new CapabilityVerdict(capability, CapabilityVerdict.Status.ABSENT, "PVRDMA has none on any hardware"
                    + " version: ibv_alloc_mw fails with EOPNOTSUPP; Panama Verbs has no memory-window API", null);
        }
        boolean reported = (device.deviceCapFlags() & MEMORY_WINDOW_FLAGS) != 0;
        return new CapabilityVerdict(capability, CapabilityVerdict.Status.ABSENT, (reported
                ? "device_cap_flags 0x" + HexFormat.of().toHexDigits(device.deviceCapFlags()) + " reports memory windows (usable from C); "
                : "device_cap_flags 0x" + HexFormat.of().toHexDigits(device.deviceCapFlags()) + " reports none; ")
                + "Panama Verbs has no memory-window API", null);
    }

    private CapabilityVerdict extendedVerbs(Capability capability) {
        if (profile.hardwareClass().isPvrdma()) {
            return new CapabilityVerdict(capability, CapabilityVerdict.Status.ABSENT, "the vmw_pvrdma provider has none:"
                    + " ibv_create_cq_ex and ibv_create_qp_ex with send ops fail with EOPNOTSUPP; Panama Verbs posts"
                    + " through the legacy ibv_post_send, which it has", null);
        }
        return new CapabilityVerdict(capability, CapabilityVerdict.Status.ABSENT, "the provider decides (not gated);"
                + " Panama Verbs posts through the legacy ibv_post_send and uses no extended verb", null);
    }

    private static CapabilityVerdict absentRdmacm(Capability capability, String rdmacmProblem) {
        return new CapabilityVerdict(capability, CapabilityVerdict.Status.ABSENT,
                org.panamaverbs.internal.NativeLibrary.missingMessage(org.panamaverbs.internal.NativeLibrary.RDMACM,
                        rdmacmProblem), null);
    }

    /** Whether send requests need their opcode checked at post ({@link #requireOpcode}): only on QEMU's model. */
    final boolean checksOpcodes() {
        return !capabilities().rdmaAndImmediate();
    }

    /** Whether every post to a queue pair of {@code type} needs {@link #checkSend}, not only special chains. */
    final boolean checksEveryPost(QpType type) {
        return type == QpType.UD || checksOpcodes();
    }

    /** The gates of {@code ibv_create_qp} (and {@code rdma_create_qp}) for {@code config}. */
    final void checkQueuePair(QpConfig config, int liveUdQueuePairs) {
        throwIfRefused(queuePairRefusal(config.type(), config.capabilities().maxInlineData(), liveUdQueuePairs));
    }

    /** The first refusal of {@code ibv_create_qp} for a queue pair of {@code type} asking {@code maxInlineData}, or null. */
    final UnsupportedVerbException queuePairRefusal(QpType type, int maxInlineData, int liveUdQueuePairs) {
        UnsupportedVerbException refusal = queuePairTypeRefusal(type, liveUdQueuePairs);
        if (refusal == null && maxInlineData > 0) {
            refusal = inlineRefusal("ibv_create_qp");
        }
        if (refusal == null && type != QpType.RC && type != QpType.UD) {
            refusal = new UnsupportedVerbException("ibv_create_qp", "queue pair type " + type
                    + " is not implemented by this version of Panama Verbs", "use QpType.RC or QpType.UD");
        }
        return refusal;
    }

    /** INIT access flags when the caller names none: local write, remote write and read, and remote atomic with atomics. */
    final int defaultAccess() {
        return capabilities().atomics() ? DEFAULT_ACCESS | Access.REMOTE_ATOMIC.bit() : DEFAULT_ACCESS;
    }

    /**
     * The checks C leaves to the device, which may fail obscurely or, for some providers, crash or mis-encode:
     * UD requests need an open address handle and a payload within the path MTU; atomics need a device with
     * atomics and exactly one 8-byte local entry; inline payloads must fit the queue pair's
     * {@code max_inline_data}; on QEMU's PVRDMA model only SEND travels. Nothing of the chain is posted when
     * one request fails.
     */
    final void checkSend(QueuePair qp, SendChain requests, int count) {
        QpType type = qp.config().type();
        for (int i = 0; i < Math.min(count, requests.capacity()); i++) {
            int special = requests.special(i);
            if (type == QpType.UD) {
                checkDatagram(qp, requests, i);
            }
            if ((special & SendChain.SPECIAL_ATOMIC) != 0) {
                requireAtomics();
                SendWorkRequest wr = requests.get(i);
                if (wr.numSge() != 1 || requests.sgeLength(i, 0) != 8) {
                    throw new IllegalArgumentException("atomic work request " + i + " needs exactly one 8-byte local"
                            + " scatter-gather entry for the old value, not " + wr.numSge() + " entries of "
                            + wr.payloadLength() + " bytes");
                }
            }
            if ((special & SendChain.SPECIAL_INLINE) != 0) {
                checkInline(qp, requests, i);
            }
            if (checksOpcodes()) { // after the atomic check, whose refusal says more
                requireOpcode(requests.get(i).opcode(), i);
            }
        }
    }

    private static void checkDatagram(QueuePair qp, SendChain requests, int i) {
        AddressHandle ah = requests.addressHandle(i);
        if (ah == null) {
            // the provider would dereference a NULL address handle
            throw new IllegalArgumentException("work request " + i + " on UD " + qp
                    + " has no address handle: call SendWorkRequest.ud(handle, remoteQpn, qkey)");
        }
        if (ah.isClosed()) {
            throw new IllegalStateException("work request " + i + " names " + ah + ", which is closed");
        }
        long payload = requests.get(i).payloadLength();
        int limit = qp.maxDatagramSize();
        if (payload > limit) {
            throw new IllegalArgumentException("UD work request " + i + " carries " + payload + " bytes; UD messages"
                    + " are limited to the path MTU, " + limit + " bytes on port " + qp.config().port()
                    + (limit == 0 ? " (call readyForDatagrams first)" : ""));
        }
    }

    private void checkInline(QueuePair qp, SendChain requests, int i) {
        requireInline("ibv_post_send");
        long payload = requests.get(i).payloadLength();
        int maxInline = qp.capabilities().maxInlineData();
        if (maxInline == 0) {
            throw refused(new UnsupportedVerbException("ibv_post_send", qp + " has max_inline_data 0 (work request "
                    + i + " is IBV_SEND_INLINE)", "create the queue pair with capabilities withMaxInlineData(" + payload
                    + ") or leave out SendFlags.INLINE"));
        }
        if (payload > maxInline) {
            throw new IllegalArgumentException("inline work request " + i + " carries " + payload
                    + " bytes, more than the queue pair's max_inline_data " + maxInline);
        }
    }

    private static final String QEMU_MODEL = "this device is QEMU's PVRDMA model (vendor_id 0), which posts every"
            + " send request to its backend as a plain SEND";
    private static final String ONLY_SEND_REMEDY = "use SEND/RECV there; VMware's PVRDMA (ESXi, every hardware version)"
            + " and other devices carry RDMA WRITE/READ and immediate data";

    /** Any device that is not PVRDMA: gated only by what it reports. */
    static final class Generic extends DevicePolicy {
        Generic(DeviceProfile profile, DeviceAttributes device, String deviceName) {
            super(profile, device, deviceName);
        }

        @Override
        UnsupportedVerbException sharedReceiveQueueRefusal() {
            return capabilities().sharedReceiveQueues() ? null : new UnsupportedVerbException("ibv_create_srq", "device "
                    + deviceName + " reports max_srq = " + device.maxSrq(), "shared receive queues need a device that reports max_srq > 0");
        }

        @Override
        UnsupportedVerbException queuePairTypeRefusal(QpType type, int liveUdQueuePairs) {
            return null; // the device decides; ibv_create_qp's errno says what it refused
        }

        @Override
        UnsupportedVerbException atomicsRefusal() {
            return capabilities().atomics() ? null : new UnsupportedVerbException("ibv_post_send", "device " + deviceName
                    + " reports atomic_cap IBV_ATOMIC_NONE", "use a device with atomic support (rxe, mlx5)");
        }

        @Override
        UnsupportedVerbException inlineRefusal(String verb) {
            return null; // max_inline_data is checked against the queue pair's granted capacity
        }

        @Override
        UnsupportedVerbException multicastRefusal() {
            return device.maxMcastGrp() > 0 ? null : new UnsupportedVerbException("ibv_attach_mcast", "device "
                    + deviceName + " reports max_mcast_grp = 0", "multicast needs a device that reports"
                    + " max_mcast_grp > 0 (rxe, mlx5)");
        }

        @Override
        UnsupportedVerbException createEndpointRefusal() {
            return null;
        }
    }

    /**
     * VMware's paravirtual RDMA device (detected or emulated): RC and UD queue pairs only, no atomics, no multicast, no
     * inline data; HWv13 (ESXi 6.5) has no shared receive queues and at most 3 UD queue pairs; VMware lists
     * {@code rdma_create_ep} as unsupported; QEMU's model also carries nothing but SEND.
     */
    static final class Pvrdma extends DevicePolicy {
        Pvrdma(DeviceProfile profile, DeviceAttributes device, String deviceName) {
            super(profile, device, deviceName);
        }

        private String what() {
            return (profile.emulated() ? "this device runs under an emulated " : "this device is ")
                    + profile.hardwareClass().description() + (profile.emulated() ? " profile" : "-class");
        }

        @Override
        UnsupportedVerbException sharedReceiveQueueRefusal() {
            return capabilities().sharedReceiveQueues() ? null : new UnsupportedVerbException("ibv_create_srq", what()
                    + ": max_srq = " + (profile.hardwareClass() == HardwareClass.PVRDMA_HWV13 ? 0 : device.maxSrq()),
                    "shared receive queues need PVRDMA HWv14 (ESXi 6.7) or later");
        }

        @Override
        UnsupportedVerbException queuePairTypeRefusal(QpType type, int liveUdQueuePairs) {
            if (type != QpType.RC && type != QpType.UD) {
                return new UnsupportedVerbException("ibv_create_qp", what() + ", which supports RC and UD queue pairs"
                        + " only, not " + type, "use RC or UD; PVRDMA has no " + type + " on any hardware version");
            }
            int limit = capabilities().maxUdQueuePairs();
            if (type == QpType.UD && limit >= 0 && liveUdQueuePairs >= limit) {
                return new UnsupportedVerbException("ibv_create_qp", what() + ", which allows at most " + limit
                        + " UD queue pairs and " + liveUdQueuePairs + " are open",
                        "close one first; PVRDMA HWv14 (ESXi 6.7) has no such limit");
            }
            return null;
        }

        @Override
        UnsupportedVerbException atomicsRefusal() {
            return new UnsupportedVerbException("ibv_post_send", what() + ", which has no atomic operations",
                    "use a device with atomic support (rxe, mlx5); PVRDMA has none on any hardware version");
        }

        @Override
        UnsupportedVerbException inlineRefusal(String verb) {
            return new UnsupportedVerbException(verb, what() + ", whose driver forces max_inline_data to 0",
                    "send from registered memory without SendFlags.INLINE");
        }

        @Override
        UnsupportedVerbException multicastRefusal() {
            return new UnsupportedVerbException("ibv_attach_mcast", what() + ", which has no multicast (its driver"
                    + " implements no attach_mcast; the kernel answers EOPNOTSUPP)", "send to each receiver's UD queue"
                    + " pair instead; PVRDMA has no multicast on any hardware version");
        }

        @Override
        UnsupportedVerbException createEndpointRefusal() {
            return new UnsupportedVerbException("rdma_create_ep", what() + "; VMware lists rdma_create_ep as unsupported"
                    + " on PVRDMA", "create the id with rdma_create_id (CmId.create) and its queue pair with"
                    + " rdma_create_qp (CmId.createQueuePair), the path VMware documents");
        }
    }
}
