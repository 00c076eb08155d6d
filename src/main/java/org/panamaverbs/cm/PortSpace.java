package org.panamaverbs.cm;

/** {@code enum rdma_port_space}: which kind of queue pair an rdma_cm id connects. */
public enum PortSpace {
    /** {@code RDMA_PS_TCP}: reliable connected (RC) queue pairs. */
    TCP(0x0106),
    /** {@code RDMA_PS_UDP}: unreliable datagram (UD) queue pairs; "connecting" resolves the peer's QPN and Q_Key. */
    UDP(0x0111);

    private final int code;

    PortSpace(int code) {
        this.code = code;
    }

    /**
     * The C value.
     *
     * @return the {@code enum rdma_port_space} value passed to {@code rdma_create_id}: 0x0106 for
     *         {@link #TCP}, 0x0111 for {@link #UDP}
     */
    public int code() {
        return code;
    }
}
