package org.panamaverbs.verbs;

/** {@code enum ibv_qp_type}: the transport service of a queue pair. */
public enum QpType {
    RC(2),
    UC(3),
    UD(4),
    RAW_PACKET(8),
    XRC_SEND(9),
    XRC_RECV(10);

    private static final CodeTable<QpType> BY_CODE = CodeTable.strict(values(), QpType::code);

    private final int code;

    QpType(int code) {
        this.code = code;
    }

    /** The C value. */
    public int code() {
        return code;
    }

    /**
     * The constant for a C value; allocation-free. Only Java writes these values, so one that no constant
     * has is a bug: there is no {@code UNKNOWN}.
     *
     * @throws IllegalArgumentException for a value no constant has
     */
    public static QpType of(int code) {
        return BY_CODE.of(code);
    }
}
