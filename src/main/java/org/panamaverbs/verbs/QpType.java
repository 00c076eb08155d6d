package org.panamaverbs.verbs;

/**
 * {@code enum ibv_qp_type}: the transport service of a queue pair. This library creates and connects
 * {@link #RC} and {@link #UD} queue pairs; {@link ProtectionDomain#createQueuePair(QpConfig)} refuses the
 * other types with {@link UnsupportedVerbException}.
 */
public enum QpType {
    /**
     * {@code IBV_QPT_RC} (2), reliable connected: connected to one remote queue pair; messages are
     * acknowledged, retransmitted and delivered in order; SEND, RDMA WRITE, RDMA READ and atomics.
     */
    RC(2),
    /**
     * {@code IBV_QPT_UC} (3), unreliable connected: one remote queue pair, no acknowledgement or
     * retransmission; SEND and RDMA WRITE only. Not created by this library.
     */
    UC(3),
    /**
     * {@code IBV_QPT_UD} (4), unreliable datagram: each send names its destination with an
     * {@link AddressHandle} and a remote QPN and Q_Key; SEND only, each message within the path MTU, and
     * a receive buffer needs 40 bytes for the GRH in front of the payload.
     */
    UD(4),
    /** {@code IBV_QPT_RAW_PACKET} (8): sends and receives whole Ethernet frames. Not created by this library. */
    RAW_PACKET(8),
    /**
     * {@code IBV_QPT_XRC_SEND} (9): the sending side of an extended reliable connection. Not created by this library.
     */
    XRC_SEND(9),
    /**
     * {@code IBV_QPT_XRC_RECV} (10): the receiving side of an extended reliable connection. Not created by this
     * library.
     */
    XRC_RECV(10);

    private static final CodeTable<QpType> BY_CODE = CodeTable.strict(values(), QpType::code);

    private final int code;

    QpType(int code) {
        this.code = code;
    }

    /**
     * The C value.
     *
     * @return the {@code IBV_QPT_*} value, as written to {@code ibv_qp_init_attr.qp_type}
     */
    public int code() {
        return code;
    }

    /**
     * The constant for a C value; allocation-free. Only Java writes these values, so one that no constant
     * has is a bug: there is no {@code UNKNOWN}.
     *
     * @param code an {@code enum ibv_qp_type} value
     * @return the constant with that code; never null
     * @throws IllegalArgumentException for a value no constant has
     */
    public static QpType of(int code) {
        return BY_CODE.of(code);
    }
}
