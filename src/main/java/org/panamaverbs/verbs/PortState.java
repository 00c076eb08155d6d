package org.panamaverbs.verbs;

/**
 * {@code enum ibv_port_state}: the logical state of a port, as {@code ibv_query_port} reports it in
 * {@code ibv_port_attr.state}. Queue pairs can only exchange data through a port that is {@link #ACTIVE}.
 */
public enum PortState {
    /** {@code IBV_PORT_NOP} (0): a reserved value that names no state; a port should not report it. */
    NOP(0),
    /** {@code IBV_PORT_DOWN} (1): no link; nothing can be sent or received through the port. */
    DOWN(1),
    /**
     * {@code IBV_PORT_INIT} (2): the physical link is up but the port is not configured for data yet (on
     * InfiniBand, the subnet manager has not brought it up); traffic does not pass.
     */
    INIT(2),
    /**
     * {@code IBV_PORT_ARMED} (3): the port is configured (on InfiniBand, by the subnet manager) and waits
     * to be activated; data traffic does not pass yet.
     */
    ARMED(3),
    /** {@code IBV_PORT_ACTIVE} (4): the port is up and passes data traffic; the state connections need. */
    ACTIVE(4),
    /**
     * {@code IBV_PORT_ACTIVE_DEFER} (5): the link was active and is recovering from a link error; the port
     * goes back to {@link #ACTIVE} if the recovery succeeds, else to {@link #DOWN}.
     */
    ACTIVE_DEFER(5),
    /** A value this library does not know; not a C value. */
    UNKNOWN(-1);

    private static final CodeTable<PortState> BY_CODE = CodeTable.orUnknown(values(), PortState::code, UNKNOWN);

    private final int code;

    PortState(int code) {
        this.code = code;
    }

    /**
     * The C value.
     *
     * @return the {@code IBV_PORT_*} value, 0..5; -1 for {@link #UNKNOWN}
     */
    public int code() {
        return code;
    }

    /**
     * The constant for a C value; allocation-free. A value this library does not know (a newer
     * libibverbs, kernel or provider may return one) gives {@link #UNKNOWN}, never an exception or null.
     *
     * @param code an {@code enum ibv_port_state} value, as in {@code ibv_port_attr.state}
     * @return the constant with that code, or {@link #UNKNOWN}; never null
     */
    public static PortState of(int code) {
        return BY_CODE.of(code);
    }
}
