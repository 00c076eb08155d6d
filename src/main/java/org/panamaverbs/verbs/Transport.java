package org.panamaverbs.verbs;

/** {@code enum ibv_transport_type}: the transport a device speaks (RoCE and InfiniBand both report {@link #IB}). */
public enum Transport {
    UNKNOWN(-1), IB(0), IWARP(1), USNIC(2), USNIC_UDP(3), UNSPECIFIED(4);

    final int code;

    Transport(int code) {
        this.code = code;
    }

    /** The C value. */
    public int code() {
        return code;
    }

    static Transport of(int code) {
        for (Transport t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        return UNKNOWN;
    }
}
