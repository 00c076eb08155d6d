package org.panamaverbs.verbs;

/** {@code enum ibv_event_type}: what an asynchronous event reports, and which kind of object it concerns. */
public enum AsyncEventType {
    /** {@code IBV_EVENT_CQ_ERR}: a completion queue overran (element: the CQ); the queue is unusable. */
    CQ_ERR(0),
    /** {@code IBV_EVENT_QP_FATAL}: a queue pair hit an error it cannot report in a completion; it is now in ERR. */
    QP_FATAL(1),
    /**
     * {@code IBV_EVENT_QP_REQ_ERR}: invalid request on a queue pair (as responder it got a request it cannot carry
     * out); it is now in ERR.
     */
    QP_REQ_ERR(2),
    /**
     * {@code IBV_EVENT_QP_ACCESS_ERR}: access violation on a queue pair (bad rkey or access flags at the responder);
     * it is now in ERR.
     */
    QP_ACCESS_ERR(3),
    /** {@code IBV_EVENT_COMM_EST}: first packet received on a queue pair in RTR. */
    COMM_EST(4),
    /** {@code IBV_EVENT_SQ_DRAINED}: the send queue of a queue pair in SQD is drained. */
    SQ_DRAINED(5),
    /** {@code IBV_EVENT_PATH_MIG}: a queue pair migrated to its alternate path. */
    PATH_MIG(6),
    /** {@code IBV_EVENT_PATH_MIG_ERR}: a queue pair's path migration failed. */
    PATH_MIG_ERR(7),
    /** {@code IBV_EVENT_DEVICE_FATAL}: the device failed: close the context. */
    DEVICE_FATAL(8),
    /** {@code IBV_EVENT_PORT_ACTIVE}: a port became active ({@link AsyncEvent#port()} names it). */
    PORT_ACTIVE(9),
    /** {@code IBV_EVENT_PORT_ERR}: a port went down ({@link AsyncEvent#port()} names it). */
    PORT_ERR(10),
    /** {@code IBV_EVENT_LID_CHANGE}: a port's LID changed. */
    LID_CHANGE(11),
    /** {@code IBV_EVENT_PKEY_CHANGE}: a port's P_Key table changed. */
    PKEY_CHANGE(12),
    /** {@code IBV_EVENT_SM_CHANGE}: the subnet manager of a port changed. */
    SM_CHANGE(13),
    /** {@code IBV_EVENT_SRQ_ERR}: a shared receive queue failed. */
    SRQ_ERR(14),
    /**
     * {@code IBV_EVENT_SRQ_LIMIT_REACHED}: a shared receive queue fell below its armed limit; the limit is disarmed
     * until set again.
     */
    SRQ_LIMIT_REACHED(15),
    /**
     * {@code IBV_EVENT_QP_LAST_WQE_REACHED}: a queue pair attached to an SRQ, in ERR, will take no more receives from
     * it.
     */
    QP_LAST_WQE_REACHED(16),
    /**
     * {@code IBV_EVENT_CLIENT_REREGISTER}: the subnet manager asks for re-registration (of multicast groups and
     * services).
     */
    CLIENT_REREGISTER(17),
    /**
     * {@code IBV_EVENT_GID_CHANGE}: a port's GID table changed (on RoCE: an IP address came or went); query it again
     * before picking a GID index.
     */
    GID_CHANGE(18),
    /**
     * {@code IBV_EVENT_WQ_FATAL}: a work queue failed ({@link AsyncEvent#source()} is null: this library has no work
     * queues).
     */
    WQ_FATAL(19),
    /** An event this library does not know; not a C value ({@link #code()} is -1). */
    UNKNOWN(-1);

    private static final CodeTable<AsyncEventType> BY_CODE = CodeTable.orUnknown(values(), AsyncEventType::code, UNKNOWN);

    private final int code;

    AsyncEventType(int code) {
        this.code = code;
    }

    /** {@return the C value, {@code IBV_EVENT_*}; -1 for {@link #UNKNOWN}} */
    public int code() {
        return code;
    }

    /**
     * The constant for a C value; allocation-free. A value this library does not know (a newer
     * libibverbs, kernel or provider may return one) gives {@link #UNKNOWN}, never an exception or null.
     *
     * @param code an {@code enum ibv_event_type} value, as in {@code ibv_async_event.event_type}
     * @return the constant with that code, or {@link #UNKNOWN}
     */
    public static AsyncEventType of(int code) {
        return BY_CODE.of(code);
    }

    /**
     * Whether {@code element.qp} names the queue pair concerned.
     *
     * @return true for {@link #QP_FATAL}, {@link #QP_REQ_ERR}, {@link #QP_ACCESS_ERR}, {@link #COMM_EST},
     *         {@link #SQ_DRAINED}, {@link #PATH_MIG}, {@link #PATH_MIG_ERR} and {@link #QP_LAST_WQE_REACHED}
     */
    public boolean concernsQueuePair() {
        return switch (this) {
            case QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR, QP_LAST_WQE_REACHED -> true;
            default -> false;
        };
    }

    /**
     * Whether {@code element.cq} names the completion queue concerned.
     *
     * @return true for {@link #CQ_ERR} only
     */
    public boolean concernsCompletionQueue() {
        return this == CQ_ERR;
    }

    /**
     * Whether {@code element.srq} names the shared receive queue concerned.
     *
     * @return true for {@link #SRQ_ERR} and {@link #SRQ_LIMIT_REACHED}
     */
    public boolean concernsSharedReceiveQueue() {
        return this == SRQ_ERR || this == SRQ_LIMIT_REACHED;
    }

    /**
     * Whether {@code element.port_num} names the port concerned.
     *
     * @return true for {@link #PORT_ACTIVE}, {@link #PORT_ERR}, {@link #LID_CHANGE}, {@link #PKEY_CHANGE},
     *         {@link #SM_CHANGE}, {@link #CLIENT_REREGISTER} and {@link #GID_CHANGE}
     */
    public boolean concernsPort() {
        return switch (this) {
            case PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER, GID_CHANGE -> true;
            default -> false;
        };
    }
}
