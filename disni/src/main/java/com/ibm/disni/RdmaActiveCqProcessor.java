package com.ibm.disni;

import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvWC;
import java.io.IOException;

/**
 * The CQ processor of active groups: calls the endpoint's {@link RdmaActiveEndpoint#dispatchCqEvent(IbvWC)}.
 *
 * @param <C> the endpoint type
 */
public class RdmaActiveCqProcessor<C extends RdmaActiveEndpoint> extends RdmaCqProcessor<C> {
    /**
     * See {@link RdmaCqProcessor#RdmaCqProcessor(IbvContext, int, int, long, int, int, boolean)}.
     *
     * @param context the device
     * @param cqSize the queue's depth
     * @param wrSize the most work requests of a queue pair
     * @param affinity CPU mask for the thread
     * @param clusterId a number for the caller
     * @param timeout milliseconds of one wait
     * @param polling busy-poll
     * @throws IOException if the queue cannot be made
     */
    public RdmaActiveCqProcessor(IbvContext context, int cqSize, int wrSize, long affinity, int clusterId,
            int timeout, boolean polling) throws IOException {
        super(context, cqSize, wrSize, affinity, clusterId, timeout, polling);
    }

    @Override
    public void dispatchCqEvent(C endpoint, IbvWC wc) throws IOException {
        endpoint.dispatchCqEvent(wc);
    }
}
