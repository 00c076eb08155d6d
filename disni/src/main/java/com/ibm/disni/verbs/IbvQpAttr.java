package com.ibm.disni.verbs;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.IbvQpAttr}: queue pair attributes, mirroring C's
 * {@code struct ibv_qp_attr} plus the attribute mask of {@code ibv_modify_qp}. Its constructor is
 * protected and DiSNI 2.1's public API has no call that takes it (its {@code modifyQP} was an internal
 * stub), so it is kept as the plain value holder it is: it wraps no C call and holds no native memory.
 */
public class IbvQpAttr {

    protected int qp_state;
    protected int cur_qp_state;
    protected int path_mtu;
    protected int path_mig_state;
    protected int qkey;
    protected int rq_psn;
    protected int sq_psn;
    protected int dest_qp_num;
    protected int qp_access_flags;
    protected IbvQPCap cap;
    protected IbvAhAttr ah_attr;
    protected IbvAhAttr alt_ah_attr;
    protected short pkey_index;
    protected short alt_pkey_index;
    protected byte en_sqd_async_notify;
    protected byte sq_draining;
    protected byte max_rd_atomic;
    protected byte max_dest_rd_atomic;
    protected byte min_rnr_timer;
    protected byte port_num;
    protected byte timeout;
    protected byte retry_cnt;
    protected byte rnr_retry;
    protected byte alt_port_num;
    protected byte alt_timeout;
    protected int qpAttrMask;

    /**
     * Attributes over the given parts, kept by reference.
     *
     * @param ah_attr the primary path
     * @param alt_ah_attr the alternate path
     * @param cap the capacities
     */
    protected IbvQpAttr(IbvAhAttr ah_attr, IbvAhAttr alt_ah_attr, IbvQPCap cap) {
        this.ah_attr = ah_attr;
        this.alt_ah_attr = alt_ah_attr;
        this.cap = cap;
    }

    /**
     * Returns the state to move to ({@code ibv_qp_attr.qp_state}, {@code IbvQP.IBV_QPS_*}).
     *
     * @return the value
     */
    public int getQp_state() {
        return qp_state;
    }

    /**
     * Sets the state to move to ({@code ibv_qp_attr.qp_state}, {@code IbvQP.IBV_QPS_*}).
     *
     * @param qp_state the value
     */
    public void setQp_state(int qp_state) {
        this.qp_state = qp_state;
    }

    /**
     * Returns the assumed current state ({@code ibv_qp_attr.cur_qp_state}).
     *
     * @return the value
     */
    public int getCur_qp_state() {
        return cur_qp_state;
    }

    /**
     * Sets the assumed current state ({@code ibv_qp_attr.cur_qp_state}).
     *
     * @param cur_qp_state the value
     */
    public void setCur_qp_state(int cur_qp_state) {
        this.cur_qp_state = cur_qp_state;
    }

    /**
     * Returns the path MTU ({@code ibv_qp_attr.path_mtu}, enum ibv_mtu: 1 = 256 ... 5 = 4096).
     *
     * @return the value
     */
    public int getPath_mtu() {
        return path_mtu;
    }

    /**
     * Sets the path MTU ({@code ibv_qp_attr.path_mtu}, enum ibv_mtu: 1 = 256 ... 5 = 4096).
     *
     * @param path_mtu the value
     */
    public void setPath_mtu(int path_mtu) {
        this.path_mtu = path_mtu;
    }

    /**
     * Returns the path migration state ({@code ibv_qp_attr.path_mig_state}).
     *
     * @return the value
     */
    public int getPath_mig_state() {
        return path_mig_state;
    }

    /**
     * Sets the path migration state ({@code ibv_qp_attr.path_mig_state}).
     *
     * @param path_mig_state the value
     */
    public void setPath_mig_state(int path_mig_state) {
        this.path_mig_state = path_mig_state;
    }

    /**
     * Returns the Q_Key ({@code ibv_qp_attr.qkey}).
     *
     * @return the value
     */
    public int getQkey() {
        return qkey;
    }

    /**
     * Sets the Q_Key ({@code ibv_qp_attr.qkey}).
     *
     * @param qkey the value
     */
    public void setQkey(int qkey) {
        this.qkey = qkey;
    }

    /**
     * Returns the receive queue PSN ({@code ibv_qp_attr.rq_psn}).
     *
     * @return the value
     */
    public int getRq_psn() {
        return rq_psn;
    }

    /**
     * Sets the receive queue PSN ({@code ibv_qp_attr.rq_psn}).
     *
     * @param rq_psn the value
     */
    public void setRq_psn(int rq_psn) {
        this.rq_psn = rq_psn;
    }

    /**
     * Returns the send queue PSN ({@code ibv_qp_attr.sq_psn}).
     *
     * @return the value
     */
    public int getSq_psn() {
        return sq_psn;
    }

    /**
     * Sets the send queue PSN ({@code ibv_qp_attr.sq_psn}).
     *
     * @param sq_psn the value
     */
    public void setSq_psn(int sq_psn) {
        this.sq_psn = sq_psn;
    }

    /**
     * Returns the remote queue pair number ({@code ibv_qp_attr.dest_qp_num}).
     *
     * @return the value
     */
    public int getDest_qp_num() {
        return dest_qp_num;
    }

    /**
     * Sets the remote queue pair number ({@code ibv_qp_attr.dest_qp_num}).
     *
     * @param dest_qp_num the value
     */
    public void setDest_qp_num(int dest_qp_num) {
        this.dest_qp_num = dest_qp_num;
    }

    /**
     * Returns the remote access flags ({@code ibv_qp_attr.qp_access_flags}).
     *
     * @return the value
     */
    public int getQp_access_flags() {
        return qp_access_flags;
    }

    /**
     * Sets the remote access flags ({@code ibv_qp_attr.qp_access_flags}).
     *
     * @param qp_access_flags the value
     */
    public void setQp_access_flags(int qp_access_flags) {
        this.qp_access_flags = qp_access_flags;
    }

    /**
     * Returns the capacities ({@code ibv_qp_attr.cap}).
     *
     * @return the value
     */
    public IbvQPCap getCap() {
        return cap;
    }

    /**
     * Returns the primary path ({@code ibv_qp_attr.ah_attr}).
     *
     * @return the value
     */
    public IbvAhAttr getAh_attr() {
        return ah_attr;
    }

    /**
     * Returns the alternate path ({@code ibv_qp_attr.alt_ah_attr}).
     *
     * @return the value
     */
    public IbvAhAttr getAlt_ah_attr() {
        return alt_ah_attr;
    }

    /**
     * Returns the partition key index ({@code ibv_qp_attr.pkey_index}).
     *
     * @return the value
     */
    public short getPkey_index() {
        return pkey_index;
    }

    /**
     * Sets the partition key index ({@code ibv_qp_attr.pkey_index}).
     *
     * @param pkey_index the value
     */
    public void setPkey_index(short pkey_index) {
        this.pkey_index = pkey_index;
    }

    /**
     * Returns the alternate partition key index ({@code ibv_qp_attr.alt_pkey_index}).
     *
     * @return the value
     */
    public short getAlt_pkey_index() {
        return alt_pkey_index;
    }

    /**
     * Sets the alternate partition key index ({@code ibv_qp_attr.alt_pkey_index}).
     *
     * @param alt_pkey_index the value
     */
    public void setAlt_pkey_index(short alt_pkey_index) {
        this.alt_pkey_index = alt_pkey_index;
    }

    /**
     * Returns whether to notify when the send queue drained ({@code ibv_qp_attr.en_sqd_async_notify}).
     *
     * @return the value
     */
    public byte getEn_sqd_async_notify() {
        return en_sqd_async_notify;
    }

    /**
     * Sets whether to notify when the send queue drained ({@code ibv_qp_attr.en_sqd_async_notify}).
     *
     * @param en_sqd_async_notify the value
     */
    public void setEn_sqd_async_notify(byte en_sqd_async_notify) {
        this.en_sqd_async_notify = en_sqd_async_notify;
    }

    /**
     * Returns whether the send queue is draining ({@code ibv_qp_attr.sq_draining}).
     *
     * @return the value
     */
    public byte getSq_draining() {
        return sq_draining;
    }

    /**
     * Sets whether the send queue is draining ({@code ibv_qp_attr.sq_draining}).
     *
     * @param sq_draining the value
     */
    public void setSq_draining(byte sq_draining) {
        this.sq_draining = sq_draining;
    }

    /**
     * Returns the RDMA READ / atomic requests outstanding at the remote side ({@code ibv_qp_attr.max_rd_atomic}).
     *
     * @return the value
     */
    public byte getMax_rd_atomic() {
        return max_rd_atomic;
    }

    /**
     * Sets the RDMA READ / atomic requests outstanding at the remote side ({@code ibv_qp_attr.max_rd_atomic}).
     *
     * @param max_rd_atomic the value
     */
    public void setMax_rd_atomic(byte max_rd_atomic) {
        this.max_rd_atomic = max_rd_atomic;
    }

    /**
     * Returns the RDMA READ / atomic requests this side accepts ({@code ibv_qp_attr.max_dest_rd_atomic}).
     *
     * @return the value
     */
    public byte getMax_dest_rd_atomic() {
        return max_dest_rd_atomic;
    }

    /**
     * Sets the RDMA READ / atomic requests this side accepts ({@code ibv_qp_attr.max_dest_rd_atomic}).
     *
     * @param max_dest_rd_atomic the value
     */
    public void setMax_dest_rd_atomic(byte max_dest_rd_atomic) {
        this.max_dest_rd_atomic = max_dest_rd_atomic;
    }

    /**
     * Returns the minimum RNR NAK timer ({@code ibv_qp_attr.min_rnr_timer}).
     *
     * @return the value
     */
    public byte getMin_rnr_timer() {
        return min_rnr_timer;
    }

    /**
     * Sets the minimum RNR NAK timer ({@code ibv_qp_attr.min_rnr_timer}).
     *
     * @param min_rnr_timer the value
     */
    public void setMin_rnr_timer(byte min_rnr_timer) {
        this.min_rnr_timer = min_rnr_timer;
    }

    /**
     * Returns the primary port ({@code ibv_qp_attr.port_num}).
     *
     * @return the value
     */
    public byte getPort_num() {
        return port_num;
    }

    /**
     * Sets the primary port ({@code ibv_qp_attr.port_num}).
     *
     * @param port_num the value
     */
    public void setPort_num(byte port_num) {
        this.port_num = port_num;
    }

    /**
     * Returns the local ACK timeout ({@code ibv_qp_attr.timeout}).
     *
     * @return the value
     */
    public byte getTimeout() {
        return timeout;
    }

    /**
     * Sets the local ACK timeout ({@code ibv_qp_attr.timeout}).
     *
     * @param timeout the value
     */
    public void setTimeout(byte timeout) {
        this.timeout = timeout;
    }

    /**
     * Returns the retry count ({@code ibv_qp_attr.retry_cnt}).
     *
     * @return the value
     */
    public byte getRetry_cnt() {
        return retry_cnt;
    }

    /**
     * Sets the retry count ({@code ibv_qp_attr.retry_cnt}).
     *
     * @param retry_cnt the value
     */
    public void setRetry_cnt(byte retry_cnt) {
        this.retry_cnt = retry_cnt;
    }

    /**
     * Returns the RNR retry count ({@code ibv_qp_attr.rnr_retry}).
     *
     * @return the value
     */
    public byte getRnr_retry() {
        return rnr_retry;
    }

    /**
     * Sets the RNR retry count ({@code ibv_qp_attr.rnr_retry}).
     *
     * @param rnr_retry the value
     */
    public void setRnr_retry(byte rnr_retry) {
        this.rnr_retry = rnr_retry;
    }

    /**
     * Returns the alternate port ({@code ibv_qp_attr.alt_port_num}).
     *
     * @return the value
     */
    public byte getAlt_port_num() {
        return alt_port_num;
    }

    /**
     * Sets the alternate port ({@code ibv_qp_attr.alt_port_num}).
     *
     * @param alt_port_num the value
     */
    public void setAlt_port_num(byte alt_port_num) {
        this.alt_port_num = alt_port_num;
    }

    /**
     * Returns the alternate path ACK timeout ({@code ibv_qp_attr.alt_timeout}).
     *
     * @return the value
     */
    public byte getAlt_timeout() {
        return alt_timeout;
    }

    /**
     * Sets the alternate path ACK timeout ({@code ibv_qp_attr.alt_timeout}).
     *
     * @param alt_timeout the value
     */
    public void setAlt_timeout(byte alt_timeout) {
        this.alt_timeout = alt_timeout;
    }

    /**
     * Returns the mask of attributes to apply (the {@code attr_mask} of {@code ibv_modify_qp}).
     *
     * @return the value
     */
    public int getQpAttrMask() {
        return qpAttrMask;
    }

    /**
     * Sets the mask of attributes to apply (the {@code attr_mask} of {@code ibv_modify_qp}).
     *
     * @param qpAttrMask the value
     */
    public void setQpAttrMask(int qpAttrMask) {
        this.qpAttrMask = qpAttrMask;
    }
}
