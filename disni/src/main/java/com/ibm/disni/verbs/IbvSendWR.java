package com.ibm.disni.verbs;

import java.util.LinkedList;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.IbvSendWR}: a send work request as a plain Java
 * object mirroring C's {@code struct ibv_send_wr} (identifier, scatter-gather list, opcode, flags,
 * immediate data, and the {@code wr} union as three objects: {@link Rdma}, {@link Atomic}, {@link Ud}).
 * Wraps no C call and holds no native memory; {@code IbvQP.postSend} turns a list of these into a stateful
 * verb call ({@code ibv_post_send}) that copies them once, so later changes to this object are not seen by
 * it (use the call's {@code SendWRMod}).
 *
 * <p>The memory its entries name must stay registered and alive until the request has completed.
 *
 * <p>The {@code IBV_WR_*} opcodes are compile-time constants (inlined into callers, so their values are
 * fixed); the {@code IBV_SEND_*} flags are non-final static fields, as in DiSNI 2.1.
 */
public class IbvSendWR {

    /** {@code IBV_WR_RDMA_WRITE}. */
    public static final int IBV_WR_RDMA_WRITE = 0;
    /** {@code IBV_WR_RDMA_WRITE_WITH_IMM}. */
    public static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;
    /** {@code IBV_WR_SEND}. */
    public static final int IBV_WR_SEND = 2;
    /** {@code IBV_WR_SEND_WITH_IMM}. */
    public static final int IBV_WR_SEND_WITH_IMM = 3;
    /** {@code IBV_WR_RDMA_READ}. */
    public static final int IBV_WR_RDMA_READ = 4;
    /** {@code IBV_WR_ATOMIC_CMP_AND_SWP}. */
    public static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;
    /** {@code IBV_WR_ATOMIC_FETCH_AND_ADD}. */
    public static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;

    /** {@code IBV_SEND_FENCE} (1). */
    public static int IBV_SEND_FENCE;
    /** {@code IBV_SEND_SIGNALED} (2): the request produces a completion. */
    public static int IBV_SEND_SIGNALED;
    /** {@code IBV_SEND_SOLICITED} (4). */
    public static int IBV_SEND_SOLICITED;
    /** {@code IBV_SEND_INLINE} (8): the payload is copied into the request when posted. */
    public static int IBV_SEND_INLINE;

    static {
        IBV_SEND_FENCE = 1;
        IBV_SEND_SIGNALED = 2;
        IBV_SEND_SOLICITED = 4;
        IBV_SEND_INLINE = 8;
    }

    /**
     * Stands in for DiSNI 2.1's {@code IbvSendWR.IbvWrOcode}: the opcodes in C's {@code enum ibv_wr_opcode}
     * order, so {@code ordinal()} is the C value (programs pass {@code IBV_WR_SEND.ordinal()} as opcode).
     */
    public enum IbvWrOcode {
        /** 0. */
        IBV_WR_RDMA_WRITE,
        /** 1. */
        IBV_WR_RDMA_WRITE_WITH_IMM,
        /** 2. */
        IBV_WR_SEND,
        /** 3. */
        IBV_WR_SEND_WITH_IMM,
        /** 4. */
        IBV_WR_RDMA_READ,
        /** 5. */
        IBV_WR_ATOMIC_CMP_AND_SWP,
        /** 6. */
        IBV_WR_ATOMIC_FETCH_AND_ADD
    }

    /**
     * The caller's identifier ({@code ibv_send_wr.wr_id}), handed back in the request's completion (only a signaled
     * request has one).
     */
    protected long wr_id;
    /**
     * This request's own list of scatter-gather entries (the entries are shared with the caller, the list is not);
     * a post uses the first {@code num_sge}.
     */
    protected LinkedList<IbvSge> sg_list;
    /**
     * How many entries of {@code sg_list} a post uses ({@code ibv_send_wr.num_sge});
     * {@link #setSg_list(LinkedList)} sets it to the list's size. The post call refuses a list shorter than this.
     */
    protected int num_sge;
    /**
     * The operation ({@code ibv_send_wr.opcode}), one of the {@code IBV_WR_*} constants; 0
     * ({@link #IBV_WR_RDMA_WRITE}) by default. The post call refuses any other value.
     */
    protected int opcode;
    /**
     * {@code IBV_SEND_*} bits ({@code ibv_send_wr.send_flags}), 0 by default: without {@code IBV_SEND_SIGNALED} the
     * request produces no completion unless the queue pair signals every request.
     */
    protected int send_flags;
    /**
     * Immediate data of the {@code *_WITH_IMM} operations ({@code ibv_send_wr.imm_data}) as the C field holds it
     * (network byte order); the receiver's {@code IbvWC.getImm_data()} returns the same {@code int}.
     */
    protected int imm_data;
    /** The RDMA part ({@code wr.rdma}): remote address and key of RDMA WRITE and READ. */
    protected Rdma rdma;
    /**
     * The atomic part ({@code wr.atomic}): remote address, key and operands of compare-and-swap and fetch-and-add.
     */
    protected Atomic atomic;
    /** The datagram part ({@code wr.ud}); never read, since this module's post refuses UD queue pairs. */
    protected Ud ud;

    /** A request with an empty scatter-gather list, opcode 0 (RDMA WRITE), no flags, zeroed union parts. */
    public IbvSendWR() {
        this(new Rdma(), new Atomic(), new Ud(), new LinkedList<>());
    }

    /**
     * A request over the given parts, kept by reference.
     *
     * @param rdma the RDMA part
     * @param atomic the atomic part
     * @param ud the datagram part
     * @param sg_list the scatter-gather list
     */
    protected IbvSendWR(Rdma rdma, Atomic atomic, Ud ud, LinkedList<IbvSge> sg_list) {
        this.rdma = rdma;
        this.atomic = atomic;
        this.ud = ud;
        this.sg_list = sg_list;
    }

    /**
     * Returns the caller's identifier, handed back in the completion ({@code ibv_send_wr.wr_id}).
     *
     * @return the value
     */
    public long getWr_id() {
        return wr_id;
    }

    /**
     * Sets the caller's identifier, handed back in the completion ({@code ibv_send_wr.wr_id}).
     *
     * @param wr_id the value
     */
    public void setWr_id(long wr_id) {
        this.wr_id = wr_id;
    }

    /**
     * Returns the request's own scatter-gather list (entries added to it count once {@code num_sge} is set).
     *
     * @return the list, never null for a request made by the public constructor
     */
    public LinkedList<IbvSge> getSg_list() {
        return sg_list;
    }

    /**
     * Returns entry {@code index} of the scatter-gather list.
     *
     * @param index the entry's position
     * @return the entry
     * @throws IndexOutOfBoundsException if there is no such entry
     */
    public IbvSge getSge(int index) {
        return sg_list.get(index);
    }

    /**
     * Copies the entries of {@code sg_list} (the entries themselves, not copies of them) into this request's
     * own list, replacing what it held, and sets {@code num_sge} to their number.
     *
     * @param sg_list the entries
     */
    public void setSg_list(LinkedList<IbvSge> sg_list) {
        if (this.sg_list == null) {
            this.sg_list = new LinkedList<>();
        }
        if (sg_list != this.sg_list) {
            this.sg_list.clear();
            this.sg_list.addAll(sg_list);
        }
        this.num_sge = this.sg_list.size();
    }

    /**
     * Returns the number of scatter-gather entries the request carries ({@code ibv_send_wr.num_sge}); {@link #setSg_list(LinkedList)} sets it to the list's size.
     *
     * @return the value
     */
    public int getNum_sge() {
        return num_sge;
    }

    /**
     * Sets the number of scatter-gather entries the request carries ({@code ibv_send_wr.num_sge}); {@link #setSg_list(LinkedList)} sets it to the list's size.
     *
     * @param num_sge the value
     */
    public void setNum_sge(int num_sge) {
        this.num_sge = num_sge;
    }

    /**
     * Returns the operation ({@code ibv_send_wr.opcode}): one of the {@code IBV_WR_*} constants.
     *
     * @return the value
     */
    public int getOpcode() {
        return opcode;
    }

    /**
     * Sets the operation ({@code ibv_send_wr.opcode}): one of the {@code IBV_WR_*} constants.
     *
     * @param opcode the value
     */
    public void setOpcode(int opcode) {
        this.opcode = opcode;
    }

    /**
     * Returns the flags ({@code ibv_send_wr.send_flags}): {@code IBV_SEND_*} bits.
     *
     * @return the value
     */
    public int getSend_flags() {
        return send_flags;
    }

    /**
     * Sets the flags ({@code ibv_send_wr.send_flags}): {@code IBV_SEND_*} bits.
     *
     * @param send_flags the value
     */
    public void setSend_flags(int send_flags) {
        this.send_flags = send_flags;
    }

    /**
     * Returns the immediate data of the {@code *_WITH_IMM} operations ({@code ibv_send_wr.imm_data}), sent as given: C declares it in network byte order.
     *
     * @return the value
     */
    public int getImm_data() {
        return imm_data;
    }

    /**
     * Sets the immediate data of the {@code *_WITH_IMM} operations ({@code ibv_send_wr.imm_data}), sent as given: C declares it in network byte order.
     *
     * @param imm_data the value
     */
    public void setImm_data(int imm_data) {
        this.imm_data = imm_data;
    }

    /**
     * Returns the RDMA part ({@code wr.rdma}), used by RDMA WRITE and READ.
     *
     * @return the part, which may be changed in place
     */
    public Rdma getRdma() {
        return rdma;
    }

    /**
     * Returns the atomic part ({@code wr.atomic}), used by compare-and-swap and fetch-and-add.
     *
     * @return the part, which may be changed in place
     */
    public Atomic getAtomic() {
        return atomic;
    }

    /**
     * Returns the datagram part ({@code wr.ud}), used on UD queue pairs.
     *
     * @return the part, which may be changed in place
     */
    public Ud getUd() {
        return ud;
    }

    /**
     * Stands in for DiSNI 2.1's {@code IbvSendWR.Rdma}: the RDMA WRITE / READ part of a send work request
     * ({@code wr.rdma} of C's {@code struct ibv_send_wr}). A plain value holder; wraps no C call.
     */
    public static class Rdma {

        /**
         * Address in the peer's registered region that the RDMA WRITE writes to or the READ reads from
         * ({@code wr.rdma.remote_addr}).
         */
        protected long remote_addr;
        /** Remote key of the peer's region ({@code wr.rdma.rkey}), the peer's {@code IbvMr.getRkey()}. */
        protected int rkey;
        /** A reserved word kept for DiSNI compatibility; copied by the post call but never sent. */
        protected int reserved;

        /** All fields 0. */
        public Rdma() {
        }

        /**
         * Returns the remote address ({@code wr.rdma.remote_addr}).
         *
         * @return the value
         */
        public long getRemote_addr() {
            return remote_addr;
        }

        /**
         * Sets the remote address ({@code wr.rdma.remote_addr}).
         *
         * @param remote_addr the value
         */
        public void setRemote_addr(long remote_addr) {
            this.remote_addr = remote_addr;
        }

        /**
         * Returns the remote key of the region at the remote address ({@code wr.rdma.rkey}).
         *
         * @return the value
         */
        public int getRkey() {
            return rkey;
        }

        /**
         * Sets the remote key of the region at the remote address ({@code wr.rdma.rkey}).
         *
         * @param rkey the value
         */
        public void setRkey(int rkey) {
            this.rkey = rkey;
        }

        /**
         * Returns the reserved word after the key (DiSNI wrote it; libibverbs ignores it).
         *
         * @return the value
         */
        public int getReserved() {
            return reserved;
        }

        /**
         * Sets the reserved word after the key (DiSNI wrote it; libibverbs ignores it).
         *
         * @param reserved the value
         */
        public void setReserved(int reserved) {
            this.reserved = reserved;
        }

        /**
         * Returns this type's simple name, {@code "Rdma"}.
         *
         * @return the name
         */
        public String getClassName() {
            return "Rdma";
        }
    }

    /**
     * Stands in for DiSNI 2.1's {@code IbvSendWR.Atomic}: the atomic (compare-and-swap, fetch-and-add) part of a send work request
     * ({@code wr.atomic} of C's {@code struct ibv_send_wr}). A plain value holder; wraps no C call.
     */
    public static class Atomic {

        /**
         * Address of the peer's 8-byte operand ({@code wr.atomic.remote_addr}), 8-byte aligned, in a region
         * registered with {@code IBV_ACCESS_REMOTE_ATOMIC}.
         */
        protected long remote_addr;
        /**
         * The value compare-and-swap compares the remote operand with, or fetch-and-add adds to it
         * ({@code wr.atomic.compare_add}).
         */
        protected long compare_add;
        /**
         * The value compare-and-swap writes when the comparison matches ({@code wr.atomic.swap}); unused by
         * fetch-and-add.
         */
        protected long swap;
        /** Remote key of the peer's region ({@code wr.atomic.rkey}). */
        protected int rkey;
        /** A reserved word kept for DiSNI compatibility (C's {@code wr.atomic} has none); never sent. */
        protected int reserved;

        /** All fields 0. */
        public Atomic() {
        }

        /**
         * Returns the remote address, 8-byte aligned ({@code wr.atomic.remote_addr}).
         *
         * @return the value
         */
        public long getRemote_addr() {
            return remote_addr;
        }

        /**
         * Sets the remote address, 8-byte aligned ({@code wr.atomic.remote_addr}).
         *
         * @param remote_addr the value
         */
        public void setRemote_addr(long remote_addr) {
            this.remote_addr = remote_addr;
        }

        /**
         * Returns the value compared (compare-and-swap) or added (fetch-and-add) ({@code wr.atomic.compare_add}).
         *
         * @return the value
         */
        public long getCompare_add() {
            return compare_add;
        }

        /**
         * Sets the value compared (compare-and-swap) or added (fetch-and-add) ({@code wr.atomic.compare_add}).
         *
         * @param compare_add the value
         */
        public void setCompare_add(long compare_add) {
            this.compare_add = compare_add;
        }

        /**
         * Returns the value swapped in by compare-and-swap ({@code wr.atomic.swap}).
         *
         * @return the value
         */
        public long getSwap() {
            return swap;
        }

        /**
         * Sets the value swapped in by compare-and-swap ({@code wr.atomic.swap}).
         *
         * @param swap the value
         */
        public void setSwap(long swap) {
            this.swap = swap;
        }

        /**
         * Returns the remote key of the region at the remote address ({@code wr.atomic.rkey}).
         *
         * @return the value
         */
        public int getRkey() {
            return rkey;
        }

        /**
         * Sets the remote key of the region at the remote address ({@code wr.atomic.rkey}).
         *
         * @param rkey the value
         */
        public void setRkey(int rkey) {
            this.rkey = rkey;
        }

        /**
         * Returns a reserved word kept for DiSNI compatibility (C has no such atomic field).
         *
         * @return the value
         */
        public int getReserved() {
            return reserved;
        }

        /**
         * Sets a reserved word kept for DiSNI compatibility (C has no such atomic field).
         *
         * @param reserved the value
         */
        public void setReserved(int reserved) {
            this.reserved = reserved;
        }

        /**
         * Returns this type's simple name, {@code "Atomic"}.
         *
         * @return the name
         */
        public String getClassName() {
            return "Atomic";
        }
    }

    /**
     * Stands in for DiSNI 2.1's {@code IbvSendWR.Ud}: the unreliable-datagram part of a send work request
     * ({@code wr.ud} of C's {@code struct ibv_send_wr}). A plain value holder; wraps no C call.
     */
    public static class Ud {

        /**
         * The destination's address handle ({@code wr.ud.ah}), an {@code int} in DiSNI's API, which has no call
         * that makes one.
         */
        protected int ah;
        /** Number of the destination queue pair ({@code wr.ud.remote_qpn}), 24 bits. */
        protected int remote_qpn;
        /** Q_Key of the destination queue pair ({@code wr.ud.remote_qkey}). */
        protected int remote_qkey;
        /** A reserved word kept for DiSNI compatibility; never sent. */
        protected int reserved;

        /** All fields 0. */
        public Ud() {
        }

        /**
         * Returns the address handle naming the destination ({@code wr.ud.ah}).
         *
         * @return the value
         */
        public int getAh() {
            return ah;
        }

        /**
         * Sets the address handle naming the destination ({@code wr.ud.ah}).
         *
         * @param ah the value
         */
        public void setAh(int ah) {
            this.ah = ah;
        }

        /**
         * Returns the destination queue pair number ({@code wr.ud.remote_qpn}).
         *
         * @return the value
         */
        public int getRemote_qpn() {
            return remote_qpn;
        }

        /**
         * Sets the destination queue pair number ({@code wr.ud.remote_qpn}).
         *
         * @param remote_qpn the value
         */
        public void setRemote_qpn(int remote_qpn) {
            this.remote_qpn = remote_qpn;
        }

        /**
         * Returns the destination Q_Key ({@code wr.ud.remote_qkey}).
         *
         * @return the value
         */
        public int getRemote_qkey() {
            return remote_qkey;
        }

        /**
         * Sets the destination Q_Key ({@code wr.ud.remote_qkey}).
         *
         * @param remote_qkey the value
         */
        public void setRemote_qkey(int remote_qkey) {
            this.remote_qkey = remote_qkey;
        }

        /**
         * Returns a reserved word kept for DiSNI compatibility.
         *
         * @return the value
         */
        public int getReserved() {
            return reserved;
        }

        /**
         * Sets a reserved word kept for DiSNI compatibility.
         *
         * @param reserved the value
         */
        public void setReserved(int reserved) {
            this.reserved = reserved;
        }

        /**
         * Returns this type's simple name, {@code "Ud"}.
         *
         * @return the name
         */
        public String getClassName() {
            return "Ud";
        }
    }
}
