package org.panamaverbs.verbs;

/**
 * {@code struct ibv_device_attr}, from {@code ibv_query_device}: the device's identity and limits.
 * Queue pair, completion queue and memory region sizes asked of the device must stay within these.
 * {@code maxMrSize}, {@code pageSizeCap} and the GUIDs are unsigned 64-bit values held in a long
 * (rxe reports {@code max_mr_size} as 2^64 - 1, which reads as -1): compare them with
 * {@link Long#compareUnsigned}.
 *
 * @param firmwareVersion   {@code fw_ver}: the firmware version as the provider formats it; may be empty
 * @param nodeGuid          {@code node_guid}, converted from network order: its 16 hexadecimal digits read as
 *                          {@code ibv_devinfo} prints the GUID, without the colons
 * @param systemImageGuid   {@code sys_image_guid}, converted the same way: shared by the devices of one system image
 * @param maxMrSize         {@code max_mr_size}: the largest memory region in bytes (unsigned)
 * @param pageSizeCap       {@code page_size_cap}: the page sizes the device supports, bit n set for 2^n bytes
 *                          (unsigned)
 * @param vendorId          {@code vendor_id}: usually the vendor's IEEE OUI; PVRDMA reports VMware's PCI vendor
 *                          id {@link DeviceProfile#VMWARE_VENDOR_ID}, QEMU's model 0
 * @param vendorPartId      {@code vendor_part_id}: the vendor's part number, often the PCI device id
 *                          ({@link DeviceProfile#PVRDMA_VENDOR_PART_ID} for PVRDMA)
 * @param hardwareVersion   {@code hw_ver}: the hardware revision
 * @param maxQp             {@code max_qp}: the most queue pairs the device holds at once
 * @param maxQpWr           {@code max_qp_wr}: the most outstanding work requests of one send or receive queue
 * @param deviceCapFlags    {@code device_cap_flags}: {@code IBV_DEVICE_*} capability bits (unsigned in C)
 * @param maxSge            {@code max_sge}: scatter-gather entries per send or receive work request
 * @param maxSgeRd          {@code max_sge_rd}: scatter-gather entries per RDMA READ work request
 * @param maxCq             {@code max_cq}: the most completion queues the device holds at once
 * @param maxCqe            {@code max_cqe}: the most entries of one completion queue
 * @param maxMr             {@code max_mr}: the most memory regions the device holds at once
 * @param maxPd             {@code max_pd}: the most protection domains the device holds at once
 * @param maxQpRdAtom       {@code max_qp_rd_atom}: incoming RDMA READ and atomic requests one queue pair handles
 *                          at once as responder; the bound of {@code max_dest_rd_atomic}
 * @param maxQpInitRdAtom   {@code max_qp_init_rd_atom}: RDMA READ and atomic requests one queue pair may have
 *                          outstanding as initiator; the bound of {@code max_rd_atomic}
 * @param atomicCapability  {@code atomic_cap}: whether and how atomic operations work
 * @param maxMcastGrp       {@code max_mcast_grp}: the most multicast groups; 0 when the device has no multicast
 * @param maxMcastQpAttach  {@code max_mcast_qp_attach}: the most queue pairs attached to one multicast group
 * @param maxAh             {@code max_ah}: the most address handles the device holds at once
 * @param maxSrq            {@code max_srq}: the most shared receive queues; 0 when the device has none
 * @param maxSrqWr          {@code max_srq_wr}: the most outstanding receives of one shared receive queue
 * @param maxSrqSge         {@code max_srq_sge}: scatter-gather entries per shared receive queue request
 * @param maxPkeys          {@code max_pkeys}: the size of a port's P_Key table
 * @param physicalPortCount {@code phys_port_cnt}: the number of ports, numbered from 1 to this value
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
        int maxMcastGrp,
        int maxMcastQpAttach,
        int maxAh,
        int maxSrq,
        int maxSrqWr,
        int maxSrqSge,
        int maxPkeys,
        int physicalPortCount) {
}
