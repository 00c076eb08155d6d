package com.ibm.disni.verbs;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import org.panamaverbs.verbs.CompletionQueue;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.IbvCQ}: a completion queue ({@code struct ibv_cq},
 * {@code ibv_create_cq} / {@code ibv_destroy_cq}) over a Panama Verbs {@link CompletionQueue}.
 *
 * <p>{@link #poll(IbvWC[], int)} and {@link #reqNotification(boolean)} prepare stateful verb calls
 * ({@code ibv_poll_cq}, {@code ibv_req_notify_cq}) that allocate nothing when executed again from the same
 * thread. {@link #getCqe()} is the queue's actual capacity (DiSNI 2.1 returned 0); {@link #getHandle()} is
 * a number unique per queue in the JVM, not the kernel's handle. {@link #destroyCQ()} closes the queue
 * pairs using the queue first.
 */
public class IbvCQ {

    private static final AtomicInteger HANDLES = new AtomicInteger();

    private RdmaVerbs verbs;
    /** The device the queue was created on. */
    protected IbvContext context;
    /**
     * The completion channel the queue signals when armed, or null if it was created without one (then
     * {@link #reqNotification(boolean)} throws).
     */
    protected IbvCompChannel channel;
    /**
     * The queue's capacity in entries as the device granted it ({@code ibv_cq.cqe}), at least the number asked for.
     */
    protected int cqe;
    /** A number unique to this queue in the JVM, counted from 1; not the kernel's {@code cq->handle}. */
    protected int handle;
    /** False once {@link #close()} or {@link #destroyCQ()} has been called. */
    protected volatile boolean isOpen;

    /** The Panama Verbs queue behind this object. */
    final CompletionQueue pv;

    /**
     * Creates a completion queue of at least {@code cqe} entries on {@code context}'s device, signalling
     * {@code channel} when armed ({@code ibv_create_cq} on vector 0), as {@code context.createCQ} does.
     *
     * @param context the device
     * @param channel the completion channel, or null
     * @param cqe the least number of entries
     * @throws IOException if the call fails
     */
    public IbvCQ(IbvContext context, IbvCompChannel channel, int cqe) throws IOException {
        this(context, channel, PanamaVerbs.createQueue(context, channel, cqe));
    }

    IbvCQ(IbvContext context, IbvCompChannel channel, CompletionQueue pv) {
        this.verbs = PanamaVerbs.INSTANCE;
        this.context = context;
        this.channel = channel;
        this.pv = pv;
        this.cqe = pv.capacity();
        this.handle = HANDLES.incrementAndGet();
        this.isOpen = true;
    }

    /**
     * Returns a number unique to this queue in the JVM.
     *
     * @return the number
     */
    public int getHandle() {
        return handle;
    }

    /**
     * Returns the device the queue belongs to.
     *
     * @return the context
     */
    public IbvContext getContext() {
        return context;
    }

    /**
     * Returns the channel the queue signals on.
     *
     * @return the channel, or null
     */
    public IbvCompChannel getChannel() {
        return channel;
    }

    /**
     * Returns the queue's capacity.
     *
     * @return entries (at least the number asked for)
     */
    public int getCqe() {
        return cqe;
    }

    /**
     * Tells whether neither {@link #close()} nor {@link #destroyCQ()} has been called.
     *
     * @return false once closed
     */
    public boolean isOpen() {
        return isOpen;
    }

    /** Marks this object closed; the queue itself is freed by {@link #destroyCQ()}. */
    public void close() {
        isOpen = false;
    }

    /**
     * Prepares {@code ibv_poll_cq(cq, ne, ...)} into {@code wcList}: each execution fills
     * {@code wcList[0 .. getPolls())} and reuses those objects (copy what you keep).
     *
     * @param wcList the completions to fill
     * @param ne the most completions one execution reads, 1..{@code wcList.length}
     * @return the call
     * @throws IOException if {@code ne} is out of range
     */
    public SVCPollCq poll(IbvWC[] wcList, int ne) throws IOException {
        return verbs.pollCQ(this, wcList, ne);
    }

    /**
     * Prepares {@code ibv_req_notify_cq}: arms the queue to signal its channel once.
     *
     * @param solicited_only whether only solicited completions signal
     * @return the call
     * @throws IOException if the queue has no channel
     */
    public SVCReqNotify reqNotification(boolean solicited_only) throws IOException {
        return verbs.reqNotifyCQ(this, solicited_only);
    }

    /**
     * {@code ibv_ack_cq_events}: acknowledges every event received on this queue so far.
     *
     * @param nevents the number of events taken (not needed: Panama Verbs counts them)
     * @return 0
     * @throws IOException if the queue is closed
     */
    public int ackEvents(int nevents) throws IOException {
        return verbs.ackCqEvents(this, nevents);
    }

    /**
     * {@code ibv_destroy_cq}, after closing the queue pairs using the queue.
     *
     * @return 0
     * @throws IOException if the call fails
     */
    public int destroyCQ() throws IOException {
        return verbs.destroyCQ(this);
    }
}
