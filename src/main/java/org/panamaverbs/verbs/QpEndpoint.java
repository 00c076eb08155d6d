package org.panamaverbs.verbs;

/**
 * What a peer needs to connect to a queue pair without rdma_cm, as perftest exchanges it: the RTR
 * attributes {@code dest_qp_num}, {@code rq_psn} and the address vector's LID or GID. Get it from
 * {@link QueuePair#localEndpoint()}, send it to the peer out of band, and pass the peer's to
 * {@link QueuePair#connect(QpEndpoint)}.
 *
 * @param qpNumber the queue pair number (24 bits)
 * @param psn      the initial packet sequence number (24 bits)
 * @param lid      the port LID (InfiniBand; 0 on RoCE)
 * @param gid      the source GID
 */
public record QpEndpoint(int qpNumber, int psn, int lid, Gid gid) {
}
