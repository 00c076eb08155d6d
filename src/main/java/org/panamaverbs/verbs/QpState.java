package org.panamaverbs.verbs;

/** {@code enum ibv_qp_state}: the queue pair state machine (RESET → INIT → RTR → RTS; ERR on failure). */
public enum QpState {
    /**
     * {@code IBV_QPS_RESET} (0): the state after {@code ibv_create_qp} and after {@link QueuePair#reset()};
     * the queue pair has no connection and takes neither sends nor receives.
     */
    RESET(0),
    /**
     * {@code IBV_QPS_INIT} (1): port, P_Key index and access flags (RC) or Q_Key (UD) are set; receives
     * may be posted but are not processed yet, sends are not accepted.
     */
    INIT(1),
    /**
     * {@code IBV_QPS_RTR} (2), ready to receive: the path and, for RC, the remote queue pair are set;
     * incoming messages are processed, sends are not accepted yet.
     */
    RTR(2),
    /** {@code IBV_QPS_RTS} (3), ready to send: both queues work; the operational state. */
    RTS(3),
    /**
     * {@code IBV_QPS_SQD} (4), send queue drain: reached from RTS with {@link QueuePair#drainSendQueue()};
     * the send queue finishes the requests it has begun and starts no new ones (the
     * {@link AsyncEventType#SQ_DRAINED} event says when it is idle); receives go on.
     */
    SQD(4),
    /**
     * {@code IBV_QPS_SQE} (5), send queue error: a send request of an unreliable (UC, UD) queue pair
     * failed; the send queue flushes its requests while the receive queue keeps working.
     */
    SQE(5),
    /**
     * {@code IBV_QPS_ERR} (6): after a failed completion or {@link QueuePair#modifyToError()}, every
     * outstanding and every new request completes with {@link WcStatus#WR_FLUSH_ERR}; only
     * {@link QueuePair#reset()} leaves it.
     */
    ERR(6),
    /**
     * {@code IBV_QPS_UNKNOWN} (7): C's own marker for a state it cannot name, and also what {@link #of(int)}
     * gives for any value this library does not know.
     */
    UNKNOWN(7);

    private static final CodeTable<QpState> BY_CODE = CodeTable.orUnknown(values(), QpState::code, UNKNOWN);

    private final int code;

    QpState(int code) {
        this.code = code;
    }

    /**
     * The C value.
     *
     * @return the {@code IBV_QPS_*} value, 0..7
     */
    public int code() {
        return code;
    }

    /**
     * The constant for a C value; allocation-free. A value this library does not know (a newer
     * libibverbs, kernel or provider may return one) gives {@link #UNKNOWN}, never an exception or null.
     *
     * @param code an {@code enum ibv_qp_state} value, as in {@code ibv_qp_attr.qp_state}
     * @return the constant with that code, or {@link #UNKNOWN}; never null
     */
    public static QpState of(int code) {
        return BY_CODE.of(code);
    }
}
