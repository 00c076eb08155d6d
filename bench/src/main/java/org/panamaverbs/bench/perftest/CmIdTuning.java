package org.panamaverbs.bench.perftest;

import org.panamaverbs.cm.CmId;
import org.panamaverbs.verbs.VerbsException;

/**
 * {@code -T}'s type of service and {@code -u}'s ACK timeout on the tools' rdma_cm ids, where perftest 25.01 and later
 * set them with {@code rdma_set_option}: a client's id once its address is resolved (the route then carries the TOS),
 * a server's request id before it is accepted (the ACK timeout only, as perftest).
 *
 * @param typeOfService {@code -T}, or null when not given (perftest's {@code DEF_TOS}: nothing set)
 * @param ackTimeout    {@code -u}
 */
record CmIdTuning(Integer typeOfService, int ackTimeout) {
    /** perftest's {@code -u} default, which a kernel before Linux 4.18 (no ACK timeout option) may ignore. */
    private static final int DEFAULT_ACK_TIMEOUT = 14;

    static CmIdTuning of(PerftestOptions options) {
        return new CmIdTuning(options.typeOfService, options.qpTimeout);
    }

    /** A client's id between the resolution of its address and of its route. */
    void afterAddressResolved(CmId id) {
        if (typeOfService != null) {
            id.setTypeOfService(typeOfService);
        }
        setAckTimeout(id);
    }

    /** A server's connection request id, before its accept. */
    void beforeAccept(CmId id) {
        setAckTimeout(id);
    }

    private void setAckTimeout(CmId id) {
        try {
            id.setAckTimeout(ackTimeout);
        } catch (VerbsException e) {
            if (ackTimeout != DEFAULT_ACK_TIMEOUT) { // asked for: say the kernel cannot
                throw new PerftestException("-u " + ackTimeout + " with rdma_cm: " + e.getMessage()
                        + " (the kernel's rdma_cm has no ACK timeout option before Linux 4.18)");
            }
        }
    }
}
