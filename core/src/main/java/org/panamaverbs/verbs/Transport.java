package org.panamaverbs.verbs;

/** {@code enum ibv_transport_type}: the transport a device speaks (RoCE and InfiniBand both report {@link #IB}). */
public enum Transport {
    UNKNOWN(-1), IB(0), IWARP(1), USNIC(2), USNIC_UDP(3), UNSPECIFIED(4);

    private static final CodeTable<Transport> BY_CODE = CodeTable.orUnknown(values(), Transport::code, UNKNOWN);

    final int code;

    Transport(int code) {
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
    public static Transport of(int code) {
        return BY_CODE.of(code);
    }
}
