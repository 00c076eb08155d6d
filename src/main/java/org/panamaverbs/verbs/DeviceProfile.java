package org.panamaverbs.verbs;

import java.util.ArrayList;
import java.util.List;

/**
 * What a device allows, detected once when a {@link Context} opens, from what user space can observe
 * ({@code ibv_query_device}, the GID table's types, vendor ids; never the device name, which udev may
 * change). {@link #describe()} gives the lines to log; the gates it implies (what is refused, with which
 * message) all live in {@link DevicePolicy}, which every verb consults.
 *
 * <p>Detection: PVRDMA is {@code vendor_part_id} 2080 (the PCI device id 0x0820) with {@code vendor_id}
 * 0x15ad (ESXi) or 0 (QEMU's model, which never fills it in). HWv13-class is {@code max_srq} 0 with
 * RoCE v1 GIDs only; HWv14-class has shared receive queues or RoCE v2 GIDs. QEMU's model (vendor_id 0)
 * also loses everything but SEND: its backend posts every send request as a plain SEND without immediate
 * data and hands out rkey 0xffffffff, so RDMA WRITE/READ, immediate data and remote access are refused there
 * (measured with the project's {@code opcode_probe}, see docs/guide/pvrdma.md).
 *
 * <p>Emulation: run any device under a PVRDMA profile, to check an application against ESXi 6.5 / 6.7
 * before deploying it, with {@code -Dpanamaverbs.profile=pvrdma-hwv13} (or {@code pvrdma-hwv14}) or
 * {@link Rdma#open(String, HardwareClass)}. The emulated profile allows only what both the PVRDMA class
 * and the real device allow.
 *
 * @param hardwareClass the detected (or emulated) class
 * @param emulated      whether the class was imposed rather than detected
 * @param reasons       why this class was chosen, for logs
 * @param capabilities  what the gates allow
 */
public record DeviceProfile(HardwareClass hardwareClass, boolean emulated, List<String> reasons, Capabilities capabilities) {
    /** The PCI device id of VMware's PVRDMA function, which the driver reports as {@code vendor_part_id}. */
    public static final int PVRDMA_VENDOR_PART_ID = 2080;
    /** VMware's PCI vendor id, as ESXi guests report it. */
    public static final int VMWARE_VENDOR_ID = 0x15ad;
    /** The UD queue pair limit VMware documents for ESXi 6.5 (HWv13). */
    public static final int HWV13_MAX_UD_QPS = 3;

    /**
     * What the gates allow.
     *
     * @param sharedReceiveQueues  {@code ibv_create_srq}
     * @param unreliableConnected  UC queue pairs
     * @param maxUdQueuePairs      live UD queue pairs per context, or -1 for the device's own limit
     * @param atomics              compare-and-swap and fetch-and-add
     * @param inline               {@code IBV_SEND_INLINE} and {@code max_inline_data}
     * @param roceV1               RoCE v1 GIDs present (or allowed, when emulated)
     * @param roceV2               RoCE v2 GIDs present
     * @param rdmaAndImmediate     RDMA WRITE and READ (with remote access on memory regions) and immediate
     *                             data; false on QEMU's PVRDMA model, which carries every request as a plain SEND
     */
    public record Capabilities(boolean sharedReceiveQueues, boolean unreliableConnected, int maxUdQueuePairs,
            boolean atomics, boolean inline, boolean roceV1, boolean roceV2, boolean rdmaAndImmediate) {
    }

    /**
     * Copies {@code reasons}, so the profile is immutable.
     *
     * @param hardwareClass the detected (or emulated) class
     * @param emulated      whether the class was imposed rather than detected
     * @param reasons       why this class was chosen, for logs; no null elements
     * @param capabilities  what the gates allow
     * @throws NullPointerException if {@code reasons} or one of its elements is null
     */
    public DeviceProfile {
        reasons = List.copyOf(reasons);
    }

    /**
     * Classifies a device from its attributes and GID table (the entries of every port). Looks only at
     * {@code vendor_id}, {@code vendor_part_id}, {@code max_srq}, {@code atomic_cap} and the GID types; asks
     * the device nothing.
     *
     * @param device the device's {@code ibv_query_device} attributes
     * @param gids   the populated GID entries of all ports ({@link Context#gidTable(int)} for each); may be
     *               empty, which on PVRDMA means neither RoCE version is present
     * @return the detected profile, never emulated
     */
    public static DeviceProfile detect(DeviceAttributes device, List<GidEntry> gids) {
        List<String> reasons = new ArrayList<>();
        boolean v1 = gids.stream().anyMatch(g -> g.type() == GidType.ROCE_V1);
        boolean v2 = gids.stream().anyMatch(g -> g.type() == GidType.ROCE_V2);
        boolean pvrdmaVendor = device.vendorId() == VMWARE_VENDOR_ID || device.vendorId() == 0;
        if (device.vendorPartId() != PVRDMA_VENDOR_PART_ID || !pvrdmaVendor) {
            // concatenation, not String.format: its first use loads the locale data, seconds under emulation, and
            // this runs on an event loop the first time a connection borrows its context
            reasons.add("vendor_id 0x" + Integer.toHexString(device.vendorId()) + ", vendor_part_id "
                    + device.vendorPartId() + ": not PVRDMA (PVRDMA is vendor_part_id 2080 with vendor_id 0x15ad, or 0 on QEMU)");
            return new DeviceProfile(HardwareClass.NOT_PVRDMA, false, reasons, new Capabilities(device.maxSrq() > 0, true,
                    -1, device.atomicCapability().isSupported(), true, v1, v2, true));
        }
        boolean qemu = device.vendorId() == 0;
        reasons.add("vendor_part_id 2080 and vendor_id 0x" + Integer.toHexString(device.vendorId()) + " ("
                + (qemu ? "QEMU's PVRDMA model" : "VMware ESXi") + "): PVRDMA");
        reasons.add("GID types: " + (v1 && v2 ? "RoCE v1 and v2" : v2 ? "RoCE v2 only" : v1 ? "RoCE v1 only" : "none"));
        HardwareClass hardwareClass;
        if (device.maxSrq() > 0 || v2) {
            hardwareClass = HardwareClass.PVRDMA_HWV14;
            reasons.add(device.maxSrq() > 0 ? "max_srq = " + device.maxSrq() + ": shared receive queues, HWv14 or later"
                    : "RoCE v2 GIDs: HWv14 or later");
        } else {
            hardwareClass = HardwareClass.PVRDMA_HWV13;
            reasons.add("max_srq = 0 and RoCE v1 only: HWv13-class");
        }
        if (qemu) {
            reasons.add("vendor_id 0 (QEMU's model): every send request travels as a plain SEND, so RDMA WRITE/READ,"
                    + " immediate data and remote access are refused");
        }
        return new DeviceProfile(hardwareClass, false, reasons, pvrdmaCapabilities(hardwareClass, v1, v2, !qemu));
    }

    private static Capabilities pvrdmaCapabilities(HardwareClass c, boolean v1, boolean v2, boolean rdmaAndImmediate) {
        boolean hw14 = c == HardwareClass.PVRDMA_HWV14;
        return new Capabilities(hw14, false, hw14 ? -1 : HWV13_MAX_UD_QPS, false, false, v1, hw14 && v2, rdmaAndImmediate);
    }

    /**
     * This device's profile as the given PVRDMA class would see it: only what both allow.
     *
     * @param target the class to emulate; {@link HardwareClass#NOT_PVRDMA} emulates nothing
     * @return the emulated profile, its reasons starting with the emulation; this profile itself for
     *         {@link HardwareClass#NOT_PVRDMA}
     */
    public DeviceProfile emulate(HardwareClass target) {
        if (target == HardwareClass.NOT_PVRDMA) {
            return this;
        }
        Capabilities pv = pvrdmaCapabilities(target, true, true, true);
        Capabilities real = capabilities;
        List<String> why = new ArrayList<>(reasons);
        why.addFirst("emulating " + target.description() + " (-Dpanamaverbs.profile=" + target.propertyValue() + ")");
        int ud = pv.maxUdQueuePairs() < 0 ? real.maxUdQueuePairs()
                : real.maxUdQueuePairs() < 0 ? pv.maxUdQueuePairs() : Math.min(pv.maxUdQueuePairs(), real.maxUdQueuePairs());
        return new DeviceProfile(target, true, why, new Capabilities(pv.sharedReceiveQueues() && real.sharedReceiveQueues(),
                false, ud, false, false, real.roceV1(), real.roceV2() && pv.roceV2(), real.rdmaAndImmediate()));
    }

    /**
     * The profile as lines for a log: class (detected or emulated), the reasons, and what the gates allow.
     * For example {@code PVRDMA HWv13 (ESXi 6.5)-class, detected} followed by indented reasons and capabilities.
     *
     * @return the text, lines separated by {@code '\n'}, without a final line break
     */
    public String describe() {
        StringBuilder text = new StringBuilder(hardwareClass.description()).append(emulated ? " profile, emulated\n"
                : hardwareClass.isPvrdma() ? "-class, detected\n" : ", detected\n");
        for (String reason : reasons) {
            text.append("  because ").append(reason).append('\n');
        }
        Capabilities c = capabilities;
        text.append("  allows: shared receive queues ").append(yesNo(c.sharedReceiveQueues()))
                .append(", UC queue pairs ").append(yesNo(c.unreliableConnected()))
                .append(", UD queue pairs ").append(c.maxUdQueuePairs() < 0 ? "device limit" : "at most " + c.maxUdQueuePairs())
                .append(", atomics ").append(yesNo(c.atomics()))
                .append(", inline ").append(yesNo(c.inline()))
                .append(", RDMA WRITE/READ and immediate data ").append(yesNo(c.rdmaAndImmediate()))
                .append(", RoCE ").append(c.roceV1() && c.roceV2() ? "v1 and v2" : c.roceV2() ? "v2" : c.roceV1() ? "v1" : "none");
        return text.toString();
    }

    private static String yesNo(boolean allowed) {
        return allowed ? "yes" : "no";
    }

    /** The gates this profile implies, for a device named {@code deviceName} with {@code device}'s limits. */
    DevicePolicy policy(DeviceAttributes device, String deviceName) {
        return DevicePolicy.of(this, device, deviceName);
    }
}
