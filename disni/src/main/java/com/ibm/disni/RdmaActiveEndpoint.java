package com.ibm.disni;

import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmId;
import java.io.IOException;

/**
 * An endpoint of an {@link RdmaActiveEndpointGroup}: its completions arrive through
 * {@link #dispatchCqEvent(IbvWC)} on the group's CQ thread for its device.
 */
public abstract class RdmaActiveEndpoint extends RdmaEndpoint {
    RdmaActiveEndpointGroup<? extends RdmaActiveEndpoint> agroup;

    /**
     * Makes an endpoint on {@code idPriv}.
     *
     * @param group the group
     * @param idPriv the endpoint's id
     * @param serverSide whether this is the accepting side
     * @throws IOException never here; declared as in DiSNI
     */
    public RdmaActiveEndpoint(RdmaActiveEndpointGroup<? extends RdmaActiveEndpoint> group, RdmaCmId idPriv,
            boolean serverSide) throws IOException {
        super(group, idPriv, serverSide);
        this.agroup = group;
    }

    /**
     * Called on the CQ thread for each completion of this endpoint's queue pair. The {@link IbvWC} belongs to
     * the processor and is overwritten by its next poll: copy what is needed (or {@code clone()} it).
     *
     * @param wc the completion
     * @throws IOException as the endpoint likes (logged by the CQ thread)
     */
    public abstract void dispatchCqEvent(IbvWC wc) throws IOException;

    /**
     * Stops the CQ thread's deliveries to this endpoint, then closes it as {@link RdmaEndpoint#close()}
     * (also when connecting never reached resource allocation).
     */
    @Override
    public void close() throws IOException, InterruptedException {
        agroup.close(this);
        super.close();
    }
}
