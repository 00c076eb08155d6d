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

    private static final QpState[] BY_CODE = new QpState[8];

    static {
        for (QpState v : values()) {
            if (v.code >= 0) {
                BY_CODE[v.code] = v;
            }
        }
    }

    private final int code;

    QpState(int code) {
        this.code = code;
    }

    /** The C value. */
    public int code() {
        return code;
    }

    /**
     * The constant for a C value, or {@link #UNKNOWN} for one this library does not know; allocation-free.
     
     */
    public static QpState of(int code) {
        return code >= 0 && code < BY_CODE.length && BY_CODE[code] != null ? BY_CODE[code] : UNKNOWN;
    }
}
