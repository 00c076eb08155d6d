package org.panamaverbs.verbs;

/**
 * One thing a program may ask of a device, as {@link Context#capabilities()} reports it: a queue pair type,
 * a send opcode, a feature of memory regions or queue pairs, a RoCE version, the connection manager. Each
 * names the C verb that asks for it, the one whose refusal a program would see.
 */
public enum Capability {
    /** {@code ibv_create_qp} with {@code IBV_QPT_RC}. */
    RC_QUEUE_PAIRS("RC queue pairs", "ibv_create_qp"),
    /** {@code ibv_create_qp} with {@code IBV_QPT_UD}. */
    UD_QUEUE_PAIRS("UD queue pairs", "ibv_create_qp"),
    /** How many UD queue pairs may be open at once per context (3 on PVRDMA HWv13). */
    UD_QUEUE_PAIR_COUNT("UD queue pair count", "ibv_create_qp"),
    /** {@code ibv_create_qp} with {@code IBV_QPT_UC}. */
    UC_QUEUE_PAIRS("UC queue pairs", "ibv_create_qp"),
    /** {@code ibv_create_qp} with {@code IBV_QPT_RAW_PACKET}. */
    RAW_PACKET_QUEUE_PAIRS("raw packet queue pairs", "ibv_create_qp"),
    /** {@code ibv_create_qp} with {@code IBV_QPT_XRC_SEND}. */
    XRC_QUEUE_PAIRS("XRC queue pairs", "ibv_create_qp"),
    /** {@code ibv_create_srq}, and queue pairs that receive through one. */
    SHARED_RECEIVE_QUEUES("shared receive queues", "ibv_create_srq"),
    /** {@code IBV_WR_ATOMIC_CMP_AND_SWP} and {@code IBV_WR_ATOMIC_FETCH_AND_ADD}. */
    ATOMICS("atomics (compare-and-swap, fetch-and-add)", "ibv_post_send"),
    /** {@code ibv_attach_mcast}: UD queue pairs receiving what is sent to a multicast group. */
    MULTICAST("multicast groups", "ibv_attach_mcast"),
    /** {@code IBV_SEND_INLINE} and {@code max_inline_data} at {@code ibv_create_qp}. */
    INLINE_DATA("inline data", "ibv_create_qp"),
    /** {@code IBV_WR_SEND}. */
    OPCODE_SEND("opcode SEND", "ibv_post_send"),
    /** {@code IBV_WR_SEND_WITH_IMM}. */
    OPCODE_SEND_WITH_IMM("opcode SEND_WITH_IMM", "ibv_post_send"),
    /** {@code IBV_WR_RDMA_WRITE}. */
    OPCODE_RDMA_WRITE("opcode RDMA_WRITE", "ibv_post_send"),
    /** {@code IBV_WR_RDMA_WRITE_WITH_IMM}. */
    OPCODE_RDMA_WRITE_WITH_IMM("opcode RDMA_WRITE_WITH_IMM", "ibv_post_send"),
    /** {@code IBV_WR_RDMA_READ}. */
    OPCODE_RDMA_READ("opcode RDMA_READ", "ibv_post_send"),
    /** {@code ibv_reg_mr} with {@code IBV_ACCESS_REMOTE_WRITE}, {@code _READ} or {@code _ATOMIC}. */
    REMOTE_ACCESS("memory regions with remote access", "ibv_reg_mr"),
    /** RoCE v1 GIDs in a port's GID table ({@code IBV_GID_TYPE_ROCE_V1}). */
    ROCE_V1("RoCE v1", "ibv_query_gid_table"),
    /** RoCE v2 GIDs in a port's GID table ({@code IBV_GID_TYPE_ROCE_V2}). */
    ROCE_V2("RoCE v2", "ibv_query_gid_table"),
    /** Memory windows ({@code ibv_alloc_mw}, {@code ibv_bind_mw}); Panama Verbs has no API for them. */
    MEMORY_WINDOWS("memory windows", "ibv_alloc_mw"),
    /** Extended verbs ({@code ibv_create_cq_ex}, {@code ibv_create_qp_ex} with {@code ibv_wr_*}); Panama Verbs does not use them. */
    EXTENDED_VERBS("extended verbs", "ibv_create_cq_ex"),
    /** The RDMA connection manager: {@code rdma_create_id}, {@code rdma_connect}, {@code rdma_accept}. */
    RDMA_CM("rdma_cm", "rdma_create_id"),
    /** {@code rdma_create_ep}. */
    RDMA_CREATE_EP("rdma_create_ep", "rdma_create_ep");

    private final String label;
    private final String verb;

    Capability(String label, String verb) {
        this.label = label;
        this.verb = verb;
    }

    /** {@return a short lower-case name for tables, e.g. {@code "shared receive queues"}} */
    public String label() {
        return label;
    }

    /** {@return the C verb that asks for it, and whose refusal a program would see, e.g. {@code "ibv_create_srq"}} */
    public String verb() {
        return verb;
    }
}
