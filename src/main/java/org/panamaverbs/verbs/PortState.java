package org.panamaverbs.verbs;

/** {@code enum ibv_port_state}. */
public enum PortState {
    NOP(0),
    DOWN(1),
    INIT(2),
    ARMED(3),
    ACTIVE(4),
    ACTIVE_DEFER(5);

    private static final PortState[] BY_CODE = new PortState[6];

    static {
        for (PortState v : values()) {
            if (v.code >= 0) {
                BY_CODE[v.code] = v;
            }
        }
    }

    private final int code;

    PortState(int code) {
        this.code = code;
    }

    /** The C value. */
    public int code() {
        return code;
    }

    /**
     * The constant for a C value; allocation-free.
     * @throws IllegalArgumentException for a value C does not define
     */
    public static PortState of(int code) {
        if (code >= 0 && code < BY_CODE.length && BY_CODE[code] != null) {
            return BY_CODE[code];
        }
        throw new IllegalArgumentException("no PortState has code " + code);
    }
}
