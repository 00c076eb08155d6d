package com.ibm.disni.verbs;

import java.util.LinkedList;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.IbvRecvWR}: a receive work request as a plain Java
 * object mirroring C's {@code struct ibv_recv_wr} (identifier and scatter-gather list). Wraps no C call and
 * holds no native memory; {@code IbvQP.postRecv} turns a list of these into a stateful verb call
 * ({@code ibv_post_recv}) that copies them once.
 *
 * <p>The memory its entries name must stay registered and alive until the receive has completed: the
 * device writes into it at any time after the post.
 */
public class IbvRecvWR {

    /**
     * The caller's identifier of the request ({@code ibv_recv_wr.wr_id}), handed back in the receive's completion
     * ({@code IbvWC.getWr_id()}).
     */
    protected long wr_id;
    /**
     * The scatter-gather entries received bytes are written into, kept by reference; null until set. A post uses
     * the first {@code num_sge} of them.
     */
    protected LinkedList<IbvSge> sg_list;
    /**
     * How many entries of {@code sg_list} a post uses ({@code ibv_recv_wr.num_sge});
     * {@link #setSg_list(LinkedList)} sets it to the list's size. The post call refuses a list shorter than this.
     */
    protected int num_sge;

    /** A request with no scatter-gather list ({@link #getSg_list()} is null until set, as in DiSNI). */
    public IbvRecvWR() {
    }

    /**
     * Returns the caller identifier, handed back in the completion ({@code ibv_recv_wr.wr_id}).
     *
     * @return the value
     */
    public long getWr_id() {
        return wr_id;
    }

    /**
     * Sets the caller identifier, handed back in the completion ({@code ibv_recv_wr.wr_id}).
     *
     * @param wr_id the value
     */
    public void setWr_id(long wr_id) {
        this.wr_id = wr_id;
    }

    /**
     * Returns the number of scatter-gather entries ({@code ibv_recv_wr.num_sge}).
     *
     * @return the value
     */
    public int getNum_sge() {
        return num_sge;
    }

    /**
     * Sets the number of scatter-gather entries ({@code ibv_recv_wr.num_sge}).
     *
     * @param num_sge the value
     */
    public void setNum_sge(int num_sge) {
        this.num_sge = num_sge;
    }

    /**
     * Returns the scatter-gather list as set, by reference.
     *
     * @return the list, or null if none was set
     */
    public LinkedList<IbvSge> getSg_list() {
        return sg_list;
    }

    /**
     * Keeps {@code sg_list} by reference (unlike {@code IbvSendWR}, which copies) and sets
     * {@code num_sge} to its size.
     *
     * @param sg_list the entries
     */
    public void setSg_list(LinkedList<IbvSge> sg_list) {
        this.sg_list = sg_list;
        this.num_sge = sg_list == null ? 0 : sg_list.size();
    }
}
