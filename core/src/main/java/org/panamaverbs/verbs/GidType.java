package org.panamaverbs.verbs;

/** {@code enum ibv_gid_type} ({@code IBV_GID_TYPE_*}): what a GID table entry is used for. PVRDMA devices hold only RoCE v1 or only RoCE v2 entries, which tells their hardware version apart. */
public enum GidType {
    IB(0),
    ROCE_V1(1),
    ROCE_V2(2),
    /** A value this library does not know; not a C value. */
    UNKNOWN(-1);

    private static final CodeTable<GidType> BY_CODE = CodeTable.orUnknown(values(), GidType::code, UNKNOWN);

    private final int code;

    GidType(int code) {
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
    public static GidType of(int code) {
        return BY_CODE.of(code);
    }
}
