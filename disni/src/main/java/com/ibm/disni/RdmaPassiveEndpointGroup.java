package com.ibm.disni;

import com.ibm.disni.util.DiSNILogger;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.RdmaCmId;
import java.io.IOException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * A group whose endpoints poll their own completion queue ({@code getCqProvider().getCQ()}): each endpoint
 * gets a queue of {@code cqSize} with its own completion channel, which (unlike DiSNI 2.1) is destroyed when
 * the endpoint or the group closes. Queue pairs are RC with {@code maxWR} send and receive entries and
 * {@code max(maxSge, 4)} scatter/gather entries.
 *
 * @param <C> the endpoint type
 */
public class RdmaPassiveEndpointGroup<C extends RdmaEndpoint> extends RdmaEndpointGroup<C> {
    private static final Logger logger = DiSNILogger.getLogger();
    private int maxWR;
    private int maxSge;
    private int cqSize;
    private final Map<RdmaEndpoint, RdmaCqProvider> cqProviders = new IdentityHashMap<>();

    /**
     * Makes a new group of plain {@link RdmaEndpoint}s, initialised with {@link RawEndpointFactory} (an
     * instance method, as in DiSNI).
     *
     * @param timeout milliseconds of one wait of the CM thread
     * @param maxWR send and receive queue depth
     * @param maxSge scatter/gather entries
     * @param cqSize each endpoint's completion queue depth
     * @return the new group
     * @throws IOException if its event channel cannot be made
     */
    public RdmaPassiveEndpointGroup<RdmaEndpoint> createDefaultGroup(int timeout, int maxWR, int maxSge,
            int cqSize) throws IOException {
        RdmaPassiveEndpointGroup<RdmaEndpoint> group = new RdmaPassiveEndpointGroup<>(timeout, maxWR, maxSge,
                cqSize);
        group.init(new RawEndpointFactory(group));
        return group;
    }

    /**
     * Makes the group (call {@link #init(RdmaEndpointFactory)} before use).
     *
     * @param timeout milliseconds of one wait of the CM thread (at most a second is used)
     * @param maxWR send and receive queue depth of each queue pair
     * @param maxSge scatter/gather entries of each work request
     * @param cqSize depth of each endpoint's completion queue
     * @throws IOException if the event channel cannot be made
     */
    public RdmaPassiveEndpointGroup(int timeout, int maxWR, int maxSge, int cqSize) throws IOException {
        super(timeout);
        this.maxWR = maxWR;
        this.maxSge = maxSge;
        this.cqSize = cqSize;
    }

    @Override
    public RdmaCqProvider createCqProvider(C endpoint) throws IOException {
        RdmaCqProvider provider = new RdmaCqProvider(endpoint.getIdPriv().getVerbs(), cqSize);
        synchronized (cqProviders) {
            cqProviders.put(endpoint, provider);
        }
        return provider;
    }

    @Override
    public IbvQP createQpProvider(C endpoint) throws IOException {
        return endpoint.getIdPriv().createQP(endpoint.getPd(),
                rcQueuePairAttributes(endpoint.getCqProvider().getCQ(), maxWR, maxSge));
    }

    @Override
    public void allocateResources(C endpoint) throws Exception {
        endpoint.allocateResources();
    }

    @Override
    void endpointClosed(RdmaEndpoint endpoint) throws IOException {
        RdmaCqProvider provider;
        synchronized (cqProviders) {
            provider = cqProviders.remove(endpoint);
        }
        if (provider != null) {
            closeProvider(provider);
        }
    }

    private static void closeProvider(RdmaCqProvider provider) throws IOException {
        try {
            provider.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while closing a completion queue", e);
        }
    }

    /** After the group's endpoints closed (each freeing its queue): frees any completion queue left. */
    @Override
    void endpointsClosed() throws IOException {
        List<RdmaCqProvider> left;
        synchronized (cqProviders) {
            left = new ArrayList<>(cqProviders.values());
            cqProviders.clear();
        }
        IOException failure = null;
        for (RdmaCqProvider provider : left) {
            try {
                closeProvider(provider);
            } catch (IOException e) {
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Returns the queue pairs' send and receive depth.
     *
     * @return maxWR
     */
    public int getMaxWR() {
        return maxWR;
    }

    /**
     * Returns the scatter/gather entries asked for.
     *
     * @return maxSge
     */
    public int getMaxSge() {
        return maxSge;
    }

    /**
     * Returns each endpoint's completion queue depth.
     *
     * @return cqSize
     */
    public int getCqSize() {
        return cqSize;
    }

    /** The factory of {@link #createDefaultGroup(int, int, int, int)}: plain {@link RdmaEndpoint}s. */
    protected class RawEndpointFactory implements RdmaEndpointFactory<RdmaEndpoint> {
        RdmaPassiveEndpointGroup<RdmaEndpoint> group;

        /**
         * A factory for {@code group}'s endpoints.
         *
         * @param group the group
         */
        public RawEndpointFactory(RdmaPassiveEndpointGroup<RdmaEndpoint> group) {
            this.group = group;
        }

        @Override
        public RdmaEndpoint createEndpoint(RdmaCmId id, boolean serverSide) throws IOException {
            return new RdmaEndpoint(group, id, serverSide);
        }
    }
}
