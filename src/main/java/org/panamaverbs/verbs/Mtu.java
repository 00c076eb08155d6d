package org.panamaverbs.verbs;

/** {@code enum ibv_mtu}: path MTU of a queue pair, and the port's maximum and active MTU. */
public enum Mtu {
    MTU_256(1, 256), MTU_512(2, 512), MTU_1024(3, 1024), MTU_2048(4, 2048), MTU_4096(5, 4096);

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

    /** The constant for a C value. @throws IllegalArgumentException for a value C does not define */
    public static Mtu of(int code) {
        for (Mtu m : values()) {
            if (m.code == code) {
                return m;
            }
        }
        throw new IllegalArgumentException("no ibv_mtu has code " + code);
    }

    /** The smaller of two MTUs. */
    public static Mtu min(Mtu a, Mtu b) {
        return a.code <= b.code ? a : b;
    }
}
