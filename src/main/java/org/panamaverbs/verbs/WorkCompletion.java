package org.panamaverbs.verbs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Reference;
import java.nio.ByteOrder;

import org.panamaverbs.ffi.ibv_wc;

/**
 * A flyweight over one {@code struct ibv_wc} slot of a {@link CompletionArray} array: every getter reads
 * the native memory directly and nothing is allocated. Valid until the next poll into the same array.
 */
public final class WorkCompletion {
    static final int WC_GRH = 1;
    static final int WC_WITH_IMM = 1 << 1;
    private static final ValueLayout.OfInt BIG_ENDIAN_INT = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);

    // field offsets of struct ibv_wc, shared with CompletionCopy
    static final long WR_ID = ibv_wc.wr_id$offset();
    static final long STATUS = ibv_wc.status$offset();
    static final long OPCODE = ibv_wc.opcode$offset();
    static final long VENDOR_ERR = ibv_wc.vendor_err$offset();
    static final long BYTE_LEN = ibv_wc.byte_len$offset();
    static final long IMM_DATA = ibv_wc.imm_data$offset();
    static final long QP_NUM = ibv_wc.qp_num$offset();
    static final long SRC_QP = ibv_wc.src_qp$offset();
    static final long WC_FLAGS = ibv_wc.wc_flags$offset();
    static final long PKEY_INDEX = ibv_wc.pkey_index$offset();
    static final long SLID = ibv_wc.slid$offset();
    static final long SL = ibv_wc.sl$offset();
    static final long DLID_PATH_BITS = ibv_wc.dlid_path_bits$offset();

    private final MemorySegment array;
    private final long base;
    /** The array's memory as its automatic arena allocated it: a kept completion keeps it from being freed. */
    private final MemorySegment memory;

    WorkCompletion(MemorySegment array, long base, MemorySegment memory) {
        this.array = array;
        this.base = base;
        this.memory = memory;
    }

    /** {@return {@code wr_id}: the id the work request was posted with} Valid whatever the status. */
    public long wrId() {
        return readLong(WR_ID);
    }

    /** {@return {@code status} as a constant, {@link WcStatus#UNKNOWN} for a value this library does not know} */
    public WcStatus status() {
        return WcStatus.of(statusCode());
    }

    /** {@return {@code status} as C's number, an {@code IBV_WC_*} status value (0 is success)} */
    public int statusCode() {
        return readInt(JAVA_INT, STATUS);
    }

    /** {@return whether {@code status} is {@code IBV_WC_SUCCESS}} */
    public boolean isSuccess() {
        return statusCode() == 0;
    }

    /**
     * {@return {@code opcode}, {@link WcOpcode#UNKNOWN} for a value this library does not know} Only meaningful
     * when the status is success.
     */
    public WcOpcode opcode() {
        return WcOpcode.of(opcodeCode());
    }

    /**
     * {@code opcode} as C's number, also a value no {@link WcOpcode} constant has (which {@link #opcode()}
     * reports as {@link WcOpcode#UNKNOWN}); only meaningful when the status is success.
     *
     * @return the {@code ibv_wc_opcode} value the provider wrote
     */
    public int opcodeCode() {
        return readInt(JAVA_INT, OPCODE);
    }

    /**
     * {@return {@code vendor_err}: the provider's own error detail} Worth logging with a failed completion's
     * status; its meaning is the provider's.
     */
    public int vendorError() {
        return readInt(JAVA_INT, VENDOR_ERR);
    }

    /**
     * {@return {@code byte_len}: bytes received (receive completions, RDMA READ)} On a UD receive it includes
     * the 40 bytes reserved for the GRH. The field is C's unsigned 32-bit value read as an int.
     */
    public int byteLength() {
        return readInt(JAVA_INT, BYTE_LEN);
    }

    /**
     * {@return whether the receive buffer starts with a 40-byte global route header ({@code IBV_WC_GRH}; UD receives)}
     */
    public boolean hasGrh() {
        return (flags() & WC_GRH) != 0;
    }

    /** {@return whether the message carried immediate data ({@code IBV_WC_WITH_IMM} in {@code wc_flags})} */
    public boolean hasImmediateData() {
        return (flags() & WC_WITH_IMM) != 0;
    }

    /**
     * {@code imm_data}, converted from network byte order to the int the sender passed to
     * {@link SendWorkRequest#immediateData(int)}.
     *
     * @return the sender's immediate value; meaningful only when {@link #hasImmediateData()} is true
     */
    public int immediateData() {
        return readInt(BIG_ENDIAN_INT, IMM_DATA);
    }

    /**
     * {@return {@code qp_num}: the local queue pair the completion belongs to} Tells apart the queue pairs that
     * share a completion queue.
     */
    public int qpNumber() {
        return readInt(JAVA_INT, QP_NUM);
    }

    /** {@return {@code src_qp}: the sending queue pair's number (UD receive completions)} */
    public int sourceQp() {
        return readInt(JAVA_INT, SRC_QP);
    }

    /** {@return {@code wc_flags} as C bits ({@code IBV_WC_GRH} 1, {@code IBV_WC_WITH_IMM} 2, ...)} */
    public int flags() {
        return readInt(JAVA_INT, WC_FLAGS);
    }

    /**
     * {@return {@code pkey_index}: the P_Key index of the received message, 0..65535} Meaningful for GSI (QP1)
     * receives.
     */
    public int pkeyIndex() {
        return Short.toUnsignedInt(readShort(PKEY_INDEX));
    }

    /** {@return {@code slid}: the source LID (InfiniBand UD), 0..65535; not meaningful on RoCE} */
    public int sourceLid() {
        return Short.toUnsignedInt(readShort(SLID));
    }

    /** {@return {@code sl}: the service level of the received message, 0..15} */
    public int serviceLevel() {
        return Byte.toUnsignedInt(readByte(SL));
    }

    /**
     * {@return {@code dlid_path_bits}: the low bits of the destination LID the message was sent to} Meaningful
     * on InfiniBand UD receives through a port with an LMC above 0.
     */
    public int dlidPathBits() {
        return Byte.toUnsignedInt(readByte(DLID_PATH_BITS));
    }

    /**
     * Copies this completion, the whole {@code struct ibv_wc}, to the heap, a word at a time; the copy's getters
     * then read Java memory. Cheaper than reading each field here when every field is wanted, and the copy
     * stays valid after the next poll. Allocates nothing.
     *
     * @param into the copy to overwrite; not null
     * @return {@code into}
     */
    public CompletionCopy copyTo(CompletionCopy into) {
        // six word reads the JIT unrolls, rather than MemorySegment.copy, whose copy stub costs more for 48 bytes
        long[] words = into.words;
        for (int i = 0; i < CompletionCopy.WORDS; i++) {
            words[i] = readLong((long) i * Long.BYTES);
        }
        return into;
    }

    @Override
    public String toString() {
        return "WorkCompletion[wr_id=" + wrId() + ", status=" + status() + ", opcode=" + opcode() + ", byte_len="
                + byteLength() + (hasImmediateData() ? ", imm=0x" + Integer.toHexString(immediateData()) : "")
                + ", qp=0x" + Integer.toHexString(qpNumber()) + "]";
    }

    // Each read ends with a reachability fence on this view, which holds the memory: the array's automatic arena
    // cannot free it between the read of the fields and the read of the memory, even if the array was dropped.
    private long readLong(long offset) {
        try {
            return array.get(JAVA_LONG, base + offset);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    private int readInt(ValueLayout.OfInt layout, long offset) {
        try {
            return array.get(layout, base + offset);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    private short readShort(long offset) {
        try {
            return array.get(JAVA_SHORT, base + offset);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    private byte readByte(long offset) {
        try {
            return array.get(JAVA_BYTE, base + offset);
        } finally {
            Reference.reachabilityFence(this);
        }
    }
}
