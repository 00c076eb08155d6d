package org.panamaverbs.verbs;

/** {@code enum ibv_atomic_cap}: whether and how atomic operations are supported. */
public enum AtomicCapability {
    NONE(0),
    HCA(1),
    GLOB(2);

    private static final AtomicCapability[] BY_CODE = new AtomicCapability[3];

    static {
        for (AtomicCapability v : values()) {
            if (v.code >= 0) {
                BY_CODE[v.code] = v;
            }
        }
    }

    private final int code;

    AtomicCapability(int code) {
        this.code = code;
    }

    /** The C value. */
    public int code() {
        return code;
    }

    /**
     * The constant for a C value; allocation-free.
     * @throws IllegalArgumentException for a value C does not define
     */
    public static AtomicCapability of(int code) {
        if (code >= 0 && code < BY_CODE.length && BY_CODE[code] != null) {
            return BY_CODE[code];
        }
        throw new IllegalArgumentException("no AtomicCapability has code " + code);
    }
}
