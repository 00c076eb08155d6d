package org.panamaverbs.verbs;

/** {@code enum ibv_port_state}. */
public enum PortState {
    NOP(0),
    DOWN(1),
    INIT(2),
    ARMED(3),
    ACTIVE(4),
    ACTIVE_DEFER(5),
    /** A value this library does not know; not a C value. */
    UNKNOWN(-1);

    private static final CodeTable<PortState> BY_CODE = CodeTable.orUnknown(values(), PortState::code, UNKNOWN);

    private final int code;

    PortState(int code) {
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
    public static PortState of(int code) {
        return BY_CODE.of(code);
    }
}
