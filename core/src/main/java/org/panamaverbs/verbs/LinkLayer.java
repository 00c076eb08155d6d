package org.panamaverbs.verbs;

/** {@code IBV_LINK_LAYER_*}: InfiniBand, or Ethernet for RoCE (rxe, PVRDMA, RoCE NICs). */
public enum LinkLayer {
    UNSPECIFIED(0),
    INFINIBAND(1),
    ETHERNET(2),
    /** A value this library does not know; not a C value. */
    UNKNOWN(-1);

    private static final CodeTable<LinkLayer> BY_CODE = CodeTable.orUnknown(values(), LinkLayer::code, UNKNOWN);

    private final int code;

    LinkLayer(int code) {
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
    public static LinkLayer of(int code) {
        return BY_CODE.of(code);
    }
}
