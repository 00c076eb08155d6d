package org.panamaverbs.verbs;

/**
 * {@code enum ibv_wc_opcode}: what a completion completes. Receive-side opcodes have bit 7 set. Only
 * meaningful in a successful completion ({@link WorkCompletion#opcode()}).
 */
public enum WcOpcode {
    /** {@code IBV_WC_SEND} (0): a SEND or SEND with immediate posted on this side completed. */
    SEND(0),
    /** {@code IBV_WC_RDMA_WRITE} (1): an RDMA WRITE (with or without immediate) posted on this side completed. */
    RDMA_WRITE(1),
    /** {@code IBV_WC_RDMA_READ} (2): an RDMA READ completed; the remote data is in the local entries. */
    RDMA_READ(2),
    /** {@code IBV_WC_COMP_SWAP} (3): a compare-and-swap completed; the old remote value is in the local entry. */
    COMP_SWAP(3),
    /** {@code IBV_WC_FETCH_ADD} (4): a fetch-and-add completed; the old remote value is in the local entry. */
    FETCH_ADD(4),
    /** {@code IBV_WC_BIND_MW} (5): a memory window bind completed (this library posts none). */
    BIND_MW(5),
    /** {@code IBV_WC_LOCAL_INV} (6): a local invalidation of a memory key completed (this library posts none). */
    LOCAL_INV(6),
    /** {@code IBV_WC_TSO} (7): a TCP segmentation offload send of a raw packet queue pair completed. */
    TSO(7),
    /**
     * {@code IBV_WC_RECV} (128): a posted receive took an incoming SEND, or SEND with immediate
     * ({@link WorkCompletion#hasImmediateData()}); {@link WorkCompletion#byteLength()} is the message size.
     */
    RECV(128),
    /**
     * {@code IBV_WC_RECV_RDMA_WITH_IMM} (129): an incoming RDMA WRITE with immediate consumed a posted
     * receive; the data went to the address the writer chose, the receive's own entries are not written, and
     * {@link WorkCompletion#immediateData()} holds the value.
     */
    RECV_RDMA_WITH_IMM(129),
    /**
     * {@code IBV_WC_TM_ADD} (130): a tag was added to a tag-matching shared receive queue (not used by this library).
     */
    TM_ADD(130),
    /**
     * {@code IBV_WC_TM_DEL} (131): a tag was removed from a tag-matching shared receive queue (not used by this
     * library).
     */
    TM_DEL(131),
    /** {@code IBV_WC_TM_SYNC} (132): a tag list synchronisation of tag matching completed (not used by this library). */
    TM_SYNC(132),
    /** {@code IBV_WC_TM_RECV} (133): a tagged message matched a posted tag (not used by this library). */
    TM_RECV(133),
    /**
     * {@code IBV_WC_TM_NO_TAG} (134): a tagged message arrived that matched no posted tag (not used by this library).
     */
    TM_NO_TAG(134),
    /** {@code IBV_WC_DRIVER1} (135): an opcode whose meaning the provider defines. */
    DRIVER1(135),
    /** {@code IBV_WC_DRIVER2} (136): an opcode whose meaning the provider defines. */
    DRIVER2(136),
    /** {@code IBV_WC_DRIVER3} (137): an opcode whose meaning the provider defines. */
    DRIVER3(137),
    /**
     * A value this library does not know; not a C value. Newer libibverbs opcodes land here, for example
     * {@code IBV_WC_ATOMIC_WRITE} (9).
     */
    UNKNOWN(-1);

    private static final CodeTable<WcOpcode> BY_CODE = CodeTable.orUnknown(values(), WcOpcode::code, UNKNOWN);

    private final int code;

    WcOpcode(int code) {
        this.code = code;
    }

    /**
     * The C value.
     *
     * @return the {@code IBV_WC_*} opcode value; -1 for {@link #UNKNOWN}
     */
    public int code() {
        return code;
    }

    /**
     * The constant for a C value; allocation-free. A value this library does not know (a newer
     * libibverbs, kernel or provider may return one) gives {@link #UNKNOWN}, never an exception or null.
     *
     * @param code an {@code enum ibv_wc_opcode} value, as in {@code ibv_wc.opcode}
     * @return the constant with that code, or {@link #UNKNOWN}; never null
     */
    public static WcOpcode of(int code) {
        return BY_CODE.of(code);
    }
}
