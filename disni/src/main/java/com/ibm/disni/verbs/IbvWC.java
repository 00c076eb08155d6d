package com.ibm.disni.verbs;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.IbvWC}: one work completion as a plain Java
 * object mirroring C's {@code struct ibv_wc} (48 bytes on x86_64). Filled by {@code IbvCQ.poll}'s
 * stateful verb call ({@code ibv_poll_cq}); wraps no C call itself and holds no native memory.
 *
 * <p>Compare {@link #getStatus()} with {@code IbvWcStatus.X.ordinal()} and {@link #getOpcode()} with
 * {@code IbvWcOpcode.X.getOpcode()} (or 128 for a receive), as DiSNI programs do. An object handed out by a
 * poll or a completion callback is reused by the next poll: copy what you keep, or {@link #clone()} it.
 *
 * <p>{@code err}, {@code isSend}, {@code wqIndex}, {@code tail1..3}, {@code diff}, {@code wrIndex}
 * and {@code sqcqn} are legacy fields that DiSNI 2.1 never filled; they are kept so programs that touch
 * them still link.
 */
public class IbvWC {

    /** Bytes of C's {@code struct ibv_wc} on x86_64 (48), a non-final static field as in DiSNI 2.1. */
    public static int CSIZE;
    /** Poll result: completions were read (0). */
    public static int CQ_OK;
    /** Poll result: the queue was empty (-1). */
    public static int CQ_EMPTY;
    /** Poll result: polling failed (-2). */
    public static int CQ_POLL_ERR;

    static {
        CSIZE = 48;
        CQ_OK = 0;
        CQ_EMPTY = -1;
        CQ_POLL_ERR = -2;
    }

    /**
     * Stands in for DiSNI 2.1's {@code IbvWC.IbvWcOpcode}: C's {@code enum ibv_wc_opcode} values as DiSNI
     * declares them, each carrying its C value ({@link #getOpcode()}); receives start at 128.
     */
    public enum IbvWcOpcode {
        /** 0. */
        IBV_WC_SEND(0),
        /** 1. */
        IBV_WC_RDMA_WRITE(1),
        /** 2. */
        IBV_WC_RDMA_READ(2),
        /** 3. */
        IBV_WC_COMP_SWAP(3),
        /** 4. */
        IBV_WC_FETCH_ADD(4),
        /** 5. */
        IBV_WC_BIND_MW(5),
        /** 128. */
        IBV_WC_RECV(128),
        /** 129. */
        IBV_WC_RECV_RDMA_WITH_IMM(129);

        private final int opcode;

        IbvWcOpcode(int opcode) {
            this.opcode = opcode;
        }

        /**
         * Returns the C value of this opcode.
         *
         * @return the value {@code ibv_wc.opcode} holds for it
         */
        public int getOpcode() {
            return opcode;
        }

        /**
         * Returns the constant whose C value is {@code opcode}.
         *
         * @param opcode a value of {@code ibv_wc.opcode}
         * @return the constant
         * @throws IllegalArgumentException if DiSNI 2.1 declares no constant for the value (rdma-core has a
         *         few more, such as {@code IBV_WC_LOCAL_INV} = 6, that DiSNI never knew)
         */
        public static IbvWcOpcode valueOf(int opcode) {
            for (IbvWcOpcode o : values()) {
                if (o.opcode == opcode) {
                    return o;
                }
            }
            throw new IllegalArgumentException("no IbvWcOpcode has the value " + opcode);
        }
    }

    /**
     * Stands in for DiSNI 2.1's {@code IbvWC.IbvWcStatus}: C's {@code enum ibv_wc_status} in C order, so
     * {@code ordinal()} is the C value.
     */
    public enum IbvWcStatus {
        /** 0. */
        IBV_WC_SUCCESS,
        /** 1. */
        IBV_WC_LOC_LEN_ERR,
        /** 2. */
        IBV_WC_LOC_QP_OP_ERR,
        /** 3. */
        IBV_WC_LOC_EEC_OP_ERR,
        /** 4. */
        IBV_WC_LOC_PROT_ERR,
        /** 5. */
        IBV_WC_WR_FLUSH_ERR,
        /** 6. */
        IBV_WC_MW_BIND_ERR,
        /** 7. */
        IBV_WC_BAD_RESP_ERR,
        /** 8. */
        IBV_WC_LOC_ACCESS_ERR,
        /** 9. */
        IBV_WC_REM_INV_REQ_ERR,
        /** 10. */
        IBV_WC_REM_ACCESS_ERR,
        /** 11. */
        IBV_WC_REM_OP_ERR,
        /** 12. */
        IBV_WC_RETRY_EXC_ERR,
        /** 13. */
        IBV_WC_RNR_RETRY_EXC_ERR,
        /** 14. */
        IBV_WC_LOC_RDD_VIOL_ERR,
        /** 15. */
        IBV_WC_REM_INV_RD_REQ_ERR,
        /** 16. */
        IBV_WC_REM_ABORT_ERR,
        /** 17. */
        IBV_WC_INV_EECN_ERR,
        /** 18. */
        IBV_WC_INV_EEC_STATE_ERR,
        /** 19. */
        IBV_WC_FATAL_ERR,
        /** 20. */
        IBV_WC_RESP_TIMEOUT_ERR,
        /** 21. */
        IBV_WC_GENERAL_ERR;

        /**
         * Returns the constant whose ordinal (the C value) is {@code status}.
         *
         * @param status a value of {@code ibv_wc.status}
         * @return the constant
         * @throws IllegalArgumentException if the value is outside 0..21
         */
        public static IbvWcStatus valueOf(int status) {
            IbvWcStatus[] all = values();
            if (status < 0 || status >= all.length) {
                throw new IllegalArgumentException("no IbvWcStatus has the value " + status);
            }
            return all[status];
        }
    }

    /**
     * Identifier of the completed work request ({@code ibv_wc.wr_id}), as it was posted; valid for every status.
     */
    protected long wr_id;
    /**
     * Status ({@code ibv_wc.status}): an {@link IbvWcStatus} ordinal, 0 ({@code IBV_WC_SUCCESS}) on success. For
     * any other status only {@code wr_id}, {@code qp_num} and {@code vendor_err} are meaningful.
     */
    protected int status;
    /**
     * Operation ({@code ibv_wc.opcode}): an {@link IbvWcOpcode} value, 128 and up for receives; the
     * provider's number as it wrote it, also one no constant names (C leaves the opcode undefined in error
     * completions).
     */
    protected int opcode;
    /** The provider's own error detail ({@code ibv_wc.vendor_err}), for error completions. */
    protected int vendor_err;
    /** Bytes received ({@code ibv_wc.byte_len}), for receive completions. */
    protected int byte_len;
    /**
     * Immediate data ({@code ibv_wc.imm_data}) as the C field holds it (network byte order, as DiSNI read it):
     * the same {@code int} a sender using this API passed to {@code IbvSendWR.setImm_data}. Meaningful when
     * {@code wc_flags} has {@code IBV_WC_WITH_IMM} (2).
     */
    protected int imm_data;
    /**
     * Number of the local queue pair the work request was posted to ({@code ibv_wc.qp_num}); the CQ processors
     * route completions by it.
     */
    protected int qp_num;
    /** Number of the sending queue pair, for UD receives ({@code ibv_wc.src_qp}). */
    protected int src_qp;
    /**
     * Flags ({@code ibv_wc.wc_flags}), C's bits: {@code IBV_WC_GRH} (1), {@code IBV_WC_WITH_IMM} (2) and others.
     */
    protected int wc_flags;
    /** Partition key index, for UD receives ({@code ibv_wc.pkey_index}). */
    protected short pkey_index;
    /** Source LID, for UD receives on InfiniBand ({@code ibv_wc.slid}); unsigned 16 bits in a {@code short}. */
    protected short slid;
    /** Service level, for UD receives ({@code ibv_wc.sl}). */
    protected short sl;
    /** Destination LID path bits, for UD receives ({@code ibv_wc.dlid_path_bits}). */
    protected short dlid_path_bits;
    /**
     * A legacy field DiSNI 2.1 declared but never filled; a poll never writes it (kept so programs that use it
     * still link).
     */
    protected int err;
    /**
     * A legacy field DiSNI 2.1 declared but never filled; a poll never writes it (kept so programs that use it
     * still link).
     */
    protected boolean isSend;
    /**
     * A legacy field DiSNI 2.1 declared but never filled; a poll never writes it (kept so programs that use it
     * still link).
     */
    protected short wqIndex;
    /**
     * A legacy field DiSNI 2.1 declared but never filled; a poll never writes it (kept so programs that use it
     * still link).
     */
    protected short tail1;
    /**
     * A legacy field DiSNI 2.1 declared but never filled; a poll never writes it (kept so programs that use it
     * still link).
     */
    protected short tail2;
    /**
     * A legacy field DiSNI 2.1 declared but never filled; a poll never writes it (kept so programs that use it
     * still link).
     */
    protected short tail3;
    /**
     * A legacy field DiSNI 2.1 declared but never filled; a poll never writes it (kept so programs that use it
     * still link).
     */
    protected short diff;
    /**
     * A legacy field DiSNI 2.1 declared but never filled and gave no accessor; a poll never writes it,
     * {@link #clone()} copies it.
     */
    protected int wrIndex;
    /**
     * A legacy field DiSNI 2.1 declared but never filled; a poll never writes it (kept so programs that use it
     * still link).
     */
    protected int sqcqn;

    /** A completion with every field 0. */
    public IbvWC() {
    }

    /**
     * Returns a copy of every field (DiSNI 2.1 left {@code src_qp}, {@code vendor_err} and {@code sqcqn}
     * out of the copy; this module copies them too).
     *
     * @return a new object equal field by field
     */
    @Override
    public IbvWC clone() {
        IbvWC copy = new IbvWC();
        copy.wr_id = wr_id;
        copy.status = status;
        copy.opcode = opcode;
        copy.vendor_err = vendor_err;
        copy.byte_len = byte_len;
        copy.imm_data = imm_data;
        copy.qp_num = qp_num;
        copy.src_qp = src_qp;
        copy.wc_flags = wc_flags;
        copy.pkey_index = pkey_index;
        copy.slid = slid;
        copy.sl = sl;
        copy.dlid_path_bits = dlid_path_bits;
        copy.err = err;
        copy.isSend = isSend;
        copy.wqIndex = wqIndex;
        copy.tail1 = tail1;
        copy.tail2 = tail2;
        copy.tail3 = tail3;
        copy.diff = diff;
        copy.wrIndex = wrIndex;
        copy.sqcqn = sqcqn;
        return copy;
    }

    /**
     * Returns the identifier of the completed work request ({@code ibv_wc.wr_id}).
     *
     * @return the value
     */
    public long getWr_id() {
        return wr_id;
    }

    /**
     * Sets the identifier of the completed work request ({@code ibv_wc.wr_id}).
     *
     * @param wr_id the value
     */
    public void setWr_id(long wr_id) {
        this.wr_id = wr_id;
    }

    /**
     * Returns the status ({@code ibv_wc.status}): {@link IbvWcStatus} ordinal, 0 for success.
     *
     * @return the value
     */
    public int getStatus() {
        return status;
    }

    /**
     * Sets the status ({@code ibv_wc.status}): {@link IbvWcStatus} ordinal, 0 for success.
     *
     * @param status the value
     */
    public void setStatus(int status) {
        this.status = status;
    }

    /**
     * Returns the operation ({@code ibv_wc.opcode}): an {@link IbvWcOpcode} value, 128 for a receive.
     *
     * @return the value
     */
    public int getOpcode() {
        return opcode;
    }

    /**
     * Sets the operation ({@code ibv_wc.opcode}): an {@link IbvWcOpcode} value, 128 for a receive.
     *
     * @param opcode the value
     */
    public void setOpcode(int opcode) {
        this.opcode = opcode;
    }

    /**
     * Returns the vendor error ({@code ibv_wc.vendor_err}).
     *
     * @return the value
     */
    public int getVendor_err() {
        return vendor_err;
    }

    /**
     * Sets the vendor error ({@code ibv_wc.vendor_err}).
     *
     * @param vendor_err the value
     */
    public void setVendor_err(int vendor_err) {
        this.vendor_err = vendor_err;
    }

    /**
     * Returns the number of bytes received ({@code ibv_wc.byte_len}).
     *
     * @return the value
     */
    public int getByte_len() {
        return byte_len;
    }

    /**
     * Sets the number of bytes received ({@code ibv_wc.byte_len}).
     *
     * @param byte_len the value
     */
    public void setByte_len(int byte_len) {
        this.byte_len = byte_len;
    }

    /**
     * Returns the immediate data ({@code ibv_wc.imm_data}, network byte order as C has it).
     *
     * @return the value
     */
    public int getImm_data() {
        return imm_data;
    }

    /**
     * Sets the immediate data ({@code ibv_wc.imm_data}, network byte order as C has it).
     *
     * @param imm_data the value
     */
    public void setImm_data(int imm_data) {
        this.imm_data = imm_data;
    }

    /**
     * Returns the local queue pair number ({@code ibv_wc.qp_num}).
     *
     * @return the value
     */
    public int getQp_num() {
        return qp_num;
    }

    /**
     * Sets the local queue pair number ({@code ibv_wc.qp_num}).
     *
     * @param qp_num the value
     */
    public void setQp_num(int qp_num) {
        this.qp_num = qp_num;
    }

    /**
     * Returns the remote queue pair number of a datagram ({@code ibv_wc.src_qp}).
     *
     * @return the value
     */
    public int getSrc_qp() {
        return src_qp;
    }

    /**
     * Sets the remote queue pair number of a datagram ({@code ibv_wc.src_qp}).
     *
     * @param src_qp the value
     */
    public void setSrc_qp(int src_qp) {
        this.src_qp = src_qp;
    }

    /**
     * Returns the flags ({@code ibv_wc.wc_flags}).
     *
     * @return the value
     */
    public int getWc_flags() {
        return wc_flags;
    }

    /**
     * Sets the flags ({@code ibv_wc.wc_flags}).
     *
     * @param wc_flags the value
     */
    public void setWc_flags(int wc_flags) {
        this.wc_flags = wc_flags;
    }

    /**
     * Returns the partition key index ({@code ibv_wc.pkey_index}).
     *
     * @return the value
     */
    public short getPkey_index() {
        return pkey_index;
    }

    /**
     * Sets the partition key index ({@code ibv_wc.pkey_index}).
     *
     * @param pkey_index the value
     */
    public void setPkey_index(short pkey_index) {
        this.pkey_index = pkey_index;
    }

    /**
     * Returns the source LID ({@code ibv_wc.slid}).
     *
     * @return the value
     */
    public short getSlid() {
        return slid;
    }

    /**
     * Sets the source LID ({@code ibv_wc.slid}).
     *
     * @param slid the value
     */
    public void setSlid(short slid) {
        this.slid = slid;
    }

    /**
     * Returns the service level ({@code ibv_wc.sl}).
     *
     * @return the value
     */
    public short getSl() {
        return sl;
    }

    /**
     * Sets the service level ({@code ibv_wc.sl}).
     *
     * @param sl the value
     */
    public void setSl(short sl) {
        this.sl = sl;
    }

    /**
     * Returns the destination LID path bits ({@code ibv_wc.dlid_path_bits}).
     *
     * @return the value
     */
    public short getDlid_path_bits() {
        return dlid_path_bits;
    }

    /**
     * Sets the destination LID path bits ({@code ibv_wc.dlid_path_bits}).
     *
     * @param dlid_path_bits the value
     */
    public void setDlid_path_bits(short dlid_path_bits) {
        this.dlid_path_bits = dlid_path_bits;
    }

    /**
     * Returns a legacy field DiSNI never filled (kept for compatibility).
     *
     * @return the value
     */
    public int getErr() {
        return err;
    }

    /**
     * Sets a legacy field DiSNI never filled (kept for compatibility).
     *
     * @param err the value
     */
    public void setErr(int err) {
        this.err = err;
    }

    /**
     * Returns a legacy field DiSNI never filled.
     *
     * @return the value
     */
    public short getWqIndex() {
        return wqIndex;
    }

    /**
     * Sets a legacy field DiSNI never filled.
     *
     * @param wqIndex the value
     */
    public void setWqIndex(short wqIndex) {
        this.wqIndex = wqIndex;
    }

    /**
     * Returns a legacy field DiSNI never filled.
     *
     * @return the value
     */
    public short getTail1() {
        return tail1;
    }

    /**
     * Sets a legacy field DiSNI never filled.
     *
     * @param tail1 the value
     */
    public void setTail1(short tail1) {
        this.tail1 = tail1;
    }

    /**
     * Returns a legacy field DiSNI never filled.
     *
     * @return the value
     */
    public short getTail2() {
        return tail2;
    }

    /**
     * Sets a legacy field DiSNI never filled.
     *
     * @param tail2 the value
     */
    public void setTail2(short tail2) {
        this.tail2 = tail2;
    }

    /**
     * Returns a legacy field DiSNI never filled.
     *
     * @return the value
     */
    public short getTail3() {
        return tail3;
    }

    /**
     * Sets a legacy field DiSNI never filled.
     *
     * @param tail3 the value
     */
    public void setTail3(short tail3) {
        this.tail3 = tail3;
    }

    /**
     * Returns a legacy field DiSNI never filled.
     *
     * @return the value
     */
    public short getDiff() {
        return diff;
    }

    /**
     * Sets a legacy field DiSNI never filled.
     *
     * @param diff the value
     */
    public void setDiff(short diff) {
        this.diff = diff;
    }

    /**
     * Returns a legacy field DiSNI never filled.
     *
     * @return the value
     */
    public int getSqcqn() {
        return sqcqn;
    }

    /**
     * Sets a legacy field DiSNI never filled.
     *
     * @param sqcqn the value
     */
    public void setSqcqn(int sqcqn) {
        this.sqcqn = sqcqn;
    }

    /**
     * Returns the legacy send flag, never set by a poll.
     *
     * @return the value
     */
    public boolean isSend() {
        return isSend;
    }

    /**
     * Sets the legacy send flag.
     *
     * @param isSend the value
     */
    public void setSend(boolean isSend) {
        this.isSend = isSend;
    }

    /**
     * Returns this type's simple name, {@code "IbvWC"}.
     *
     * @return the name
     */
    public String getClassName() {
        return "IbvWC";
    }
}
