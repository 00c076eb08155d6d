package org.panamaverbs.verbs;

/** {@code enum ibv_wr_opcode}: the operations a send work request can carry through this library. */
public enum WrOpcode {
    RDMA_WRITE(0),
    RDMA_WRITE_WITH_IMM(1),
    SEND(2),
    SEND_WITH_IMM(3),
    RDMA_READ(4),
    /** 64-bit compare-and-swap at an 8-byte aligned remote address; the old value lands in the local SGE. */
    ATOMIC_CMP_AND_SWP(5),
    /** 64-bit fetch-and-add at an 8-byte aligned remote address; the old value lands in the local SGE. */
    ATOMIC_FETCH_AND_ADD(6);

    private static final CodeTable<WrOpcode> BY_CODE = CodeTable.strict(values(), WrOpcode::code);

    private final int code;

    WrOpcode(int code) {
        this.code = code;
    }

    /** The C value. */
    public int code() {
        return code;
    }

    /** Whether this is one of the two atomic operations. */
    public boolean isAtomic() {
        return this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
    }

    /**
     * The constant for a C value; allocation-free. Only Java writes these values, so one that no constant
     * has is a bug: there is no {@code UNKNOWN}.
     *
     * @throws IllegalArgumentException for a value no constant has
     */
    public static WrOpcode of(int code) {
        return BY_CODE.of(code);
    }
}
