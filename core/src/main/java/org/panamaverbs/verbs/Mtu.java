package org.panamaverbs.verbs;

/** {@code enum ibv_mtu}: path MTU of a queue pair, and the port's maximum and active MTU. */
public enum Mtu {
    MTU_256(1, 256), MTU_512(2, 512), MTU_1024(3, 1024), MTU_2048(4, 2048), MTU_4096(5, 4096),
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

    /** The C value ({@code IBV_MTU_1024} is 3). */
    public int code() {
        return code;
    }

    /** The MTU in bytes. */
    public int bytes() {
        return bytes;
    }

    /**
     * The constant for a C value; allocation-free. A value this library does not know (a newer
     * libibverbs, kernel or provider may return one) gives {@link #UNKNOWN}, never an exception or null.
     */
    public static Mtu of(int code) {
        return BY_CODE.of(code);
    }

    /**
     * The smaller of two MTUs. {@link #UNKNOWN} limits nothing: the other MTU is returned, so a path MTU the
     * caller chose survives a port MTU this library cannot read (the device still checks it).
     */
    public static Mtu min(Mtu a, Mtu b) {
        if (a == UNKNOWN || b == UNKNOWN) {
            return a == UNKNOWN ? b : a;
        }
        return a.code <= b.code ? a : b;
    }
}
