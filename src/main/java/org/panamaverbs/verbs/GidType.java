package org.panamaverbs.verbs;

/** {@code enum ibv_gid_type} ({@code IBV_GID_TYPE_*}): what a GID table entry is used for. PVRDMA devices hold only RoCE v1 or only RoCE v2 entries, which tells their hardware version apart. */
public enum GidType {
    /** {@code IBV_GID_TYPE_IB} (0): an InfiniBand GID, carried in an InfiniBand GRH. */
    IB(0),
    /**
     * {@code IBV_GID_TYPE_ROCE_V1} (1): RoCE v1, the GRH carried directly over Ethernet (EtherType 0x8915);
     * it stays within one Ethernet broadcast domain.
     */
    ROCE_V1(1),
    /**
     * {@code IBV_GID_TYPE_ROCE_V2} (2): RoCE v2, carried over UDP (port 4791) in IPv4 or IPv6, so it crosses IP
     * routers; the GID is the interface's IP address (IPv4 ones mapped into {@code ::ffff:0:0/96}).
     */
    ROCE_V2(2),
    /** A value this library does not know; not a C value. */
    UNKNOWN(-1);

    private static final CodeTable<GidType> BY_CODE = CodeTable.orUnknown(values(), GidType::code, UNKNOWN);

    private final int code;

    GidType(int code) {
        this.code = code;
    }

    /** {@return the C value, {@code IBV_GID_TYPE_*}; -1 for {@link #UNKNOWN}} */
    public int code() {
        return code;
    }

    /**
     * The constant for a C value; allocation-free. A value this library does not know (a newer
     * libibverbs, kernel or provider may return one) gives {@link #UNKNOWN}, never an exception or null.
     *
     * @param code an {@code enum ibv_gid_type} value, as in {@code ibv_gid_entry.gid_type}
     * @return the constant with that code, or {@link #UNKNOWN}
     */
    public static GidType of(int code) {
        return BY_CODE.of(code);
    }
}
