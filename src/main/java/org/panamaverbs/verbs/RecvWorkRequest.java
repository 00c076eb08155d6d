package org.panamaverbs.verbs;

import org.panamaverbs.ffi.ibv_recv_wr;

/**
 * A flyweight over one {@code struct ibv_recv_wr} of a {@link RecvChain} chain. A receive has
 * nothing beyond what every {@link WorkRequest} has ({@code wr_id} and the scatter-gather list the message
 * lands in); setters write native memory directly and allocate nothing.
 */
public final class RecvWorkRequest extends WorkRequest<RecvWorkRequest> {
    RecvWorkRequest(RecvChain chain, int index) {
        super(chain, index, RecvChain.WR_SIZE, ibv_recv_wr.wr_id$offset(), ibv_recv_wr.num_sge$offset());
    }
}
