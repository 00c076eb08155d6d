package org.panamaverbs.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.panamaverbs.ffi.ibv_device_attr;
import org.panamaverbs.ffi.ibverbs_h;

/**
 * {@code ibv_query_device}, asked once when a context opens: the limits do not change while the device is open, so
 * {@link Context#attributes()} answers from this record and stays usable after close.
 */
final class DeviceAttributesQuery {
    private DeviceAttributesQuery() {
    }

    /**
     * The device's identity and limits, read from a {@code struct ibv_device_attr} of this call's own.
     *
     * @param context    the {@code struct ibv_context *} of an open device
     * @param deviceName for the error message
     * @throws VerbsException naming {@code ibv_query_device} and the errno
     */
    static DeviceAttributes query(MemorySegment context, String deviceName) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_device_attr.layout());
            int rc = ibverbs_h.ibv_query_device(context, attr);
            if (rc != 0) {
                throw new VerbsException("ibv_query_device", rc, "device " + deviceName);
            }
            return new DeviceAttributes(
                    ibv_device_attr.fw_ver(attr).getString(0),
                    Long.reverseBytes(ibv_device_attr.node_guid(attr)),
                    Long.reverseBytes(ibv_device_attr.sys_image_guid(attr)),
                    ibv_device_attr.max_mr_size(attr),
                    ibv_device_attr.page_size_cap(attr),
                    ibv_device_attr.vendor_id(attr),
                    ibv_device_attr.vendor_part_id(attr),
                    ibv_device_attr.hw_ver(attr),
                    ibv_device_attr.max_qp(attr),
                    ibv_device_attr.max_qp_wr(attr),
                    ibv_device_attr.device_cap_flags(attr),
                    ibv_device_attr.max_sge(attr),
                    ibv_device_attr.max_sge_rd(attr),
                    ibv_device_attr.max_cq(attr),
                    ibv_device_attr.max_cqe(attr),
                    ibv_device_attr.max_mr(attr),
                    ibv_device_attr.max_pd(attr),
                    ibv_device_attr.max_qp_rd_atom(attr),
                    ibv_device_attr.max_qp_init_rd_atom(attr),
                    AtomicCapability.of(ibv_device_attr.atomic_cap(attr)),
                    ibv_device_attr.max_mcast_grp(attr),
                    ibv_device_attr.max_mcast_qp_attach(attr),
                    ibv_device_attr.max_ah(attr),
                    ibv_device_attr.max_srq(attr),
                    ibv_device_attr.max_srq_wr(attr),
                    ibv_device_attr.max_srq_sge(attr),
                    Short.toUnsignedInt(ibv_device_attr.max_pkeys(attr)),
                    Byte.toUnsignedInt(ibv_device_attr.phys_port_cnt(attr)));
        }
    }
}
