package com.ibm.disni.verbs;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.IbvQpAttr}: queue pair attributes, mirroring C's
 * {@code struct ibv_qp_attr} plus the attribute mask of {@code ibv_modify_qp}. Its constructor is
 * protected and DiSNI 2.1's public API has no call that takes it (its {@code modifyQP} was an internal
 * stub), so it is kept as the plain value holder it is: it wraps no C call and holds no native memory.
 */
public class IbvQpAttr {

    /** State to move the queue pair to ({@code ibv_qp_attr.qp_state}), one of {@code IbvQP.IBV_QPS_*}. */
    protected int qp_state;
    /**
     * State the caller assumes the queue pair is in ({@code ibv_qp_attr.cur_qp_state}), one of
     * {@code IbvQP.IBV_QPS_*}.
     */
    protected int cur_qp_state;
    /**
     * Path MTU ({@code ibv_qp_attr.path_mtu}), a value of C's {@code enum ibv_mtu}: 1 for 256 bytes up to 5 for
     * 4096 bytes.
     */
    protected int path_mtu;
    /**
     * Path migration state ({@code ibv_qp_attr.path_mig_state}), a value of C's {@code enum ibv_mig_state}: 0
     * migrated, 1 rearm, 2 armed.
     */
    protected int path_mig_state;
    /** Q_Key of a UD queue pair ({@code ibv_qp_attr.qkey}): incoming datagrams must carry it. */
    protected int qkey;
    /**
     * Packet sequence number the receive queue expects first ({@code ibv_qp_attr.rq_psn}), 24 bits; must match the
     * peer's {@code sq_psn}.
     */
    protected int rq_psn;
    /** Packet sequence number the send queue starts with ({@code ibv_qp_attr.sq_psn}), 24 bits. */
    protected int sq_psn;
    /** Number of the remote queue pair of an RC or UC queue pair ({@code ibv_qp_attr.dest_qp_num}), 24 bits. */
    protected int dest_qp_num;
    /**
     * Remote operations the queue pair accepts ({@code ibv_qp_attr.qp_access_flags}):
     * {@code IbvMr.IBV_ACCESS_REMOTE_*} bits.
     */
    protected int qp_access_flags;
    /** Queue capacities ({@code ibv_qp_attr.cap}): the object given to the constructor, kept by reference. */
    protected IbvQPCap cap;
    /**
     * Address vector of the primary path ({@code ibv_qp_attr.ah_attr}): the object given to the constructor, kept
     * by reference.
     */
    protected IbvAhAttr ah_attr;
    /**
     * Address vector of the alternate path used by automatic path migration ({@code ibv_qp_attr.alt_ah_attr}): the
     * object given to the constructor, kept by reference.
     */
    protected IbvAhAttr alt_ah_attr;
    /** Index in the port's partition key table for the primary path ({@code ibv_qp_attr.pkey_index}). */
    protected short pkey_index;
    /** Index in the port's partition key table for the alternate path ({@code ibv_qp_attr.alt_pkey_index}). */
    protected short alt_pkey_index;
    /**
     * 1 to be told by an asynchronous event when the send queue has drained after a move to SQD
     * ({@code ibv_qp_attr.en_sqd_async_notify}), else 0.
     */
    protected byte en_sqd_async_notify;
    /**
     * Reported by a query: 1 while the send queue is still draining in the SQD state
     * ({@code ibv_qp_attr.sq_draining}), else 0.
     */
    protected byte sq_draining;
    /**
     * RDMA READ and atomic requests this side may have outstanding as initiator
     * ({@code ibv_qp_attr.max_rd_atomic}); each uses one of the peer's responder resources.
     */
    protected byte max_rd_atomic;
    /**
     * Incoming RDMA READ and atomic requests this side serves at once as responder
     * ({@code ibv_qp_attr.max_dest_rd_atomic}).
     */
    protected byte max_dest_rd_atomic;
    /**
     * Minimum RNR NAK timer ({@code ibv_qp_attr.min_rnr_timer}): how long a sender waits after this side answered
     * RNR NAK, encoded 0 to 31 (for example 12 is 0.64 ms, 0 is the longest, 655.36 ms).
     */
    protected byte min_rnr_timer;
    /** Physical port of the primary path ({@code ibv_qp_attr.port_num}), 1-based. */
    protected byte port_num;
    /**
     * Local ACK timeout of the primary path ({@code ibv_qp_attr.timeout}): 4.096 microseconds times 2 to the power
     * of this value, 0 to 31; 0 waits without bound.
     */
    protected byte timeout;
    /** How often a request is sent again when no ACK arrives in time ({@code ibv_qp_attr.retry_cnt}), 0 to 7. */
    protected byte retry_cnt;
    /**
     * How often a request is sent again after an RNR NAK ({@code ibv_qp_attr.rnr_retry}), 0 to 7; 7 retries without
     * limit.
     */
    protected byte rnr_retry;
    /** Physical port of the alternate path ({@code ibv_qp_attr.alt_port_num}), 1-based. */
    protected byte alt_port_num;
    /** Local ACK timeout of the alternate path ({@code ibv_qp_attr.alt_timeout}), encoded as {@code timeout}. */
    protected byte alt_timeout;
    /**
     * Which of the attributes apply: the {@code attr_mask} argument of {@code ibv_modify_qp}, {@code IBV_QP_*}
     * bits.
     */
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
