package org.panamaverbs.verbs;

/** {@code enum ibv_transport_type}: the transport a device speaks (RoCE and InfiniBand both report {@link #IB}). */
public enum Transport {
    /**
     * {@code IBV_TRANSPORT_UNKNOWN} (-1): the provider reports no transport; also what {@link #of(int)} gives
     * for any value this library does not know.
     */
    UNKNOWN(-1),
    /**
     * {@code IBV_TRANSPORT_IB} (0): the InfiniBand transport, over an InfiniBand fabric or over Ethernet
     * (RoCE, Soft-RoCE {@code rxe}, PVRDMA); the port's {@link LinkLayer} tells which.
     */
    IB(0),
    /** {@code IBV_TRANSPORT_IWARP} (1): iWARP, RDMA over TCP (for example Soft-iWARP {@code siw}). */
    IWARP(1),
    /** {@code IBV_TRANSPORT_USNIC} (2): Cisco usNIC. */
    USNIC(2),
    /** {@code IBV_TRANSPORT_USNIC_UDP} (3): Cisco usNIC over UDP. */
    USNIC_UDP(3),
    /** {@code IBV_TRANSPORT_UNSPECIFIED} (4): the device follows none of the transports above. */
    UNSPECIFIED(4);

    private static final CodeTable<Transport> BY_CODE = CodeTable.orUnknown(values(), Transport::code, UNKNOWN);

    final int code;

    Transport(int code) {
        this.code = code;
    }

    /**
     * The C value.
     *
     * @return the {@code IBV_TRANSPORT_*} value, -1..4
     */
    public int code() {
        return code;
    }

    /**
     * The constant for a C value; allocation-free. A value this library does not know (a newer
     * libibverbs, kernel or provider may return one) gives {@link #UNKNOWN}, never an exception or null.
     *
     * @param code an {@code enum ibv_transport_type} value, as in {@code ibv_device.transport_type}
     * @return the constant with that code, or {@link #UNKNOWN}; never null
     */
    public static Transport of(int code) {
        return BY_CODE.of(code);
    }
}
