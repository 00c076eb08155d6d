package org.panamaverbs.verbs;

/** {@code enum ibv_atomic_cap}: whether and how atomic operations are supported. */
public enum AtomicCapability {
    NONE(0),
    HCA(1),
    GLOB(2),
    /** A value this library does not know; not a C value. */
    UNKNOWN(-1);

    private static final CodeTable<AtomicCapability> BY_CODE = CodeTable.orUnknown(values(), AtomicCapability::code, UNKNOWN);

    private final int code;

    AtomicCapability(int code) {
        this.code = code;
    }

    /** The C value. */
    public int code() {
        return code;
    }

    /**
     * Whether atomic operations work at all ({@link #HCA} or {@link #GLOB}). {@link #UNKNOWN} counts as no:
     * claiming a capability nobody can name would let atomics reach a device that may fail them.
     */
    public boolean isSupported() {
        return this == HCA || this == GLOB;
    }

    /**
     * The constant for a C value; allocation-free. A value this library does not know (a newer
     * libibverbs, kernel or provider may return one) gives {@link #UNKNOWN}, never an exception or null.
     */
    public static AtomicCapability of(int code) {
        return BY_CODE.of(code);
    }
}
