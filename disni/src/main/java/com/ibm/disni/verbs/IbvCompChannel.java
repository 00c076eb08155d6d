package com.ibm.disni.verbs;

import java.io.IOException;
import org.panamaverbs.verbs.CompletionChannel;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.IbvCompChannel}: a completion channel
 * ({@code struct ibv_comp_channel}, {@code ibv_create_comp_channel} / {@code ibv_destroy_comp_channel}) over
 * a Panama Verbs {@link CompletionChannel}, on which armed completion queues signal.
 *
 * <p>{@link #getCqEvent(IbvCQ, int)} waits in Panama Verbs' descriptor poller, so a virtual thread waiting
 * parks instead of pinning its carrier; the wait is bounded by its timeout. {@link #getFd()} is the
 * channel's descriptor (DiSNI 2.1 returned 0).
 */
public class IbvCompChannel {

    private RdmaVerbs verbs;
    private int fd;
    /** The device the channel was created on (for the protected constructor, the context given). */
    protected IbvContext context;
    /** False once {@link #close()} or {@link #destroyCompChannel()} has been called. */
    protected volatile boolean isOpen;

    /** The Panama Verbs channel behind this object; null for one made with the protected constructor. */
    final CompletionChannel pv;

    /**
     * An object with no channel behind it (its verbs throw {@code IOException}); kept because DiSNI 2.1 has
     * this constructor.
     *
     * @param fd the descriptor {@link #getFd()} returns
     * @param context the device
     * @throws IOException never
     */
    protected IbvCompChannel(int fd, IbvContext context) throws IOException {
        this.verbs = RdmaVerbs.open();
        this.fd = fd;
        this.context = context;
        this.isOpen = true;
        this.pv = null;
    }

    IbvCompChannel(IbvContext context, CompletionChannel pv) {
        this.verbs = PanamaVerbs.INSTANCE;
        this.context = context;
        this.pv = pv;
        this.fd = pv.fd();
        this.isOpen = true;
    }

    CompletionChannel panama() throws IOException {
        if (pv == null) {
            throw Failures.notOurs(this);
        }
        return pv;
    }

    /**
     * Returns the channel's file descriptor.
     *
     * @return the descriptor
     */
    public int getFd() {
        return fd;
    }

    /**
     * Returns the device the channel belongs to.
     *
     * @return the context
     */
    public IbvContext getContext() {
        return context;
    }

    /**
     * Tells whether neither {@link #close()} nor {@link #destroyCompChannel()} has been called.
     *
     * @return false once closed
     */
    public boolean isOpen() {
        return isOpen;
    }

    /** Marks this object closed; the channel itself is freed by {@link #destroyCompChannel()}. */
    public void close() {
        isOpen = false;
    }

    /**
     * {@code ibv_get_cq_event}: waits up to {@code timeout} ms for an armed queue of this channel to signal
     * (negative: without bound). Re-arm the queue to be signalled again; acknowledge with
     * {@code IbvCQ.ackEvents}.
     *
     * @param cq the queue expected to signal
     * @param timeout milliseconds, negative for no bound
     * @return true if an event arrived, false on timeout
     * @throws IOException if the call fails or the channel is closed
     */
    public boolean getCqEvent(IbvCQ cq, int timeout) throws IOException {
        return verbs.getCqEvent(this, cq, timeout);
    }

    /**
     * {@code ibv_destroy_comp_channel}, after destroying the queues still attached to it.
     *
     * @return 0
     * @throws IOException if the call fails
     */
    public int destroyCompChannel() throws IOException {
        return verbs.destroyCompChannel(this);
    }
}
