package org.panamaverbs.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.nio.ByteOrder;

import org.panamaverbs.ffi.ibv_send_wr;

/**
 * A flyweight over one {@code struct ibv_send_wr} of a {@link SendChain} chain: {@code wr_id} and
 * the scatter-gather list as in every {@link WorkRequest}, plus what only a send has (opcode, flags,
 * immediate data, and the RDMA, UD or atomic target). Setters write the native fields directly and return
 * {@code this}; nothing is allocated. Fields keep their values between posts until changed. The
 * {@code next} and {@code sg_list} pointers are managed by the chain.
 */
public final class SendWorkRequest extends WorkRequest<SendWorkRequest> {
    /** {@code imm_data} is in network byte order (C's {@code htonl}): swapped on a little-endian host. */
    private static final boolean BIG_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN;
    private static final long OPCODE = ibv_send_wr.opcode$offset();
    private static final long SEND_FLAGS = ibv_send_wr.send_flags$offset();
    private static final long IMM_DATA = ibv_send_wr.imm_data$offset();
    private static final long RDMA_REMOTE_ADDR =
            ibv_send_wr.wr$offset() + ibv_send_wr.wr.rdma$offset() + ibv_send_wr.wr.rdma.remote_addr$offset();
    private static final long RDMA_RKEY =
            ibv_send_wr.wr$offset() + ibv_send_wr.wr.rdma$offset() + ibv_send_wr.wr.rdma.rkey$offset();
    private static final long UD_BASE = ibv_send_wr.wr$offset() + ibv_send_wr.wr.ud$offset();
    private static final long UD_AH = UD_BASE + ibv_send_wr.wr.ud.ah$offset();
    private static final long UD_REMOTE_QPN = UD_BASE + ibv_send_wr.wr.ud.remote_qpn$offset();
    private static final long UD_REMOTE_QKEY = UD_BASE + ibv_send_wr.wr.ud.remote_qkey$offset();
    private static final long ATOMIC_BASE = ibv_send_wr.wr$offset() + ibv_send_wr.wr.atomic$offset();
    private static final long ATOMIC_REMOTE_ADDR = ATOMIC_BASE + ibv_send_wr.wr.atomic.remote_addr$offset();
    private static final long ATOMIC_COMPARE_ADD = ATOMIC_BASE + ibv_send_wr.wr.atomic.compare_add$offset();
    private static final long ATOMIC_SWAP = ATOMIC_BASE + ibv_send_wr.wr.atomic.swap$offset();
    private static final long ATOMIC_RKEY = ATOMIC_BASE + ibv_send_wr.wr.atomic.rkey$offset();

    /** The chain as its own type, for the per-request bookkeeping only sends have (special bits, address handles). */
    private final SendChain sends;

    SendWorkRequest(SendChain chain, int index) {
        super(chain, index, SendChain.WR_SIZE, ibv_send_wr.wr_id$offset(), ibv_send_wr.num_sge$offset());
        this.sends = chain;
    }

    /**
     * Sets {@code opcode}.
     *
     * @param opcode the operation; not null. An atomic opcode makes the next post check the queue pair's
     *               atomic support and the single 8-byte entry the operation needs
     * @return this request, for chaining
     * @throws WrongThreadException      if another thread has posted the chain
     */
    public SendWorkRequest opcode(WrOpcode opcode) {
        boolean unbound = beginWrite();
        try {
            int old = intAt(OPCODE);
            putInt(OPCODE, opcode.code());
            if (isAtomic(old) != isAtomic(opcode.code())) { // the data path re-checks only what can change the answer
                refreshSpecial();
            }
        } finally {
            endWrite(unbound);
        }
        return this;
    }

    private static boolean isAtomic(int code) {
        return code == WrOpcode.ATOMIC_CMP_AND_SWP.code() || code == WrOpcode.ATOMIC_FETCH_AND_ADD.code();
    }

    /** {@return {@code opcode}, as last set ({@link WrOpcode#RDMA_WRITE}, code 0, in a new chain)} */
    public WrOpcode opcode() {
        return WrOpcode.of(requests.get(JAVA_INT, base + OPCODE));
    }

    /**
     * Sets {@code send_flags}: a combination of {@link SendFlags} bits.
     *
     * @param sendFlags the {@code IBV_SEND_*} bits OR-ed together, for example
     *                  {@code SendFlags.SIGNALED | SendFlags.INLINE}; 0 for none. Without
     *                  {@link SendFlags#SIGNALED} the request produces a completion only on an error or when
     *                  the queue pair signals all ({@link QpConfig#signalAll()}); with {@link SendFlags#INLINE}
     *                  the payload must fit the queue pair's {@code max_inline_data}
     * @return this request, for chaining
     * @throws WrongThreadException      if another thread has posted the chain
     */
    public SendWorkRequest flags(int sendFlags) {
        boolean unbound = beginWrite();
        try {
            int old = intAt(SEND_FLAGS);
            putInt(SEND_FLAGS, sendFlags);
            if (((old ^ sendFlags) & SendFlags.INLINE) != 0) {
                refreshSpecial();
            }
        } finally {
            endWrite(unbound);
        }
        return this;
    }

    /**
     * {@code wr.rdma} and {@code wr.atomic} share their first 8 bytes with {@code wr.ud.ah}: writing them
     * overwrites the address-handle pointer, so the request no longer has one (a UD post then refuses it
     * instead of handing the provider a number to dereference).
     */
    private void forgetAddressHandle() {
        if (sends.addressHandle(index) != null) {
            sends.addressHandle(index, null);
            refreshSpecial();
        }
    }

    /** Tells the chain whether this request needs the queue pair's atomic or inline support checked at post. */
    private void refreshSpecial() {
        int code = intAt(OPCODE);
        int bits = (isAtomic(code) ? SendChain.SPECIAL_ATOMIC : 0)
                | ((intAt(SEND_FLAGS) & SendFlags.INLINE) != 0 ? SendChain.SPECIAL_INLINE : 0)
                | (sends.addressHandle(index) != null ? SendChain.SPECIAL_UD : 0);
        sends.markSpecial(index, bits);
    }

    /** {@return {@code send_flags}: the {@link SendFlags} bits, as last set (0 in a new chain)} */
    public int flags() {
        return requests.get(JAVA_INT, base + SEND_FLAGS);
    }

    /**
     * Sets {@code imm_data} for {@link WrOpcode#SEND_WITH_IMM} and {@link WrOpcode#RDMA_WRITE_WITH_IMM}.
     * The value is stored in network byte order, as C code does with {@code htonl}, and
     * {@link WorkCompletion#immediateData()} returns it unchanged on the receiving side.
     *
     * @param value any 32-bit value, in host order; ignored by the other opcodes
     * @return this request, for chaining
     * @throws WrongThreadException      if another thread has posted the chain
     */
    public SendWorkRequest immediateData(int value) {
        boolean unbound = beginWrite();
        try {
            putInt(IMM_DATA, BIG_ENDIAN ? value : Integer.reverseBytes(value));
        } finally {
            endWrite(unbound);
        }
        return this;
    }

    /**
     * Sets {@code wr.rdma.remote_addr} and {@code wr.rdma.rkey}: the peer memory of an RDMA WRITE or READ.
     * Overwrites a UD destination set with {@link #ud} (the fields share memory).
     *
     * @param remoteAddress the virtual address of the first remote byte, as the peer's region reports it
     *                      ({@link MemoryRegion#address()} there) plus an offset; the transfer's length is the sum
     *                      of this request's entries and must stay inside the peer's region
     * @param rkey          the peer region's remote key ({@link MemoryRegion#rkey()} there), registered with
     *                      {@link Access#REMOTE_WRITE} or {@link Access#REMOTE_READ} as the opcode needs
     * @return this request, for chaining
     * @throws WrongThreadException      if another thread has posted the chain
     */
    public SendWorkRequest remote(long remoteAddress, int rkey) {
        boolean unbound = beginWrite();
        try {
            forgetAddressHandle();
            putLong(RDMA_REMOTE_ADDR, remoteAddress);
            putInt(RDMA_RKEY, rkey);
        } finally {
            endWrite(unbound);
        }
        return this;
    }

    /**
     * Sets {@code wr.ud}: the destination of a send on an unreliable-datagram queue pair. The message
     * (all entries together) must fit the path MTU.
     *
     * @param handle    the route to the peer (kept: a closed handle makes the post fail before the provider)
     * @param remoteQpn the peer's queue pair number
     * @param qkey      the peer's Q_Key, as given to its {@link QueuePair#readyForDatagrams(int)}
     * @return this request, for chaining
     * @throws IllegalStateException if {@code handle} is closed
     * @throws WrongThreadException      if another thread has posted the chain
     */
    public SendWorkRequest ud(AddressHandle handle, int remoteQpn, int qkey) {
        boolean unbound = beginWrite();
        try {
            handle.ensureOpen();
            writeUd(handle.handleUnchecked().address(), remoteQpn, qkey);
            sends.addressHandle(index, handle);
            refreshSpecial();
        } finally {
            endWrite(unbound);
        }
        return this;
    }

    /** Writes the {@code wr.ud} fields (the encoding {@link #ud} uses, compared with gcc's by the layout tests). */
    void writeUd(long addressHandle, int remoteQpn, int qkey) {
        putLong(UD_AH, addressHandle);
        putInt(UD_REMOTE_QPN, remoteQpn);
        putInt(UD_REMOTE_QKEY, qkey);
    }

    /**
     * Sets {@code wr.atomic}: the remote 64-bit word of {@link WrOpcode#ATOMIC_CMP_AND_SWP} (compare with
     * {@code compareAdd}, replace with {@code swap}) or {@link WrOpcode#ATOMIC_FETCH_AND_ADD} (add
     * {@code compareAdd}; {@code swap} is ignored). The request's single 8-byte SGE receives the old value.
     * The peer's region and queue pair need {@link Access#REMOTE_ATOMIC}.
     *
     * @param remoteAddress the virtual address of the peer's 64-bit word, 8-byte aligned, inside a region of
     *                      the peer registered with {@link Access#REMOTE_ATOMIC}
     * @param rkey          that region's remote key
     * @param compareAdd    for compare-and-swap the value to compare with; for fetch-and-add the value to add
     *                      (wrapping, unsigned 64-bit arithmetic)
     * @param swap          for compare-and-swap the value written when the comparison matches; ignored by
     *                      fetch-and-add
     * @return this request, for chaining
     * @throws IllegalArgumentException if {@code remoteAddress} is not 8-byte aligned (the device would fail it)
     * @throws WrongThreadException      if another thread has posted the chain
     */
    public SendWorkRequest atomic(long remoteAddress, int rkey, long compareAdd, long swap) {
        if ((remoteAddress & 7) != 0) {
            throw new IllegalArgumentException("atomic operations need an 8-byte aligned remote address, not 0x"
                    + Long.toHexString(remoteAddress));
        }
        boolean unbound = beginWrite();
        try {
            forgetAddressHandle();
            putLong(ATOMIC_REMOTE_ADDR, remoteAddress);
            putLong(ATOMIC_COMPARE_ADD, compareAdd);
            putLong(ATOMIC_SWAP, swap);
            putInt(ATOMIC_RKEY, rkey);
        } finally {
            endWrite(unbound);
        }
        return this;
    }
}
