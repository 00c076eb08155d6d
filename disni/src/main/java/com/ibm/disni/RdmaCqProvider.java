package com.ibm.disni;

import com.ibm.disni.util.DiSNILogger;
import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import java.io.IOException;
import org.slf4j.Logger;

/**
 * A completion queue of {@code cqSize} entries with its own completion channel, on vector 0. Unlike DiSNI
 * 2.1, {@link #close()} destroys the queue before its channel (so the channel is really freed) and may be
 * called more than once.
 */
public class RdmaCqProvider {
    private static final Logger logger = DiSNILogger.getLogger();

    /** The device the queue and its channel were created on. */
    protected IbvContext context;
    /** The completion channel made for this provider alone; {@link #close()} destroys it after the queue. */
    protected IbvCompChannel compChannel;
    /**
     * The completion queue, signalling {@code compChannel} when armed, on completion vector 0; destroyed by
     * {@link #close()}.
     */
    protected IbvCQ cq;
    /** The depth asked for, in entries; the queue's real capacity ({@code cq.getCqe()}) may be larger. */
    protected int cqSize;
    private boolean providerClosed;

    /**
     * Creates a completion channel and a queue of {@code cqSize} entries on it.
     *
     * @param context the device
     * @param cqSize the queue's depth
     * @throws IOException if either cannot be made
     */
    public RdmaCqProvider(IbvContext context, int cqSize) throws IOException {
        this.context = context;
        this.cqSize = cqSize;
        this.compChannel = context.createCompChannel();
        try {
            this.cq = context.createCQ(compChannel, cqSize, 0);
        } catch (IOException | RuntimeException e) {
            compChannel.destroyCompChannel();
            throw e;
        }
        logger.info("new CQ provider, cqSize {}", cqSize);
    }

    /**
     * Destroys the queue, then its channel; later calls do nothing.
     *
     * @throws IOException if destroying fails (both are attempted)
     * @throws InterruptedException never here; declared as in DiSNI (subclasses join threads)
     */
    public void close() throws IOException, InterruptedException {
        synchronized (this) {
            if (providerClosed) {
                return;
            }
            providerClosed = true;
        }
        IOException failure = null;
        try {
            cq.destroyCQ();
        } catch (IOException e) {
            failure = e;
        }
        try {
            compChannel.destroyCompChannel();
        } catch (IOException e) {
            if (failure == null) {
                failure = e;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Returns the completion queue.
     *
     * @return the queue
     */
    public IbvCQ getCQ() {
        return cq;
    }

    /**
     * Returns the queue's depth as asked.
     *
     * @return cqSize
     */
    public int getCqSize() {
        return cqSize;
    }
}
