package com.ibm.disni.verbs;

import java.io.IOException;
import java.util.List;
import org.panamaverbs.verbs.QueuePair;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.IbvQP}: a queue pair ({@code struct ibv_qp}) over a
 * Panama Verbs {@link QueuePair}. In the DiSNI API queue pairs are made by rdma_cm
 * ({@code RdmaCmId.createQP}, {@code rdma_create_qp}; RC only in this module), which also moves them through
 * their states.
 *
 * <p>{@link #postSend(List, List)} and {@link #postRecv(List, List)} prepare stateful verb calls
 * ({@code ibv_post_send}, {@code ibv_post_recv}) that copy the requests once and post them on every
 * {@code execute()} without allocating (per thread: see {@link SVCPostSend}). The memory the requests name
 * must stay registered and alive until they complete.
 *
 * <p>Unlike DiSNI 2.1, {@link #getContext()}, {@link #getPd()}, {@link #getSend_cq()},
 * {@link #getRecv_cq()} and {@link #getState()} report the real values; {@link #getHandle()} is a number
 * unique per queue pair in the JVM.
 */
public class IbvQP {

    /** {@code IBV_QPT_RC}. */
    public static final byte IBV_QPT_RC = 2;
    /** {@code IBV_QPT_UC}. */
    public static final byte IBV_QPT_UC = 3;
    /** {@code IBV_QPT_UD}. */
    public static final byte IBV_QPT_UD = 4;
    /** {@code IBV_QPS_RESET}. */
    public static final int IBV_QPS_RESET = 0;
    /** {@code IBV_QPS_INIT}. */
    public static final int IBV_QPS_INIT = 1;
    /** {@code IBV_QPS_RTR}. */
    public static final int IBV_QPS_RTR = 2;
    /** {@code IBV_QPS_RTS}. */
    public static final int IBV_QPS_RTS = 3;
    /** {@code IBV_QPS_SQD}. */
    public static final int IBV_QPS_SQD = 4;
    /** {@code IBV_QPS_SQE}. */
    public static final int IBV_QPS_SQE = 5;
    /** {@code IBV_QPS_ERR}. */
    public static final int IBV_QPS_ERR = 6;

    private RdmaVerbs verbs;
    /** The device (the protection domain's); null for an object made with the public constructor. */
    protected IbvContext context;
    /** The protection domain the queue pair was created in; null for an object made with the public constructor. */
    protected IbvPd pd;
    /** The completion queue of the send queue; null for an object made with the public constructor. */
    protected IbvCQ send_cq;
    /** The completion queue of the receive queue; null for an object made with the public constructor. */
    protected IbvCQ recv_cq;
    /**
     * A number unique to this queue pair in the JVM, counted from 1 for queue pairs made by {@code rdma_create_qp};
     * for the public constructor, the number given.
     */
    protected int handle;
    /**
     * The queue pair number ({@code ibv_qp.qp_num}, 24 bits) that the peer addresses and completions carry; 0 for
     * an object made with the public constructor.
     */
    protected int qp_num;
    /**
     * What {@link #getState()} returns for an object without a queue pair behind it ({@code IBV_QPS_*}; this module
     * never sets it, so 0, {@code IBV_QPS_RESET}). A real queue pair's state comes from Panama Verbs.
     */
    protected int state;
    /**
     * Transport type ({@code IBV_QPT_*}): {@link #IBV_QPT_RC} for every queue pair this module creates, 0 for an
     * object made with the public constructor.
     */
    protected int qp_type;
    /** False once {@link #close()} has been called ({@code RdmaCmId.destroyQP} calls it). */
    protected volatile boolean isOpen;

    /** The Panama Verbs queue pair behind this object; null for one made with the public constructor. */
    final QueuePair pv;

    /**
     * An object with no queue pair behind it (posting through it throws {@code IOException}); kept because
     * DiSNI 2.1 has this constructor.
     *
     * @param handle the number {@link #getHandle()} returns
     * @throws IOException never
     */
    public IbvQP(int handle) throws IOException {
        this.verbs = RdmaVerbs.open();
        this.handle = handle;
        this.isOpen = true;
        this.pv = null;
    }

    IbvQP(QueuePair pv, IbvPd pd, IbvCQ send_cq, IbvCQ recv_cq, int handle) {
        this.verbs = PanamaVerbs.INSTANCE;
        this.pv = pv;
        this.pd = pd;
        this.context = pd.getContext();
        this.send_cq = send_cq;
        this.recv_cq = recv_cq;
        this.handle = handle;
        this.qp_num = pv.qpNumber();
        this.qp_type = pv.config().type().code();
        this.isOpen = true;
    }

    QueuePair panama() throws IOException {
        if (pv == null) {
            throw Failures.notOurs(this);
        }
        return pv;
    }

    /**
     * Returns the device.
     *
     * @return the context, or null for an object made with the public constructor
     */
    public IbvContext getContext() {
        return context;
    }

    /**
     * Returns the protection domain.
     *
     * @return the domain, or null for an object made with the public constructor
     */
    public IbvPd getPd() {
        return pd;
    }

    /**
     * Returns the completion queue of the send queue.
     *
     * @return the queue, or null for an object made with the public constructor
     */
    public IbvCQ getSend_cq() {
        return send_cq;
    }

    /**
     * Returns the completion queue of the receive queue.
     *
     * @return the queue, or null for an object made with the public constructor
     */
    public IbvCQ getRecv_cq() {
        return recv_cq;
    }

    /**
     * Returns a number unique to this queue pair in the JVM.
     *
     * @return the number
     */
    public int getHandle() {
        return handle;
    }

    /**
     * Returns the queue pair number, which the peer addresses and completions carry.
     *
     * @return {@code qp->qp_num}
     * @throws IOException never
     */
    public int getQp_num() throws IOException {
        return qp_num;
    }

    /**
     * Returns the state as Panama Verbs last knew it ({@code IBV_QPS_*}).
     *
     * @return the state
     */
    public int getState() {
        return pv == null ? state : pv.state().code();
    }

    /**
     * Returns the transport type ({@code IBV_QPT_*}).
     *
     * @return the type
     */
    public int getQp_type() {
        return qp_type;
    }

    @Override
    public String toString() {
        return "IbvQP[qp_num " + qp_num + ", type " + qp_type + ", handle " + handle + "]";
    }

    /**
     * Tells whether {@link #close()} has not been called.
     *
     * @return false once closed
     */
    public boolean isOpen() {
        return isOpen;
    }

    /** Marks this object closed; the queue pair is destroyed through its rdma_cm id ({@code destroyQP}). */
    public void close() {
        isOpen = false;
    }

    /**
     * Prepares {@code ibv_post_send} of {@code wrList}, copied once.
     *
     * @param wrList the requests, in order
     * @param badWrList ignored, as in DiSNI 2.1 (a failed post throws instead)
     * @return the call
     * @throws IOException if a request is malformed or this object has no queue pair behind it
     */
    public SVCPostSend postSend(List<IbvSendWR> wrList, List<IbvSendWR> badWrList) throws IOException {
        return verbs.postSend(this, wrList, badWrList);
    }

    /**
     * Prepares {@code ibv_post_recv} of {@code wrList}, copied once.
     *
     * @param wrList the requests, in order
     * @param badWrList ignored, as in DiSNI 2.1 (a failed post throws instead)
     * @return the call
     * @throws IOException if a request is malformed or this object has no queue pair behind it
     */
    public SVCPostRecv postRecv(List<IbvRecvWR> wrList, List<IbvRecvWR> badWrList) throws IOException {
        return verbs.postRecv(this, wrList, badWrList);
    }
}
