package org.panamaverbs.verbs;

import java.nio.ByteOrder;

import org.panamaverbs.ffi.ibv_wc;

/**
 * A copy on the Java heap of one {@code struct ibv_wc}, taken by {@link WorkCompletion#copyTo(CompletionCopy)}
 * with one bulk copy of the whole structure; its getters then read Java memory only. Wraps no verb: it is
 * for code that must keep a completion after the next {@code ibv_poll_cq} into the same array, or copies
 * every field anyway (a compatibility layer filling its own completion objects), where one copy is cheaper
 * than a native read per field. Reusable: copy into the same object again to overwrite it; nothing is
 * allocated after construction. Not thread-safe; it refers to no native memory, so no lifetime applies.
 */
public final class CompletionCopy {
    static final int WORDS = Math.toIntExact((ibv_wc.layout().byteSize() + Long.BYTES - 1) / Long.BYTES);

    static {
        // the word decoding below reads fields little-endian, as on both architectures the library supports
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new ExceptionInInitializerError("CompletionCopy decodes little-endian structures only");
        }
    }

    /** The structure's bytes as native-order words, written by {@link WorkCompletion#copyTo}. */
    final long[] words = new long[WORDS];

    /** An empty copy (every field 0) to fill with {@link WorkCompletion#copyTo(CompletionCopy)}. */
    public CompletionCopy() {
    }

    /** The {@code bits}-wide unsigned field at byte {@code offset}, which never straddles two words in ibv_wc. */
    private long field(long offset, int bits) {
        long word = words[(int) (offset >>> 3)] >>> ((offset & 7) * 8);
        return bits == 64 ? word : word & ((1L << bits) - 1);
    }

    /** {@return {@code wr_id}: the id the work request was posted with} Valid whatever the status. */
    public long wrId() {
        return field(WorkCompletion.WR_ID, 64);
    }

    /** {@return {@code status} as C's number, 0 for {@code IBV_WC_SUCCESS}} */
    public int statusCode() {
        return (int) field(WorkCompletion.STATUS, 32);
    }

    /** {@return {@code status} as a constant, {@link WcStatus#UNKNOWN} for a number the library does not know} */
    public WcStatus status() {
        return WcStatus.of(statusCode());
    }

    /** {@return {@code opcode} as C's number, as the provider wrote it} Only meaningful when the status is success. */
    public int opcodeCode() {
        return (int) field(WorkCompletion.OPCODE, 32);
    }

    /** {@return {@code vendor_err}: the provider's own error detail} */
    public int vendorError() {
        return (int) field(WorkCompletion.VENDOR_ERR, 32);
    }

    /** {@return {@code byte_len}: bytes received (receive completions, RDMA READ)} */
    public int byteLength() {
        return (int) field(WorkCompletion.BYTE_LEN, 32);
    }

    /**
     * {@return the immediate data in host order} C stores {@code imm_data} in network order (big-endian);
     * meaningful when {@link #flags()} has {@code IBV_WC_WITH_IMM} (2).
     */
    public int immediateData() {
        return Integer.reverseBytes((int) field(WorkCompletion.IMM_DATA, 32));
    }

    /** {@return {@code qp_num}: the local queue pair the completion belongs to} */
    public int qpNumber() {
        return (int) field(WorkCompletion.QP_NUM, 32);
    }

    /** {@return {@code src_qp}: the sending queue pair (UD receive completions)} */
    public int sourceQp() {
        return (int) field(WorkCompletion.SRC_QP, 32);
    }

    /** {@return {@code wc_flags} as C bits ({@code IBV_WC_GRH} 1, {@code IBV_WC_WITH_IMM} 2, ...)} */
    public int flags() {
        return (int) field(WorkCompletion.WC_FLAGS, 32);
    }

    /** {@return {@code pkey_index}, 0..65535} */
    public int pkeyIndex() {
        return (int) field(WorkCompletion.PKEY_INDEX, 16);
    }

    /** {@return {@code slid}: the source LID (InfiniBand UD), 0..65535} */
    public int sourceLid() {
        return (int) field(WorkCompletion.SLID, 16);
    }

    /** {@return {@code sl}: the service level, 0..255} */
    public int serviceLevel() {
        return (int) field(WorkCompletion.SL, 8);
    }

    /** {@return {@code dlid_path_bits}, 0..255} */
    public int dlidPathBits() {
        return (int) field(WorkCompletion.DLID_PATH_BITS, 8);
    }

    @Override
    public String toString() {
        return "CompletionCopy[wr_id=" + wrId() + ", status=" + status() + ", opcode=" + opcodeCode() + ", byte_len="
                + byteLength() + ", qp=0x" + Integer.toHexString(qpNumber()) + "]";
    }
}
