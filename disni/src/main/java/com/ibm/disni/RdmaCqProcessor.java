package com.ibm.disni;

import com.ibm.disni.util.DiSNILogger;
import com.ibm.disni.util.NativeAffinity;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCReqNotify;
import java.io.IOException;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;

/**
 * A completion queue with a thread that takes its completions and hands each to the endpoint whose queue
 * pair made it ({@link #registerQP(int, RdmaEndpoint)}), through {@link #dispatchCqEvent(RdmaEndpoint, IbvWC)}.
 * Blocking mode waits on the completion channel, acks every event, re-arms, then polls until empty;
 * polling mode polls without pause. The {@link IbvWC} handed on is an element of the processor's array,
 * overwritten by the next poll (as in DiSNI). The thread is not a daemon (as in DiSNI). Every wait is at
 * most {@code timeout} ms and at most one second (also with {@code timeout = -1}), so {@link #close()}
 * returns within about a second after the current callback.
 *
 * @param <C> the endpoint type
 */
public abstract class RdmaCqProcessor<C extends RdmaEndpoint> extends RdmaCqProvider implements Runnable {
    private static final Logger logger = DiSNILogger.getLogger();
    private static int MAX_ACK_COUNT = 1;
    private static final int MAX_WAIT_MS = 1000;

    private IbvWC[] wcList;
    private SVCReqNotify reqNotify;
    private SVCPollCq poll;
    private int timeout;
    private int ackCounter;
    private boolean blocking;
    private boolean running;
    private long affinity;
    private int clusterId;
    private Thread thread;
    private int wrSize;
    private ConcurrentHashMap<Integer, C> qpMap;
    private volatile boolean stopping;

    /**
     * Creates the queue and its channel, and in blocking mode arms the queue.
     *
     * @param context the device
     * @param cqSize the queue's depth
     * @param wrSize the most work requests of a queue pair; completions are taken {@code min(cqSize, wrSize)}
     *        at a time
     * @param affinity CPU mask for the thread (none if not positive)
     * @param clusterId a number for the caller
     * @param timeout milliseconds of one wait on the channel (at most a second is used)
     * @param polling busy-poll instead of waiting on the channel
     * @throws IOException if the queue cannot be made
     */
    public RdmaCqProcessor(IbvContext context, int cqSize, int wrSize, long affinity, int clusterId, int timeout,
            boolean polling) throws IOException {
        super(context, cqSize);
        this.wrSize = wrSize;
        this.affinity = affinity;
        this.clusterId = clusterId;
        this.timeout = timeout;
        this.blocking = !polling;
        this.qpMap = new ConcurrentHashMap<>();
        int n = Math.max(1, Math.min(cqSize, wrSize));
        this.wcList = new IbvWC[n];
        for (int i = 0; i < n; i++) {
            wcList[i] = new IbvWC();
        }
        this.poll = cq.poll(wcList, n);
        this.reqNotify = cq.reqNotification(false);
        if (blocking) {
            reqNotify.execute();
        }
    }

    /**
     * Routes the completions of queue pair {@code qpnum} to {@code endpoint}.
     *
     * @param qpnum the queue pair number
     * @param endpoint the endpoint
     * @throws IOException never here; declared as in DiSNI
     */
    public synchronized void registerQP(int qpnum, C endpoint) throws IOException {
        qpMap.put(qpnum, endpoint);
    }

    /**
     * Stops routing completions to {@code endpoint}; needs no live queue pair.
     *
     * @param endpoint the endpoint
     * @throws IOException never here; declared as in DiSNI
     */
    public synchronized void unregister(RdmaEndpoint endpoint) throws IOException {
        qpMap.values().removeIf(e -> e == endpoint);
    }

    /**
     * Tells whether the thread was started and not yet stopped.
     *
     * @return true while running
     */
    public synchronized boolean isRunning() {
        return running;
    }

    /** Starts the thread (once). */
    public synchronized void start() {
        if (thread != null) {
            return;
        }
        running = true;
        thread = new Thread(this, "disni-cq-" + clusterId);
        thread.start();
    }

    /**
     * Hands {@code wc} to the endpoint registered for its queue pair; drops it if there is none.
     *
     * @param wc the completion
     * @throws IOException if the endpoint's callback throws it
     */
    public final void dispatchCqEvent(IbvWC wc) throws IOException {
        C endpoint = qpMap.get(wc.getQp_num());
        if (endpoint == null) {
            logger.info("no endpoint for qp_num {}, completion dropped", wc.getQp_num());
            return;
        }
        dispatchCqEvent(endpoint, wc);
    }

    /**
     * Called on the processor's thread for each completion of {@code endpoint}.
     *
     * @param endpoint the endpoint
     * @param wc the completion, reused by the next poll
     * @throws IOException as the callback likes
     */
    public abstract void dispatchCqEvent(C endpoint, IbvWC wc) throws IOException;

    @Override
    public void run() {
        if (affinity > 0) {
            NativeAffinity.setAffinity(affinity);
        }
        int wait = timeout < 0 || timeout > MAX_WAIT_MS ? MAX_WAIT_MS : Math.max(timeout, 1);
        while (!isClosed()) {
            try {
                if (blocking) {
                    if (!compChannel.getCqEvent(cq, wait)) {
                        continue;
                    }
                    cq.ackEvents(1);
                    ackCounter++;
                    reqNotify.execute();
                    drain();
                } else {
                    drain();
                }
            } catch (Throwable e) {
                if (isClosed()) {
                    break;
                }
                logger.warn("CQ processor " + clusterId + ": " + e, e);
            }
        }
        synchronized (this) {
            running = false;
        }
    }

    private void drain() throws IOException {
        while (!isClosed()) {
            int polls = poll.execute().getPolls();
            if (polls <= 0) {
                return;
            }
            for (int i = 0; i < polls; i++) {
                dispatchCqEvent(wcList[i]);
            }
        }
    }

    private boolean isClosed() {
        return stopping;
    }

    /**
     * Returns the number given at construction.
     *
     * @return clusterId
     */
    public int getClusterId() {
        return clusterId;
    }

    /**
     * Stops the thread (waiting for it a bounded time: it returns within a second unless a callback blocks,
     * in which case it is interrupted and left after ten more seconds), then destroys the queue and channel.
     *
     * @throws IOException if destroying fails
     * @throws InterruptedException if interrupted while joining
     */
    @Override
    public void close() throws IOException, InterruptedException {
        stopping = true;
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t != null && t != Thread.currentThread()) {
            t.join(MAX_WAIT_MS + Math.max(timeout, 0) + 1000L);
            if (t.isAlive()) {
                t.interrupt();
                t.join(10_000);
            }
            if (t.isAlive()) {
                logger.warn("CQ processor {} thread still running, queue not destroyed", clusterId);
                return;
            }
        }
        super.close();
    }
}
