package com.ibm.disni;

import com.ibm.disni.util.DiSNILogger;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;

/**
 * A group's event channel and the daemon thread that hands its events to
 * {@link RdmaEndpointGroup#dispatchCmEvent(RdmaCmEvent)}. One wait lasts {@code timeout} ms, at most a
 * second (also with {@code timeout = -1}), so {@link #close()} returns within about a second.
 */
public class RdmaCmProcessor implements Runnable {
    private static final Logger logger = DiSNILogger.getLogger();
    private static final int MAX_WAIT_MS = 1000;

    private RdmaEventChannel cmChannel;
    private RdmaEndpointGroup<? extends RdmaEndpoint> cmConsumer;
    private Thread thread;
    private AtomicBoolean closed;
    private int timeout;

    /**
     * Creates the group's event channel.
     *
     * @param cmConsumer the group
     * @param timeout milliseconds of one wait
     * @throws IOException if the channel cannot be made
     */
    public RdmaCmProcessor(RdmaEndpointGroup<? extends RdmaEndpoint> cmConsumer, int timeout) throws IOException {
        this.cmConsumer = cmConsumer;
        this.timeout = timeout;
        this.closed = new AtomicBoolean(false);
        this.cmChannel = RdmaEventChannel.createEventChannel();
    }

    /** With a given channel (tests without a device). */
    RdmaCmProcessor(RdmaEndpointGroup<? extends RdmaEndpoint> cmConsumer, int timeout, RdmaEventChannel cmChannel) {
        this.cmConsumer = cmConsumer;
        this.timeout = timeout;
        this.closed = new AtomicBoolean(false);
        this.cmChannel = cmChannel;
    }

    /** Starts the thread (once). */
    public synchronized void start() {
        if (thread != null || closed.get()) {
            return;
        }
        thread = new Thread(this, "disni-cm");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void run() {
        int wait = timeout < 0 || timeout > MAX_WAIT_MS ? MAX_WAIT_MS : Math.max(timeout, 1);
        while (!closed.get()) {
            try {
                RdmaCmEvent event = cmChannel.getCmEvent(wait);
                if (event == null) {
                    continue;
                }
                cmConsumer.dispatchCmEvent(event);
                event.ackEvent();
            } catch (Throwable e) {
                if (closed.get() || !cmChannel.isOpen()) {
                    break; // closed, or its channel destroyed under it: every later wait would throw at once
                }
                logger.warn("CM processor: " + e, e);
            }
        }
    }

    /**
     * Stops the thread (a bounded wait), then destroys the event channel and its ids.
     *
     * @throws IOException if destroying fails
     * @throws InterruptedException if interrupted while joining
     */
    public synchronized void close() throws IOException, InterruptedException {
        if (closed.getAndSet(true)) {
            return;
        }
        if (thread != null && thread != Thread.currentThread()) {
            thread.join(MAX_WAIT_MS + 1000L);
            if (thread.isAlive()) {
                thread.interrupt();
                thread.join(5000);
            }
        }
        cmChannel.destroyEventChannel();
    }

    RdmaCmId createId(short rdma_ps) throws IOException {
        return cmChannel.createId(rdma_ps);
    }
}
