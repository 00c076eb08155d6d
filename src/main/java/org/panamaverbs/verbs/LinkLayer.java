package org.panamaverbs.verbs;

/** {@code IBV_LINK_LAYER_*}: InfiniBand, or Ethernet for RoCE (rxe, PVRDMA, RoCE NICs). */
public enum LinkLayer {
    /**
     * {@code IBV_LINK_LAYER_UNSPECIFIED} (0): the port does not say; older kernels and providers report it for
     * InfiniBand ports, and this library treats it like {@link #INFINIBAND}.
     */
    UNSPECIFIED(0),
    /**
     * {@code IBV_LINK_LAYER_INFINIBAND} (1): an InfiniBand port, addressed by LID; a GRH is needed only to cross
     * subnets (this library adds one whenever the destination GID is not zero).
     */
    INFINIBAND(1),
    /**
     * {@code IBV_LINK_LAYER_ETHERNET} (2): an Ethernet port (RoCE, iWARP): no LIDs, so every address carries
     * a GRH with a GID from the port's table, which this library always sets.
     */
    ETHERNET(2),
    /** A value this library does not know; not a C value. */
    UNKNOWN(-1);

    private static final CodeTable<LinkLayer> BY_CODE = CodeTable.orUnknown(values(), LinkLayer::code, UNKNOWN);

    private final int code;

    LinkLayer(int code) {
        this.code = code;
    }

    /** {@return the C value, {@code IBV_LINK_LAYER_*}; -1 for {@link #UNKNOWN}} */
    public int code() {
        return code;
    }

    /**
     * The constant for a C value; allocation-free. A value this library does not know (a newer
     * libibverbs, kernel or provider may return one) gives {@link #UNKNOWN}, never an exception or null.
     *
     * @param code an {@code IBV_LINK_LAYER_*} value, as in {@code ibv_port_attr.link_layer}
     * @return the constant with that code, or {@link #UNKNOWN}
     */
    public static LinkLayer of(int code) {
        return BY_CODE.of(code);
    }
}
