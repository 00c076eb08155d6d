package org.panamaverbs.verbs;

/** {@code enum ibv_wr_opcode}: the operations a send work request can carry through this library. */
public enum WrOpcode {
    /**
     * {@code IBV_WR_RDMA_WRITE} (0): writes the local entries to the peer's memory named by
     * {@link SendWorkRequest#remote(long, int)}, whose region and queue pair need {@link Access#REMOTE_WRITE};
     * the peer consumes no receive and sees no completion.
     */
    RDMA_WRITE(0),
    /**
     * {@code IBV_WR_RDMA_WRITE_WITH_IMM} (1): an RDMA WRITE that also carries 32 bits of immediate data;
     * it consumes a receive at the peer, which completes with {@link WcOpcode#RECV_RDMA_WITH_IMM}.
     */
    RDMA_WRITE_WITH_IMM(1),
    /**
     * {@code IBV_WR_SEND} (2): the local entries land in the next receive posted at the peer (on UD, at the
     * queue pair named by {@link SendWorkRequest#ud(AddressHandle, int, int)}).
     */
    SEND(2),
    /** {@code IBV_WR_SEND_WITH_IMM} (3): a SEND whose receive completion also carries 32 bits of immediate data. */
    SEND_WITH_IMM(3),
    /**
     * {@code IBV_WR_RDMA_READ} (4): reads the peer's memory named by {@link SendWorkRequest#remote(long, int)}
     * into the local entries, which need {@link Access#LOCAL_WRITE}; the peer's region and queue pair need
     * {@link Access#REMOTE_READ}.
     */
    RDMA_READ(4),
    /**
     * {@code IBV_WR_ATOMIC_CMP_AND_SWP} (5): 64-bit compare-and-swap at an 8-byte aligned remote address; the
     * old value lands in the local SGE.
     */
    ATOMIC_CMP_AND_SWP(5),
    /**
     * {@code IBV_WR_ATOMIC_FETCH_AND_ADD} (6): 64-bit fetch-and-add at an 8-byte aligned remote address; the
     * old value lands in the local SGE.
     */
    ATOMIC_FETCH_AND_ADD(6);

    private static final CodeTable<WrOpcode> BY_CODE = CodeTable.strict(values(), WrOpcode::code);

    private final int code;

    WrOpcode(int code) {
        this.code = code;
    }

    /**
     * The C value.
     *
     * @return the {@code IBV_WR_*} value, as written to {@code ibv_send_wr.opcode}
     */
    public int code() {
        return code;
    }

    /**
     * Whether this is one of the two atomic operations.
     *
     * @return true for {@link #ATOMIC_CMP_AND_SWP} and {@link #ATOMIC_FETCH_AND_ADD}
     */
    public boolean isAtomic() {
        return this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
    }

    /**
     * The constant for a C value; allocation-free. Only Java writes these values, so one that no constant
     * has is a bug: there is no {@code UNKNOWN}.
     *
     * @param code an {@code enum ibv_wr_opcode} value of one of the operations above
     * @return the constant with that code; never null
     * @throws IllegalArgumentException for a value no constant has
     */
    public static WrOpcode of(int code) {
        return BY_CODE.of(code);
    }
}
