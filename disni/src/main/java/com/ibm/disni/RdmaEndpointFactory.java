package com.ibm.disni;

import com.ibm.disni.verbs.RdmaCmId;
import java.io.IOException;

/**
 * Makes the endpoints of a group: {@code serverSide} is false for {@link RdmaEndpointGroup#createEndpoint()}
 * and true for the endpoint of an incoming connection request (called on the group's CM thread).
 *
 * @param <C> the endpoint type
 */
public interface RdmaEndpointFactory<C extends RdmaEndpoint> {
    /**
     * Makes an endpoint on {@code id}.
     *
     * @param id the endpoint's connection id
     * @param serverSide whether the endpoint is the accepting side
     * @return the endpoint
     * @throws IOException if it cannot be made
     */
    C createEndpoint(RdmaCmId id, boolean serverSide) throws IOException;
}
