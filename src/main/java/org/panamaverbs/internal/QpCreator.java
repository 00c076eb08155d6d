package org.panamaverbs.internal;

import java.lang.foreign.MemorySegment;

/**
 * The native call that makes a queue pair from a filled {@code struct ibv_qp_init_attr}: {@code ibv_create_qp}
 * for queue pairs this library owns, {@code rdma_create_qp} for those an rdma_cm id owns.
 */
@FunctionalInterface
public interface QpCreator {
    /**
     * @param pd       the {@code struct ibv_pd *}
     * @param initAttr the filled {@code struct ibv_qp_init_attr}; its {@code cap} holds the granted capacities afterwards
     * @return the new {@code struct ibv_qp *}, never NULL
     * @throws RuntimeException (a {@code VerbsException}) naming the verb and errno when the call fails
     */
    MemorySegment create(MemorySegment pd, MemorySegment initAttr);
}
