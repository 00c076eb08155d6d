package org.panamaverbs.verbs;

/** {@code enum ibv_atomic_cap}: whether and how atomic operations are supported. */
public enum AtomicCapability {
    /** {@code IBV_ATOMIC_NONE} (0): no atomic operations; compare-and-swap and fetch-and-add are refused. */
    NONE(0),
    /**
     * {@code IBV_ATOMIC_HCA} (1): atomic operations are atomic only against other atomic operations of this
     * device, not against CPU writes or other devices touching the same memory.
     */
    HCA(1),
    /** {@code IBV_ATOMIC_GLOB} (2): atomic operations are atomic against every access, the CPU's included. */
    GLOB(2),
    /** A value this library does not know; not a C value. */
    UNKNOWN(-1);

    private static final CodeTable<AtomicCapability> BY_CODE = CodeTable.orUnknown(values(), AtomicCapability::code, UNKNOWN);

    private final int code;

    AtomicCapability(int code) {
        this.code = code;
    }

    /** {@return the C value, {@code IBV_ATOMIC_*}; -1 for {@link #UNKNOWN}} */
    public int code() {
        return code;
    }

    /**
     * Whether atomic operations work at all ({@link #HCA} or {@link #GLOB}). {@link #UNKNOWN} counts as no:
     * claiming a capability nobody can name would let atomics reach a device that may fail them.
     *
     * @return true for {@link #HCA} and {@link #GLOB}
     */
    public boolean isSupported() {
        return this == HCA || this == GLOB;
    }

    /**
     * The constant for a C value; allocation-free. A value this library does not know (a newer
     * libibverbs, kernel or provider may return one) gives {@link #UNKNOWN}, never an exception or null.
     *
     * @param code an {@code enum ibv_atomic_cap} value, as in {@code ibv_device_attr.atomic_cap}
     * @return the constant with that code, or {@link #UNKNOWN}
     */
    public static AtomicCapability of(int code) {
        return BY_CODE.of(code);
    }
}
