package org.panamaverbs.verbs;

/**
 * {@code enum ibv_wc_status}: the outcome of a work request, from its completion.
 *
 * <p>On any status but {@link #SUCCESS}, only {@code wr_id}, {@code status}, {@code qp_num} and
 * {@code vendor_err} of the completion are defined. An error usually moves the queue pair to
 * {@link QpState#ERR}, and the requests behind the failed one then complete with {@link #WR_FLUSH_ERR}:
 * look for the first completion that is neither success nor flush to find the cause.
 */
public enum WcStatus {
    /** {@code IBV_WC_SUCCESS} (0): the request completed; every field of the completion is valid. */
    SUCCESS(0),
    /**
     * {@code IBV_WC_LOC_LEN_ERR} (1), local length error: an incoming message was longer than the posted
     * receive's entries, or an outgoing one was longer than the queue pair or path allows.
     */
    LOC_LEN_ERR(1),
    /**
     * {@code IBV_WC_LOC_QP_OP_ERR} (2), local queue pair operation error: the request did not fit the
     * queue pair, for example more inline data than its {@code max_inline_data}.
     */
    LOC_QP_OP_ERR(2),
    /**
     * {@code IBV_WC_LOC_EEC_OP_ERR} (3): an end-to-end context error of the Reliable Datagram transport, which Linux
     * providers do not implement.
     */
    LOC_EEC_OP_ERR(3),
    /**
     * {@code IBV_WC_LOC_PROT_ERR} (4), local protection error: a local entry names memory its lkey does not
     * cover, a region of another protection domain, or a region without the access the operation needs.
     */
    LOC_PROT_ERR(4),
    /**
     * {@code IBV_WC_WR_FLUSH_ERR} (5): the request was not executed because the queue pair was in
     * {@link QpState#ERR} (after an earlier failure or {@link QueuePair#modifyToError()}); normal while
     * draining a queue pair before closing it.
     */
    WR_FLUSH_ERR(5),
    /** {@code IBV_WC_MW_BIND_ERR} (6): a memory window bind failed (this library posts none). */
    MW_BIND_ERR(6),
    /** {@code IBV_WC_BAD_RESP_ERR} (7), bad response: the responder answered with an unexpected transport opcode. */
    BAD_RESP_ERR(7),
    /**
     * {@code IBV_WC_LOC_ACCESS_ERR} (8), local access error: a protection error on a local buffer while an
     * operation from the peer was handled, for example an RDMA WRITE with immediate.
     */
    LOC_ACCESS_ERR(8),
    /**
     * {@code IBV_WC_REM_INV_REQ_ERR} (9), remote invalid request: the responder found the request invalid, for
     * example an operation its queue pair does not enable, or a message longer than its posted receive.
     */
    REM_INV_REQ_ERR(9),
    /**
     * {@code IBV_WC_REM_ACCESS_ERR} (10), remote access error: the rkey, address range or access flags of the
     * peer's region (or its queue pair's access flags) do not allow the RDMA READ, WRITE or atomic.
     */
    REM_ACCESS_ERR(10),
    /**
     * {@code IBV_WC_REM_OP_ERR} (11), remote operation error: the responder could not complete the
     * operation, for example because its receive failed locally.
     */
    REM_OP_ERR(11),
    /**
     * {@code IBV_WC_RETRY_EXC_ERR} (12), transport retries exceeded: the peer did not acknowledge within
     * {@link QpConnectOptions#retryCount()} retries of {@link QpConnectOptions#timeout()} each: it is gone or
     * unreachable, or its queue pair is not ready (for example a wrong QPN or GID given to connect).
     */
    RETRY_EXC_ERR(12),
    /**
     * {@code IBV_WC_RNR_RETRY_EXC_ERR} (13), receiver-not-ready retries exceeded: the peer had no receive
     * posted for a SEND or RDMA WRITE with immediate, {@link QpConnectOptions#rnrRetry()} times in a row
     * (7 retries forever).
     */
    RNR_RETRY_EXC_ERR(13),
    /**
     * {@code IBV_WC_LOC_RDD_VIOL_ERR} (14): a Reliable Datagram domain violation (transport not implemented on Linux).
     */
    LOC_RDD_VIOL_ERR(14),
    /**
     * {@code IBV_WC_REM_INV_RD_REQ_ERR} (15): an invalid Reliable Datagram request (transport not implemented on
     * Linux).
     */
    REM_INV_RD_REQ_ERR(15),
    /** {@code IBV_WC_REM_ABORT_ERR} (16), remote abort: the responder aborted the operation. */
    REM_ABORT_ERR(16),
    /**
     * {@code IBV_WC_INV_EECN_ERR} (17): an invalid Reliable Datagram end-to-end context number (transport not
     * implemented on Linux).
     */
    INV_EECN_ERR(17),
    /**
     * {@code IBV_WC_INV_EEC_STATE_ERR} (18): an invalid Reliable Datagram end-to-end context state (transport not
     * implemented on Linux).
     */
    INV_EEC_STATE_ERR(18),
    /** {@code IBV_WC_FATAL_ERR} (19): the device or the transport failed fatally. */
    FATAL_ERR(19),
    /** {@code IBV_WC_RESP_TIMEOUT_ERR} (20), response timeout: the responder's answer did not arrive in time. */
    RESP_TIMEOUT_ERR(20),
    /**
     * {@code IBV_WC_GENERAL_ERR} (21): an error no other status describes; {@link WorkCompletion#vendorError()} may
     * say more.
     */
    GENERAL_ERR(21),
    /** {@code IBV_WC_TM_ERR} (22): a tag-matching operation failed (tag matching is not used by this library). */
    TM_ERR(22),
    /**
     * {@code IBV_WC_TM_RNDV_INCOMPLETE} (23): a tag-matching rendezvous matched but its data was not fetched
     * by the device, so the application has to finish it (tag matching is not used by this library).
     */
    TM_RNDV_INCOMPLETE(23),
    /** A value this library does not know; not a C value. */
    UNKNOWN(-1);

    private static final CodeTable<WcStatus> BY_CODE = CodeTable.orUnknown(values(), WcStatus::code, UNKNOWN);

    private final int code;

    WcStatus(int code) {
        this.code = code;
    }

    /**
     * The C value.
     *
     * @return the {@code IBV_WC_*} status value, 0..23; -1 for {@link #UNKNOWN}
     */
    public int code() {
        return code;
    }

    /**
     * The constant for a C value; allocation-free. A value this library does not know (a newer
     * libibverbs, kernel or provider may return one) gives {@link #UNKNOWN}, never an exception or null.
     *
     * @param code an {@code enum ibv_wc_status} value, as in {@code ibv_wc.status}
     * @return the constant with that code, or {@link #UNKNOWN}; never null
     */
    public static WcStatus of(int code) {
        return BY_CODE.of(code);
    }
}
