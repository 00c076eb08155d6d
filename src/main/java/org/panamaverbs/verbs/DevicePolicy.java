package org.panamaverbs.verbs;

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

    /** Gate of {@code ibv_create_srq}. */
    abstract void requireSharedReceiveQueues();

    /** Gate of {@code ibv_create_qp} for {@code type}, with {@code liveUdQueuePairs} UD queue pairs already open. */
    abstract void requireQueuePairType(QpType type, int liveUdQueuePairs);

    /** Gate of atomic work requests (compare-and-swap, fetch-and-add). */
    abstract void requireAtomics();

    /** Gate of inline data ({@code max_inline_data} at creation, {@code IBV_SEND_INLINE} at post). */
    abstract void requireInline(String verb);

    /** Gate of {@code rdma_create_ep}. */
    abstract void requireCreateEndpoint();

    /** Gate of {@code ibv_reg_mr} with remote access flags ({@link Access#REMOTE_WRITE} and the like). */
    final void requireRemoteAccess(int accessBits) {
        if (!capabilities().rdmaAndImmediate() && (accessBits & REMOTE_ACCESS) != 0) {
            throw new UnsupportedVerbException("ibv_reg_mr", QEMU_MODEL + " and gives every memory region rkey"
                    + " 0xffffffff, so remote access cannot work", ONLY_SEND_REMEDY);
        }
    }

    /** Gate of a send request with {@code opcode} (checked at post only where {@link #checksOpcodes()}). */
    final void requireOpcode(WrOpcode opcode, int index) {
        if (!capabilities().rdmaAndImmediate() && opcode != WrOpcode.SEND) {
            throw new UnsupportedVerbException("ibv_post_send", QEMU_MODEL + "; work request " + index + " is "
                    + opcode + ", which would arrive as a plain SEND" + (opcode == WrOpcode.SEND_WITH_IMM
                    || opcode == WrOpcode.RDMA_WRITE_WITH_IMM ? " without its immediate data" : ""), ONLY_SEND_REMEDY);
        }
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
        requireQueuePairType(config.type(), liveUdQueuePairs);
        if (config.maxInlineData() > 0) {
            requireInline("ibv_create_qp");
        }
        if (config.type() != QpType.RC && config.type() != QpType.UD) {
            throw new UnsupportedVerbException("ibv_create_qp", "queue pair type " + config.type()
                    + " is not implemented by this version of Panama Verbs", "use QpType.RC or QpType.UD");
        }
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
    final void checkSend(QueuePair qp, SendWorkRequests requests, int count) {
        QpType type = qp.config().type();
        for (int i = 0; i < Math.min(count, requests.capacity()); i++) {
            int special = requests.special(i);
            if (type == QpType.UD) {
                checkDatagram(qp, requests, i);
            }
            if ((special & SendWorkRequests.SPECIAL_ATOMIC) != 0) {
                requireAtomics();
                SendWorkRequest wr = requests.get(i);
                if (wr.numSge() != 1 || requests.sgeLength(i, 0) != 8) {
                    throw new IllegalArgumentException("atomic work request " + i + " needs exactly one 8-byte local"
                            + " scatter-gather entry for the old value, not " + wr.numSge() + " entries of "
                            + wr.payloadLength() + " bytes");
                }
            }
            if ((special & SendWorkRequests.SPECIAL_INLINE) != 0) {
                checkInline(qp, requests, i);
            }
            if (checksOpcodes()) { // after the atomic check, whose refusal says more
                requireOpcode(requests.get(i).opcode(), i);
            }
        }
    }

    private static void checkDatagram(QueuePair qp, SendWorkRequests requests, int i) {
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

    private void checkInline(QueuePair qp, SendWorkRequests requests, int i) {
        requireInline("ibv_post_send");
        long payload = requests.get(i).payloadLength();
        int maxInline = qp.capabilities().maxInlineData();
        if (maxInline == 0) {
            throw new UnsupportedVerbException("ibv_post_send", qp + " has max_inline_data 0 (work request "
                    + i + " is IBV_SEND_INLINE)", "create the queue pair with maxInlineData(" + payload
                    + ") or leave out SendFlags.INLINE");
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
        void requireSharedReceiveQueues() {
            if (!capabilities().sharedReceiveQueues()) {
                throw new UnsupportedVerbException("ibv_create_srq", "device " + deviceName + " reports max_srq = "
                        + device.maxSrq(), "shared receive queues need a device that reports max_srq > 0");
            }
        }

        @Override
        void requireQueuePairType(QpType type, int liveUdQueuePairs) {
            // the device decides; ibv_create_qp's errno says what it refused
        }

        @Override
        void requireAtomics() {
            if (!capabilities().atomics()) {
                throw new UnsupportedVerbException("ibv_post_send", "device " + deviceName
                        + " reports atomic_cap IBV_ATOMIC_NONE", "use a device with atomic support (rxe, mlx5)");
            }
        }

        @Override
        void requireInline(String verb) {
            // max_inline_data is checked against the queue pair's granted capacity
        }

        @Override
        void requireCreateEndpoint() {
        }
    }

    /**
     * VMware's paravirtual RDMA device (detected or emulated): RC and UD queue pairs only, no atomics, no
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
        void requireSharedReceiveQueues() {
            if (!capabilities().sharedReceiveQueues()) {
                throw new UnsupportedVerbException("ibv_create_srq", what() + ": max_srq = "
                        + (profile.hardwareClass() == HardwareClass.PVRDMA_HWV13 ? 0 : device.maxSrq()),
                        "shared receive queues need PVRDMA HWv14 (ESXi 6.7) or later");
            }
        }

        @Override
        void requireQueuePairType(QpType type, int liveUdQueuePairs) {
            if (type != QpType.RC && type != QpType.UD) {
                throw new UnsupportedVerbException("ibv_create_qp", what() + ", which supports RC and UD queue pairs"
                        + " only, not " + type, "use RC or UD; PVRDMA has no " + type + " on any hardware version");
            }
            int limit = capabilities().maxUdQueuePairs();
            if (type == QpType.UD && limit >= 0 && liveUdQueuePairs >= limit) {
                throw new UnsupportedVerbException("ibv_create_qp", what() + ", which allows at most " + limit
                        + " UD queue pairs and " + liveUdQueuePairs + " are open",
                        "close one first; PVRDMA HWv14 (ESXi 6.7) has no such limit");
            }
        }

        @Override
        void requireAtomics() {
            throw new UnsupportedVerbException("ibv_post_send", what() + ", which has no atomic operations",
                    "use a device with atomic support (rxe, mlx5); PVRDMA has none on any hardware version");
        }

        @Override
        void requireInline(String verb) {
            throw new UnsupportedVerbException(verb, what() + ", whose driver forces max_inline_data to 0",
                    "send from registered memory without SendFlags.INLINE");
        }

        @Override
        void requireCreateEndpoint() {
            throw new UnsupportedVerbException("rdma_create_ep", what() + "; VMware lists rdma_create_ep as unsupported"
                    + " on PVRDMA", "create the id with rdma_create_id (CmId.create) and its queue pair with"
                    + " rdma_create_qp (CmId.createQueuePair), the path VMware documents");
        }
    }
}
