package com.ibm.disni.verbs;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.cm.CmId;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.RdmaEventChannel}: an rdma_cm event channel
 * ({@code rdma_create_event_channel} / {@code rdma_destroy_event_channel}) over a Panama Verbs
 * {@link CmEventChannel} made polled: {@link #getCmEvent(int)} reads the next event of its ids, in the kernel's
 * order, on the calling thread. No buffer of the caller is involved. {@link #getFd()} is 0, as in DiSNI 2.1.
 */
public class RdmaEventChannel {

    private RdmaCm cm;
    private int fd;
    /** False once {@link #close()} or {@link #destroyEventChannel()} has been called. */
    protected volatile boolean isOpen;

    /** The Panama Verbs channel behind this object; null for one made with the protected constructor. */
    final CmEventChannel pv;
    /** The DiSNI ids of this channel, by the Panama Verbs id an event names. */
    final Map<CmId, RdmaCmId> ids = new ConcurrentHashMap<>();

    /**
     * An object with no channel behind it (its calls throw {@code IOException}); kept because DiSNI 2.1 has
     * this constructor.
     *
     * @param fd the number {@link #getFd()} returns
     * @throws IOException never
     */
    protected RdmaEventChannel(int fd) throws IOException {
        this.cm = RdmaCm.open();
        this.fd = fd;
        this.isOpen = true;
        this.pv = null;
    }

    RdmaEventChannel(CmEventChannel pv) {
        this.cm = PanamaCm.INSTANCE;
        this.pv = pv;
        this.isOpen = true;
    }

    CmEventChannel panama() throws IOException {
        if (pv == null) {
            throw Failures.notOurs(this);
        }
        return pv;
    }

    /**
     * Returns 0, as DiSNI 2.1 did (the channel's descriptor is Panama Verbs' own).
     *
     * @return the number given to the protected constructor, else 0
     */
    public int getFd() {
        return fd;
    }

    /**
     * Tells whether neither {@link #close()} nor {@link #destroyEventChannel()} has been called.
     *
     * @return false once closed
     */
    public boolean isOpen() {
        return isOpen;
    }

    /**
     * Marks this object closed; the channel is freed by {@link #destroyEventChannel()}. A thread waiting in
     * {@link #getCmEvent(int)}, with or without a timeout, is woken and gets {@code IOException}.
     */
    public void close() {
        if (isOpen) {
            isOpen = false;
            if (pv != null && !pv.isClosed()) {
                pv.wakeup();
            }
        }
    }

    /**
     * {@code rdma_create_event_channel}.
     *
     * @return a new channel
     * @throws IOException if the call fails
     */
    public static RdmaEventChannel createEventChannel() throws IOException {
        return RdmaCm.open().createEventChannel();
    }

    /**
     * {@code rdma_create_id} on this channel.
     *
     * @param rdma_ps {@code RdmaCm.RDMA_PS_TCP}
     * @return the id
     * @throws IOException if the call fails
     */
    public RdmaCmId createId(short rdma_ps) throws IOException {
        return cm.createId(this, rdma_ps);
    }

    /**
     * Waits for the next event of this channel's ids.
     *
     * @param timeout milliseconds; negative waits without bound
     * @return the event, or null if none arrived in time
     * @throws IOException if the channel was closed or destroyed, also while this thread waits (the close wakes
     *                     every waiter; events that arrived before the close are still returned first), or if the
     *                     wait is interrupted
     */
    public RdmaCmEvent getCmEvent(int timeout) throws IOException {
        return cm.getCmEvent(this, timeout);
    }

    /**
     * {@code rdma_destroy_event_channel}, after destroying the channel's ids.
     *
     * @return 0
     * @throws IOException if the call fails
     */
    public int destroyEventChannel() throws IOException {
        return cm.destroyEventChannel(this);
    }
}
