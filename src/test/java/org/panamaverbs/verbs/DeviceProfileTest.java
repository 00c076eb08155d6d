package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Classification of recorded attribute sets (../shared/reference/pvrdma.md and real devices) and every gate. */
class DeviceProfileTest {

    private static DeviceAttributes attributes(int vendorId, int vendorPartId, int hwVersion, int maxSrq, AtomicCapability atomics) {
        boolean multicast = vendorId == 0xffffff; // rxe reports 8192 groups of 56 queue pairs; PVRDMA's driver 0
        return new DeviceAttributes("3.0.000", 1, 1, -1, 4096, vendorId, vendorPartId, hwVersion, 32768, 1024, 0x00201400,
                16, 16, 4096, 262144, 262144, 4096, 16, 16, atomics, multicast ? 8192 : 0, multicast ? 56 : 0, 4096, maxSrq, maxSrq == 0 ? 0 : 1024,
                maxSrq == 0 ? 0 : 16, 1, 1);
    }

    private static List<GidEntry> gids(GidType type) throws Exception {
        return List.of(new GidEntry(0, 1, Gid.of(InetAddress.getByName("fe80::250:56ff:feb2:668c")), type, 3),
                new GidEntry(1, 1, Gid.of(InetAddress.getByName("10.0.0.5")), type, 3));
    }

    // recorded sets
    private static DeviceProfile esxi65() throws Exception {
        return DeviceProfile.detect(attributes(0x15ad, 2080, 1, 0, AtomicCapability.NONE), gids(GidType.ROCE_V1));
    }

    private static DeviceProfile esxi67() throws Exception {
        return DeviceProfile.detect(attributes(0x15ad, 2080, 1, 4096, AtomicCapability.NONE), gids(GidType.ROCE_V2));
    }

    private static DeviceProfile qemuPvrdma(int maxSrq) throws Exception {
        return DeviceProfile.detect(attributes(0, 2080, 0, maxSrq, AtomicCapability.NONE), gids(GidType.ROCE_V1));
    }

    private static DeviceProfile rxe() throws Exception {
        return DeviceProfile.detect(attributes(0xffffff, 0, 0, 262144, AtomicCapability.HCA), gids(GidType.ROCE_V2));
    }

    private static DeviceProfile mlx5() throws Exception {
        return DeviceProfile.detect(attributes(0x02c9, 4119, 0, 8388608, AtomicCapability.HCA), gids(GidType.ROCE_V2));
    }

    @Test
    void esxi65IsHwv13() throws Exception {
        DeviceProfile p = esxi65();
        assertEquals(HardwareClass.PVRDMA_HWV13, p.hardwareClass());
        assertFalse(p.emulated());
        assertTrue(p.reasons().stream().anyMatch(r -> r.contains("VMware ESXi")), p.reasons().toString());
        assertTrue(p.reasons().stream().anyMatch(r -> r.contains("max_srq = 0")), p.reasons().toString());
        assertEquals(new DeviceProfile.Capabilities(false, false, 3, false, false, true, false, true), p.capabilities());
    }

    @Test
    void esxi67IsHwv14() throws Exception {
        DeviceProfile p = esxi67();
        assertEquals(HardwareClass.PVRDMA_HWV14, p.hardwareClass());
        assertEquals(new DeviceProfile.Capabilities(true, false, -1, false, false, false, true, true), p.capabilities());
    }

    @Test
    void qemusModelIsRecognisedByVendorIdZero() throws Exception {
        assertEquals(HardwareClass.PVRDMA_HWV14, qemuPvrdma(512).hardwareClass(), "default max_srq 512");
        assertEquals(HardwareClass.PVRDMA_HWV13, qemuPvrdma(0).hardwareClass(), "dev-caps-max-srq=0");
        assertTrue(qemuPvrdma(512).reasons().stream().anyMatch(r -> r.contains("QEMU")));
    }

    @Test
    void qemusModelRefusesWhatItCarriesAsPlainSend() throws Exception {
        for (DeviceProfile p : List.of(qemuPvrdma(512), qemuPvrdma(0))) {
            assertFalse(p.capabilities().rdmaAndImmediate());
            assertTrue(policy(p).checksOpcodes());
            assertDoesNotThrow(() -> policy(p).requireRemoteAccess(Access.LOCAL_WRITE.bit()));
            UnsupportedVerbException reg = assertThrows(UnsupportedVerbException.class,
                    () -> policy(p).requireRemoteAccess(Access.bits(Access.LOCAL_WRITE, Access.REMOTE_WRITE)));
            assertEquals("ibv_reg_mr", reg.verb());
            assertTrue(reg.getMessage().contains("rkey 0xffffffff"), reg.getMessage());
            assertDoesNotThrow(() -> policy(p).requireOpcode(WrOpcode.SEND, 0));
            for (WrOpcode op : List.of(WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.RDMA_READ, WrOpcode.SEND_WITH_IMM)) {
                UnsupportedVerbException e = assertThrows(UnsupportedVerbException.class, () -> policy(p).requireOpcode(op, 2));
                assertTrue(e.getMessage().contains("work request 2 is " + op + ", which would arrive as a plain SEND"), e.getMessage());
            }
            assertTrue(p.describe().contains("RDMA WRITE/READ and immediate data no"), p.describe());
        }
        for (DeviceProfile p : List.of(esxi65(), esxi67(), rxe(), mlx5(), rxe().emulate(HardwareClass.PVRDMA_HWV13))) {
            assertFalse(policy(p).checksOpcodes(), "the data path checks no opcodes on " + p.hardwareClass());
            assertDoesNotThrow(() -> policy(p).requireRemoteAccess(Access.bits(Access.REMOTE_WRITE, Access.REMOTE_READ)));
            assertDoesNotThrow(() -> policy(p).requireOpcode(WrOpcode.RDMA_WRITE_WITH_IMM, 0));
        }
        assertFalse(qemuPvrdma(0).emulate(HardwareClass.PVRDMA_HWV14).capabilities().rdmaAndImmediate(),
                "emulating ESXi on QEMU's model keeps what the real device lacks");
    }

    @Test
    void describeListsClassReasonsAndCapabilities() throws Exception {
        String text = esxi65().describe();
        assertTrue(text.startsWith("PVRDMA HWv13 (ESXi 6.5)-class, detected\n"), text);
        assertTrue(text.contains("  because max_srq = 0 and RoCE v1 only: HWv13-class\n"), text);
        assertTrue(text.contains("UD queue pairs at most 3"), text);
        assertTrue(rxe().emulate(HardwareClass.PVRDMA_HWV14).describe().startsWith("PVRDMA HWv14 (ESXi 6.7) profile, emulated"));
        assertTrue(rxe().describe().startsWith("not PVRDMA, detected"), rxe().describe());
    }

    @Test
    void otherDevicesAreGatedOnlyByWhatTheyReport() throws Exception {
        for (DeviceProfile p : List.of(rxe(), mlx5())) {
            assertEquals(HardwareClass.NOT_PVRDMA, p.hardwareClass());
            assertEquals(new DeviceProfile.Capabilities(true, true, -1, true, true, false, true, true), p.capabilities());
        }
        DeviceProfile noAtomics = DeviceProfile.detect(attributes(0x8086, 1, 0, 0, AtomicCapability.NONE), gids(GidType.ROCE_V2));
        assertFalse(noAtomics.capabilities().atomics());
        assertFalse(noAtomics.capabilities().sharedReceiveQueues());
        assertEquals(HardwareClass.NOT_PVRDMA, DeviceProfile.detect(attributes(0x15ad, 2081, 0, 0, AtomicCapability.NONE),
                gids(GidType.ROCE_V1)).hardwareClass(), "VMware vendor but another part id");
    }

    @Test
    void hwv13RefusesSrqWithTheMessageThatSaysWhatWouldHelp() throws Exception {
        UnsupportedVerbException e = assertThrows(UnsupportedVerbException.class,
                () -> esxi65().policy(attributes(0x15ad, 2080, 1, 0, AtomicCapability.NONE), "dev").requireSharedReceiveQueues());
        assertEquals("ibv_create_srq", e.verb());
        assertEquals("ibv_create_srq failed: not supported: this device is PVRDMA HWv13 (ESXi 6.5)-class: max_srq = 0;"
                + " shared receive queues need PVRDMA HWv14 (ESXi 6.7) or later", e.getMessage());
        assertDoesNotThrow(() -> esxi67().policy(attributes(0x15ad, 2080, 1, 4096, AtomicCapability.NONE), "dev").requireSharedReceiveQueues());
    }

    @Test
    void pvrdmaAllowsRcAndUdOnly() throws Exception {
        for (DeviceProfile p : List.of(esxi65(), esxi67())) {
            assertDoesNotThrow(() -> policy(p).requireQueuePairType(QpType.RC, 0));
            assertDoesNotThrow(() -> policy(p).requireQueuePairType(QpType.UD, 0));
            for (QpType other : List.of(QpType.UC, QpType.XRC_SEND, QpType.XRC_RECV, QpType.RAW_PACKET)) {
                UnsupportedVerbException e = assertThrows(UnsupportedVerbException.class, () -> policy(p).requireQueuePairType(other, 0));
                assertTrue(e.getMessage().contains("RC and UD queue pairs only"), e.getMessage());
            }
        }
        assertDoesNotThrow(() -> policy(rxe()).requireQueuePairType(QpType.UC, 0));
    }

    @Test
    void hwv13AllowsThreeUdQueuePairs() throws Exception {
        DeviceProfile p = esxi65();
        assertDoesNotThrow(() -> policy(p).requireQueuePairType(QpType.UD, 2));
        UnsupportedVerbException e = assertThrows(UnsupportedVerbException.class, () -> policy(p).requireQueuePairType(QpType.UD, 3));
        assertTrue(e.getMessage().contains("at most 3 UD queue pairs"), e.getMessage());
        assertDoesNotThrow(() -> policy(p).requireQueuePairType(QpType.RC, 3), "the limit is for UD only");
        assertDoesNotThrow(() -> policy(esxi67()).requireQueuePairType(QpType.UD, 100));
    }

    @Test
    void pvrdmaRefusesAtomicsAndInline() throws Exception {
        for (DeviceProfile p : List.of(esxi65(), esxi67(), qemuPvrdma(512))) {
            assertThrows(UnsupportedVerbException.class, () -> policy(p).requireAtomics());
            UnsupportedVerbException inline = assertThrows(UnsupportedVerbException.class, () -> policy(p).requireInline("ibv_post_send"));
            assertTrue(inline.getMessage().contains("forces max_inline_data to 0"), inline.getMessage());
        }
        assertDoesNotThrow(() -> policy(rxe()).requireAtomics());
        for (DeviceProfile p : List.of(esxi65(), esxi67(), qemuPvrdma(512), rxe().emulate(HardwareClass.PVRDMA_HWV13))) {
            UnsupportedVerbException ep = assertThrows(UnsupportedVerbException.class, () -> policy(p).requireCreateEndpoint());
            assertEquals("rdma_create_ep", ep.verb());
            assertTrue(ep.getMessage().contains("VMware lists rdma_create_ep as unsupported"), ep.getMessage());
        }
        assertDoesNotThrow(() -> policy(rxe()).requireCreateEndpoint());
        assertDoesNotThrow(() -> policy(mlx5()).requireCreateEndpoint());
        assertDoesNotThrow(() -> policy(rxe()).requireInline("ibv_post_send"));
    }

    @Test
    void emulatedProfilesAllowOnlyWhatBothAllow() throws Exception {
        DeviceProfile hw13 = rxe().emulate(HardwareClass.PVRDMA_HWV13);
        assertTrue(hw13.emulated());
        assertEquals(HardwareClass.PVRDMA_HWV13, hw13.hardwareClass());
        assertTrue(hw13.reasons().getFirst().contains("pvrdma-hwv13"), hw13.reasons().toString());
        assertEquals(new DeviceProfile.Capabilities(false, false, 3, false, false, false, false, true), hw13.capabilities());
        DeviceProfile hw14 = rxe().emulate(HardwareClass.PVRDMA_HWV14);
        assertEquals(new DeviceProfile.Capabilities(true, false, -1, false, false, false, true, true), hw14.capabilities());
        UnsupportedVerbException e = assertThrows(UnsupportedVerbException.class,
                () -> hw13.policy(attributes(0xffffff, 0, 0, 262144, AtomicCapability.HCA), "dev").requireSharedReceiveQueues());
        assertTrue(e.getMessage().contains("emulated PVRDMA HWv13 (ESXi 6.5) profile"), e.getMessage());
        assertEquals(rxe(), rxe().emulate(HardwareClass.NOT_PVRDMA));
    }

    @Test
    void profilePropertyValues() {
        assertEquals(HardwareClass.PVRDMA_HWV13, HardwareClass.ofPropertyValue("pvrdma-hwv13"));
        assertEquals(HardwareClass.PVRDMA_HWV14, HardwareClass.ofPropertyValue(" PVRDMA-HWV14 "));
        assertEquals(HardwareClass.NOT_PVRDMA, HardwareClass.ofPropertyValue("native"));
        assertThrows(IllegalArgumentException.class, () -> HardwareClass.ofPropertyValue("esxi"));
    }

    @Test
    void capabilityVerdictsCarryTheGatesOwnMessages() throws Exception {
        DevicePolicy p = policy(esxi65());
        List<CapabilityVerdict> verdicts = p.verdicts(gids(GidType.ROCE_V1), null);
        assertEquals(List.of(Capability.values()), verdicts.stream().map(CapabilityVerdict::capability).toList());
        assertEquals(message(() -> p.requireSharedReceiveQueues()), verdict(verdicts, Capability.SHARED_RECEIVE_QUEUES).refusal());
        assertEquals(message(() -> p.requireAtomics()), verdict(verdicts, Capability.ATOMICS).refusal());
        assertEquals(message(() -> p.requireMulticast()), verdict(verdicts, Capability.MULTICAST).refusal());
        assertTrue(verdict(verdicts, Capability.MULTICAST).refusal().contains("PVRDMA has no multicast on any hardware"
                + " version"), verdict(verdicts, Capability.MULTICAST).refusal());
        assertEquals(message(() -> p.requireInline("ibv_create_qp")), verdict(verdicts, Capability.INLINE_DATA).refusal());
        assertEquals(message(() -> p.requireQueuePairType(QpType.UC, 0)), verdict(verdicts, Capability.UC_QUEUE_PAIRS).refusal());
        assertEquals(message(() -> p.requireQueuePairType(QpType.UD, 3)), verdict(verdicts, Capability.UD_QUEUE_PAIR_COUNT).refusal());
        assertEquals(message(() -> p.requireCreateEndpoint()), verdict(verdicts, Capability.RDMA_CREATE_EP).refusal());
        assertEquals(CapabilityVerdict.Status.LIMITED, verdict(verdicts, Capability.UD_QUEUE_PAIR_COUNT).status());
        assertEquals("at most 3 open at once per context", verdict(verdicts, Capability.UD_QUEUE_PAIR_COUNT).detail());
        for (Capability allowed : List.of(Capability.RC_QUEUE_PAIRS, Capability.UD_QUEUE_PAIRS, Capability.OPCODE_SEND,
                Capability.OPCODE_RDMA_WRITE, Capability.OPCODE_RDMA_READ, Capability.REMOTE_ACCESS, Capability.ROCE_V1,
                Capability.RDMA_CM)) {
            assertEquals(CapabilityVerdict.Status.ALLOWED, verdict(verdicts, allowed).status(), allowed.toString());
        }
        for (Capability absent : List.of(Capability.ROCE_V2, Capability.MEMORY_WINDOWS, Capability.EXTENDED_VERBS)) {
            assertEquals(CapabilityVerdict.Status.ABSENT, verdict(verdicts, absent).status(), absent.toString());
        }
        assertEquals("GIDs at port 1 index 0, port 1 index 1", verdict(verdicts, Capability.ROCE_V1).detail());
    }

    @Test
    void qemusModelRefusesEveryOpcodeButSendInItsVerdicts() throws Exception {
        DevicePolicy p = policy(qemuPvrdma(512));
        List<CapabilityVerdict> verdicts = p.verdicts(gids(GidType.ROCE_V1), null);
        assertEquals(CapabilityVerdict.Status.ALLOWED, verdict(verdicts, Capability.OPCODE_SEND).status());
        assertEquals(CapabilityVerdict.Status.ALLOWED, verdict(verdicts, Capability.SHARED_RECEIVE_QUEUES).status());
        assertEquals(message(() -> p.requireOpcode(WrOpcode.RDMA_READ, 0)), verdict(verdicts, Capability.OPCODE_RDMA_READ).refusal());
        assertEquals(message(() -> p.requireRemoteAccess(Access.REMOTE_WRITE.bit())), verdict(verdicts, Capability.REMOTE_ACCESS).refusal());
    }

    @Test
    void otherDevicesRefuseOnlyWhatThisLibraryLacksOrTheyReport() throws Exception {
        DevicePolicy p = rxe().policy(attributes(0xffffff, 0, 0, 262144, AtomicCapability.HCA), "dev");
        List<CapabilityVerdict> verdicts = p.verdicts(gids(GidType.ROCE_V2), null);
        for (CapabilityVerdict v : verdicts) {
            boolean notImplemented = v.capability() == Capability.UC_QUEUE_PAIRS || v.capability() == Capability.RAW_PACKET_QUEUE_PAIRS
                    || v.capability() == Capability.XRC_QUEUE_PAIRS;
            if (notImplemented) {
                assertTrue(v.refusal().contains("is not implemented by this version of Panama Verbs"), v.toString());
            } else {
                assertTrue(v.allowed() || v.status() == CapabilityVerdict.Status.ABSENT, v.toString());
            }
        }
        CapabilityVerdict v1 = verdict(rxe().emulate(HardwareClass.PVRDMA_HWV14).policy(attributes(0xffffff, 0, 0, 1, AtomicCapability.HCA), "rxe0")
                .verdicts(gids(GidType.ROCE_V2), null), Capability.ROCE_V1);
        assertEquals(CapabilityVerdict.Status.ABSENT, v1.status());
        CapabilityVerdict v2 = verdict(rxe().emulate(HardwareClass.PVRDMA_HWV13).policy(attributes(0xffffff, 0, 0, 1, AtomicCapability.HCA), "rxe0")
                .verdicts(gids(GidType.ROCE_V2), null), Capability.ROCE_V2);
        assertTrue(v2.detail().contains("the device has RoCE v2 GIDs (port 1 index 0, port 1 index 1), but a PVRDMA HWv13"), v2.detail());
        CapabilityVerdict noGroups = verdict(policy(rxe()).verdicts(gids(GidType.ROCE_V2), null), Capability.MULTICAST);
        assertEquals(CapabilityVerdict.Status.REFUSED, noGroups.status(), "a device reporting max_mcast_grp 0");
        assertTrue(noGroups.refusal().contains("reports max_mcast_grp = 0"), noGroups.refusal());
        CapabilityVerdict cm = verdict(p.verdicts(List.of(), "librdmacm.so.1: cannot open"), Capability.RDMA_CM);
        assertEquals(CapabilityVerdict.Status.ABSENT, cm.status());
        assertTrue(cm.detail().contains("apt-get install librdmacm1"), cm.detail());
        assertThrows(IllegalArgumentException.class, () -> new CapabilityVerdict(Capability.ATOMICS, CapabilityVerdict.Status.REFUSED, "", null));
    }

    private static CapabilityVerdict verdict(List<CapabilityVerdict> verdicts, Capability capability) {
        return verdicts.stream().filter(v -> v.capability() == capability).findFirst().orElseThrow();
    }

    private static String message(org.junit.jupiter.api.function.Executable gate) {
        return assertThrows(UnsupportedVerbException.class, gate).getMessage();
    }

    /** The gates of {@code profile} on a device with ESXi 6.7's limits (the gates tested here read only the profile). */
    private static DevicePolicy policy(DeviceProfile profile) throws Exception {
        return profile.policy(attributes(0x15ad, 2080, 1, 4096, AtomicCapability.NONE), "dev");
    }
}
