package org.panamaverbs.verbs;

/** {@code enum ibv_qp_type}: the transport service of a queue pair. */
public enum QpType {
    RC(2),
    UC(3),
    UD(4),
    RAW_PACKET(8),
    XRC_SEND(9),
    XRC_RECV(10);

    private static final QpType[] BY_CODE = new QpType[11];

    static {
        for (QpType v : values()) {
            if (v.code >= 0) {
                BY_CODE[v.code] = v;
            }
        }
    }

    private final int code;

    QpType(int code) {
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
    public static QpType of(int code) {
        if (code >= 0 && code < BY_CODE.length && BY_CODE[code] != null) {
            return BY_CODE[code];
        }
        throw new IllegalArgumentException("no QpType has code " + code);
    }
}
