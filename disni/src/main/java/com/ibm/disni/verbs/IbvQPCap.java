package com.ibm.disni.verbs;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.IbvQPCap}: a queue pair's capacities, mirroring C's
 * {@code struct ibv_qp_cap}. Obtained from {@code IbvQPInitAttr.cap()} (the constructor is protected, as in
 * DiSNI). A plain value holder: wraps no C call, holds no native memory. (DiSNI 2.1's native library
 * ignored both SGE limits and used 4; this module's {@code RdmaCmId.createQP} passes every field on.)
 */
public class IbvQPCap {

    private int max_send_wr;
    private int max_recv_wr;
    private int max_send_sge;
    private int max_recv_sge;
    private int max_inline_data;

    /** All capacities 0. */
    protected IbvQPCap() {
    }

    /**
     * Returns the most send requests outstanding ({@code ibv_qp_cap.max_send_wr}).
     *
     * @return the value
     */
    public int getMax_send_wr() {
        return max_send_wr;
    }

    /**
     * Sets the most send requests outstanding ({@code ibv_qp_cap.max_send_wr}).
     *
     * @param max_send_wr the value
     */
    public void setMax_send_wr(int max_send_wr) {
        this.max_send_wr = max_send_wr;
    }

    /**
     * Returns the most receive requests outstanding ({@code ibv_qp_cap.max_recv_wr}).
     *
     * @return the value
     */
    public int getMax_recv_wr() {
        return max_recv_wr;
    }

    /**
     * Sets the most receive requests outstanding ({@code ibv_qp_cap.max_recv_wr}).
     *
     * @param max_recv_wr the value
     */
    public void setMax_recv_wr(int max_recv_wr) {
        this.max_recv_wr = max_recv_wr;
    }

    /**
     * Returns the most scatter-gather entries per send request ({@code ibv_qp_cap.max_send_sge}).
     *
     * @return the value
     */
    public int getMax_send_sge() {
        return max_send_sge;
    }

    /**
     * Sets the most scatter-gather entries per send request ({@code ibv_qp_cap.max_send_sge}).
     *
     * @param max_send_sge the value
     */
    public void setMax_send_sge(int max_send_sge) {
        this.max_send_sge = max_send_sge;
    }

    /**
     * Returns the most scatter-gather entries per receive request ({@code ibv_qp_cap.max_recv_sge}).
     *
     * @return the value
     */
    public int getMax_recv_sge() {
        return max_recv_sge;
    }

    /**
     * Sets the most scatter-gather entries per receive request ({@code ibv_qp_cap.max_recv_sge}).
     *
     * @param max_recv_sge the value
     */
    public void setMax_recv_sge(int max_recv_sge) {
        this.max_recv_sge = max_recv_sge;
    }

    /**
     * Returns the largest inline payload in bytes ({@code ibv_qp_cap.max_inline_data}).
     *
     * @return the value
     */
    public int getMax_inline_data() {
        return max_inline_data;
    }

    /**
     * Sets the largest inline payload in bytes ({@code ibv_qp_cap.max_inline_data}).
     *
     * @param max_inline_data the value
     */
    public void setMax_inline_data(int max_inline_data) {
        this.max_inline_data = max_inline_data;
    }
}
