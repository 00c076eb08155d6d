package org.panamaverbs.verbs;

/** {@code enum ibv_mtu}: path MTU of a queue pair, and the port's maximum and active MTU. */
public enum Mtu {
    /** {@code IBV_MTU_256} (1): 256 bytes. */
    MTU_256(1, 256),
    /** {@code IBV_MTU_512} (2): 512 bytes. */
    MTU_512(2, 512),
    /** {@code IBV_MTU_1024} (3): 1024 bytes, what RoCE gives a standard 1500-byte Ethernet MTU. */
    MTU_1024(3, 1024),
    /** {@code IBV_MTU_2048} (4): 2048 bytes. */
    MTU_2048(4, 2048),
    /** {@code IBV_MTU_4096} (5): 4096 bytes, the largest; on RoCE it needs an Ethernet MTU of about 4200 or more. */
    MTU_4096(5, 4096),
    /**
     * A port or queue pair MTU this library does not know; not a C value, and refused as a path MTU.
     * {@link #bytes()} is 0.
     */
    UNKNOWN(-1, 0);

    private static final CodeTable<Mtu> BY_CODE = CodeTable.orUnknown(values(), Mtu::code, UNKNOWN);

    private final int code;
    private final int bytes;

    Mtu(int code, int bytes) {
        this.code = code;
        this.bytes = bytes;
    }

    /** {@return the C value ({@code IBV_MTU_1024} is 3); -1 for {@link #UNKNOWN}} */
    public int code() {
        return code;
    }

    /** {@return the MTU in bytes: the most payload one packet carries; 0 for {@link #UNKNOWN}} */
    public int bytes() {
        return bytes;
    }

    /**
     * The constant for a C value; allocation-free. A value this library does not know (a newer
     * libibverbs, kernel or provider may return one) gives {@link #UNKNOWN}, never an exception or null.
     *
     * @param code an {@code enum ibv_mtu} value, as in {@code ibv_port_attr.active_mtu}
     * @return the constant with that code, or {@link #UNKNOWN}
     */
    public static Mtu of(int code) {
        return BY_CODE.of(code);
    }

    /**
     * The smaller of two MTUs. {@link #UNKNOWN} limits nothing: the other MTU is returned, so a path MTU the
     * caller chose survives a port MTU this library cannot read (the device still checks it).
     *
     * @param a one MTU, not null
     * @param b the other MTU, not null
     * @return the smaller of the two; {@link #UNKNOWN} only if both are
     */
    public static Mtu min(Mtu a, Mtu b) {
        if (a == UNKNOWN || b == UNKNOWN) {
            return a == UNKNOWN ? b : a;
        }
        return a.code <= b.code ? a : b;
    }
}
