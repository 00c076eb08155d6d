package org.panamaverbs.verbs;

/** {@code enum ibv_qp_state}: the queue pair state machine (RESET → INIT → RTR → RTS; ERR on failure). */
public enum QpState {
    RESET(0),
    INIT(1),
    RTR(2),
    RTS(3),
    SQD(4),
    SQE(5),
    ERR(6),
    UNKNOWN(7);

    private static final CodeTable<QpState> BY_CODE = CodeTable.orUnknown(values(), QpState::code, UNKNOWN);

    private final int code;

    QpState(int code) {
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
    public static QpState of(int code) {
        return BY_CODE.of(code);
    }
}
