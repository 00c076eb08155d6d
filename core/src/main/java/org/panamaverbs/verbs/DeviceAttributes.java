package org.panamaverbs.verbs;

/**
 * {@code struct ibv_device_attr}, from {@code ibv_query_device}: the device's identity and limits.
 * Queue pair, completion queue and memory region sizes asked of the device must stay within these.
 * {@code maxMrSize}, {@code pageSizeCap} and the GUIDs are unsigned 64-bit values held in a long
 * (rxe reports {@code max_mr_size} as 2^64 - 1, which reads as -1): compare them with
 * {@link Long#compareUnsigned}.
 */
public record DeviceAttributes(
        String firmwareVersion,
        long nodeGuid,
        long systemImageGuid,
        long maxMrSize,
        long pageSizeCap,
        int vendorId,
        int vendorPartId,
        int hardwareVersion,
        int maxQp,
        int maxQpWr,
        int deviceCapFlags,
        int maxSge,
        int maxSgeRd,
        int maxCq,
        int maxCqe,
        int maxMr,
        int maxPd,
        int maxQpRdAtom,
        int maxQpInitRdAtom,
        AtomicCapability atomicCapability,
        int maxAh,
        int maxSrq,
        int maxSrqWr,
        int maxSrqSge,
        int maxPkeys,
        int physicalPortCount) {
}
