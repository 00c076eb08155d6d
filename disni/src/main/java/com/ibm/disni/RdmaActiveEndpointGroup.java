package com.ibm.disni;

import com.ibm.disni.util.DiSNILogger;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import org.slf4j.Logger;

/**
 * A group whose endpoints get their completions through callbacks: one {@link RdmaActiveCqProcessor} (one
 * completion queue of {@code cqSize} and one thread) per device, made when the first endpoint on the device
 * allocates resources and shared by the group's endpoints there. Queue pairs are RC with {@code maxWR} send
 * and receive entries and {@code max(maxSge, 4)} scatter/gather entries (DiSNI 2.1 always used 4).
 *
 * @param <C> the endpoint type
 */
public class RdmaActiveEndpointGroup<C extends RdmaActiveEndpoint> extends RdmaEndpointGroup<C> {
    private static final Logger logger = DiSNILogger.getLogger();
    private HashMap<Integer, RdmaActiveCqProcessor<C>> cqMap;
    private int timeout;
    private boolean polling;
    /**
     * Entries asked for each device's shared completion queue (the constructor's {@code cqSize}); the device may
     * grant more.
     */
    protected int cqSize;
    /**
     * Scatter/gather entries asked for per work request (the constructor's {@code maxSge}); queue pairs get
     * {@code max(maxSge, 4)} on both queues.
     */
    protected int maxSge;
    /**
     * Send and receive queue depth of each queue pair, in work requests (the constructor's {@code maxWR}); a CQ
     * thread also reads at most {@code min(cqSize, maxWR)} completions per poll.
     */
    protected int maxWR;

    /**
     * Makes the group (call {@link #init(RdmaEndpointFactory)} before use).
     *
     * @param timeout milliseconds of one wait of the CM and CQ threads (at most a second is used); not a
     *        connect timeout
     * @param polling CQ threads busy-poll instead of waiting on the completion channel
     * @param maxWR send and receive queue depth of each queue pair
     * @param maxSge scatter/gather entries of each work request
     * @param cqSize depth of each device's shared completion queue
     * @throws IOException if the event channel cannot be made
     */
    public RdmaActiveEndpointGroup(int timeout, boolean polling, int maxWR, int maxSge, int cqSize)
            throws IOException {
        super(timeout);
        this.cqMap = new HashMap<>();
        this.timeout = timeout;
        this.polling = polling;
        this.maxWR = maxWR;
        this.maxSge = maxSge;
        this.cqSize = cqSize;
    }

    @Override
    public RdmaCqProvider createCqProvider(C endpoint) throws IOException {
        return processor(endpoint.getIdPriv().getVerbs());
    }

    private RdmaActiveCqProcessor<C> processor(IbvContext context) throws IOException {
        synchronized (cqMap) {
            int key = context.getCmd_fd();
            RdmaActiveCqProcessor<C> processor = cqMap.get(key);
            if (processor == null) {
                if (isShutDown()) {
                    throw new IOException("endpoint group is closed");
                }
                processor = new RdmaActiveCqProcessor<>(context, cqSize, maxWR, 0, 1, timeout, polling);
                cqMap.put(key, processor);
                processor.start();
                logger.info("new CQ processor for device {}, cqSize {}", key, cqSize);
            }
            return processor;
        }
    }

    @Override
    public IbvQP createQpProvider(C endpoint) throws IOException {
        RdmaActiveCqProcessor<C> processor = processor(endpoint.getIdPriv().getVerbs());
        IbvQPInitAttr attr = rcQueuePairAttributes(processor.getCQ(), maxWR, maxSge);
        IbvQP qp = endpoint.getIdPriv().createQP(endpoint.getPd(), attr);
        processor.registerQP(qp.getQp_num(), endpoint);
        return qp;
    }

    @Override
    public void allocateResources(C endpoint) throws Exception {
        endpoint.allocateResources();
    }

    /**
     * Closes the endpoints and server endpoints, the CM thread and channel, then stops each CQ thread and
     * destroys its queue and channel. Bounded in time.
     */
    @Override
    public void close() throws IOException, InterruptedException {
        IOException failure = null;
        try {
            super.close();
        } catch (IOException e) {
            failure = e;
        }
        List<RdmaActiveCqProcessor<C>> processors;
        synchronized (cqMap) {
            processors = new ArrayList<>(cqMap.values());
            cqMap.clear();
        }
        for (RdmaActiveCqProcessor<C> processor : processors) {
            try {
                processor.close();
            } catch (IOException e) {
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    void close(RdmaEndpoint endpoint) throws IOException {
        List<RdmaActiveCqProcessor<C>> processors;
        synchronized (cqMap) {
            processors = new ArrayList<>(cqMap.values());
        }
        for (RdmaActiveCqProcessor<C> processor : processors) {
            processor.unregister(endpoint);
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
     * Returns the shared completion queues' depth.
     *
     * @return cqSize
     */
    public int getCqSize() {
        return cqSize;
    }

    /**
     * Returns the scatter/gather entries asked for.
     *
     * @return maxSge
     */
    public int getMaxSge() {
        return maxSge;
    }
}
