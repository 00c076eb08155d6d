package org.panamaverbs.verbs;

/** {@code enum ibv_wc_opcode}: what a completion completes. Receive-side opcodes have bit 7 set. */
public enum WcOpcode {
    SEND(0),
    RDMA_WRITE(1),
    RDMA_READ(2),
    COMP_SWAP(3),
    FETCH_ADD(4),
    BIND_MW(5),
    LOCAL_INV(6),
    TSO(7),
    RECV(128),
    RECV_RDMA_WITH_IMM(129),
    TM_ADD(130),
    TM_DEL(131),
    TM_SYNC(132),
    TM_RECV(133),
    TM_NO_TAG(134),
    DRIVER1(135),
    DRIVER2(136),
    DRIVER3(137),
    UNKNOWN(-1);

    private static final CodeTable<WcOpcode> BY_CODE = CodeTable.orUnknown(values(), WcOpcode::code, UNKNOWN);

    private final int code;

    WcOpcode(int code) {
        this.code = code;
    }

    /** The C value. */
    public int code() {
        return code;
    }

    /**
     * The constant for a C value; allocation-free. A value this library does not know (a newer
     * libibverbs, kernel or provider may return one) gives {@link #UNKNOWN}, never an exception or null.
     */
    public static WcOpcode of(int code) {
        return BY_CODE.of(code);
    }
}
