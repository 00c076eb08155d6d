package com.ibm.disni.verbs;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.IbvQPInitAttr}: the attributes a queue pair is
 * created with, mirroring C's {@code struct ibv_qp_init_attr} (completion queues, capacities
 * {@link #cap()}, type, signalling). A plain value holder: wraps no C call itself and holds no native
 * memory; {@code RdmaCmId.createQP} reads it once, when called.
 */
public class IbvQPInitAttr {

    private long qp_context;
    private long srq;
    private IbvQPCap cap;
    private byte qp_type;
    private byte sq_sig_all;
    private IbvCQ send_cq_obj;
    private IbvCQ recv_cq_obj;

    /** Attributes with zero capacities, type 0 and no completion queues. */
    public IbvQPInitAttr() {
        this.cap = new IbvQPCap();
    }

    /**
     * Returns the user context of the queue pair ({@code ibv_qp_init_attr.qp_context}); not used by this module.
     *
     * @return the value
     */
    public long getQp_context() {
        return qp_context;
    }

    /**
     * Sets the user context of the queue pair ({@code ibv_qp_init_attr.qp_context}); not used by this module.
     *
     * @param qp_context the value
     */
    public void setQp_context(long qp_context) {
        this.qp_context = qp_context;
    }

    /**
     * Returns the shared receive queue ({@code ibv_qp_init_attr.srq}); DiSNI 2.1 has no API that makes one, so it must stay 0.
     *
     * @return the value
     */
    public long getSrq() {
        return srq;
    }

    /**
     * Sets the shared receive queue ({@code ibv_qp_init_attr.srq}); DiSNI 2.1 has no API that makes one, so it must stay 0.
     *
     * @param srq the value
     */
    public void setSrq(long srq) {
        this.srq = srq;
    }

    /**
     * Returns the transport type ({@code IbvQP.IBV_QPT_*}; {@code ibv_qp_init_attr.qp_type}).
     *
     * @return the value
     */
    public byte getQp_type() {
        return qp_type;
    }

    /**
     * Sets the transport type ({@code IbvQP.IBV_QPT_*}; {@code ibv_qp_init_attr.qp_type}).
     *
     * @param qp_type the value
     */
    public void setQp_type(byte qp_type) {
        this.qp_type = qp_type;
    }

    /**
     * Returns whether every send request produces a completion (1) or only signalled ones (0; {@code ibv_qp_init_attr.sq_sig_all}).
     *
     * @return the value
     */
    public byte getSq_sig_all() {
        return sq_sig_all;
    }

    /**
     * Sets whether every send request produces a completion (1) or only signalled ones (0; {@code ibv_qp_init_attr.sq_sig_all}).
     *
     * @param sq_sig_all the value
     */
    public void setSq_sig_all(byte sq_sig_all) {
        this.sq_sig_all = sq_sig_all;
    }

    /**
     * Returns the completion queue of the send queue.
     *
     * @return the queue
     */
    public IbvCQ getSend_cq() {
        return send_cq_obj;
    }

    /**
     * Sets the completion queue of the send queue ({@code ibv_qp_init_attr.send_cq}).
     *
     * @param send_cq the queue
     */
    public void setSend_cq(IbvCQ send_cq) {
        this.send_cq_obj = send_cq;
    }

    /**
     * Returns the completion queue of the receive queue.
     *
     * @return the queue
     */
    public IbvCQ getRecv_cq() {
        return recv_cq_obj;
    }

    /**
     * Sets the completion queue of the receive queue ({@code ibv_qp_init_attr.recv_cq}).
     *
     * @param recv_cq the queue
     */
    public void setRecv_cq(IbvCQ recv_cq) {
        this.recv_cq_obj = recv_cq;
    }

    /**
     * Returns the capacities, to be changed in place.
     *
     * @return the capacities
     */
    public IbvQPCap cap() {
        return cap;
    }
}
