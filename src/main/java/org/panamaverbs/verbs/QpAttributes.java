package org.panamaverbs.verbs;

/**
 * {@code struct ibv_qp_attr} as {@code ibv_query_qp} reports it ({@link QueuePair#query()}).
 *
 * @param state             the current state
 * @param pathMtu           the path MTU (meaningful from RTR), or null before
 * @param access            {@code qp_access_flags}
 * @param destQpNumber      the connected peer's QPN
 * @param receivePsn        {@code rq_psn}
 * @param sendPsn           {@code sq_psn}
 * @param port              {@code port_num}
 * @param pkeyIndex         {@code pkey_index}
 * @param minRnrTimer       {@code min_rnr_timer}
 * @param timeout           {@code timeout}
 * @param retryCount        {@code retry_cnt}
 * @param rnrRetry          {@code rnr_retry}
 * @param maxReadAtomic     {@code max_rd_atomic}
 * @param maxDestReadAtomic {@code max_dest_rd_atomic}
 * @param capabilities      {@code cap}
 * @param serviceLevel      {@code ah_attr.sl}: the address vector's service level (meaningful from RTR)
 * @param hopLimit          {@code ah_attr.grh.hop_limit} (meaningful from RTR with a GRH)
 * @param trafficClass      {@code ah_attr.grh.traffic_class}; on a queue pair rdma_cm connected, its type of
 *                          service
 * @param flowLabel         {@code ah_attr.grh.flow_label}
 */
public record QpAttributes(QpState state, Mtu pathMtu, int access, int destQpNumber, int receivePsn, int sendPsn,
        int port, int pkeyIndex, int minRnrTimer, int timeout, int retryCount, int rnrRetry, int maxReadAtomic,
        int maxDestReadAtomic, QpCapabilities capabilities, int serviceLevel, int hopLimit, int trafficClass,
        int flowLabel) {
}
