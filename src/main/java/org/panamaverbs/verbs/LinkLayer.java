package org.panamaverbs.verbs;

/** {@code IBV_LINK_LAYER_*}: InfiniBand, or Ethernet for RoCE (rxe, PVRDMA, RoCE NICs). */
public enum LinkLayer {
    UNSPECIFIED(0),
    INFINIBAND(1),
    ETHERNET(2);

    private static final LinkLayer[] BY_CODE = new LinkLayer[3];

    static {
        for (LinkLayer v : values()) {
            if (v.code >= 0) {
                BY_CODE[v.code] = v;
            }
        }
    }

    private final int code;

    LinkLayer(int code) {
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
    public static LinkLayer of(int code) {
        if (code >= 0 && code < BY_CODE.length && BY_CODE[code] != null) {
            return BY_CODE[code];
        }
        throw new IllegalArgumentException("no LinkLayer has code " + code);
    }
}
