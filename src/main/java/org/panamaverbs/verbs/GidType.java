package org.panamaverbs.verbs;

/** {@code enum ibv_gid_type} ({@code IBV_GID_TYPE_*}): what a GID table entry is used for. PVRDMA devices hold only RoCE v1 or only RoCE v2 entries, which tells their hardware version apart. */
public enum GidType {
    IB(0),
    ROCE_V1(1),
    ROCE_V2(2);

    private static final GidType[] BY_CODE = new GidType[3];

    static {
        for (GidType v : values()) {
            if (v.code >= 0) {
                BY_CODE[v.code] = v;
            }
        }
    }

    private final int code;

    GidType(int code) {
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
    public static GidType of(int code) {
        if (code >= 0 && code < BY_CODE.length && BY_CODE[code] != null) {
            return BY_CODE[code];
        }
        throw new IllegalArgumentException("no GidType has code " + code);
    }
}
