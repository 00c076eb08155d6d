package org.panamaverbs.verbs;

/** {@code enum ibv_event_type}: what an asynchronous event reports, and which kind of object it concerns. */
public enum AsyncEventType {
    /** a completion queue overran (element: the CQ). */
    CQ_ERR(0),
    /** a queue pair hit an error it cannot report in a completion. */
    QP_FATAL(1),
    /** invalid request on a queue pair. */
    QP_REQ_ERR(2),
    /** access violation on a queue pair. */
    QP_ACCESS_ERR(3),
    /** first packet received on a queue pair in RTR. */
    COMM_EST(4),
    /** the send queue of a queue pair in SQD is drained. */
    SQ_DRAINED(5),
    /** path migrated. */
    PATH_MIG(6),
    /** path migration failed. */
    PATH_MIG_ERR(7),
    /** the device failed: close the context. */
    DEVICE_FATAL(8),
    /** a port became active. */
    PORT_ACTIVE(9),
    /** a port went down. */
    PORT_ERR(10),
    /** a port's LID changed. */
    LID_CHANGE(11),
    /** a port's P_Key table changed. */
    PKEY_CHANGE(12),
    /** the subnet manager changed. */
    SM_CHANGE(13),
    /** a shared receive queue failed. */
    SRQ_ERR(14),
    /** a shared receive queue fell below its limit. */
    SRQ_LIMIT_REACHED(15),
    /** a queue pair attached to an SRQ will take no more receives. */
    QP_LAST_WQE_REACHED(16),
    /** the subnet manager asks for re-registration. */
    CLIENT_REREGISTER(17),
    /** a port's GID table changed. */
    GID_CHANGE(18),
    /** a work queue failed. */
    WQ_FATAL(19),
    /** an event this library does not know. */
    UNKNOWN(-1);

    private static final CodeTable<AsyncEventType> BY_CODE = CodeTable.orUnknown(values(), AsyncEventType::code, UNKNOWN);

    private final int code;

    AsyncEventType(int code) {
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
    public static AsyncEventType of(int code) {
        return BY_CODE.of(code);
    }

    /** Whether {@code element.qp} names the queue pair concerned. */
    public boolean concernsQueuePair() {
        return switch (this) {
            case QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR, QP_LAST_WQE_REACHED -> true;
            default -> false;
        };
    }

    /** Whether {@code element.cq} names the completion queue concerned. */
    public boolean concernsCompletionQueue() {
        return this == CQ_ERR;
    }

    /** Whether {@code element.srq} names the shared receive queue concerned. */
    public boolean concernsSharedReceiveQueue() {
        return this == SRQ_ERR || this == SRQ_LIMIT_REACHED;
    }

    /** Whether {@code element.port_num} names the port concerned. */
    public boolean concernsPort() {
        return switch (this) {
            case PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER, GID_CHANGE -> true;
            default -> false;
        };
    }
}
