package com.ibm.disni.verbs;

import java.io.IOException;
import java.net.SocketAddress;
import org.panamaverbs.cm.CmId;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.RdmaCmId}: one end of an rdma_cm connection
 * ({@code struct rdma_cm_id}, {@code rdma_create_id} / {@code rdma_destroy_id}) over a Panama Verbs
 * {@link CmId}. Its calls are those of {@link RdmaCm}: the address, route and connection calls return at
 * once and report through events of its channel.
 *
 * <p>{@link #getVerbs()} is the device rdma_cm bound the id to (one {@link IbvContext} per device context in
 * the JVM); the queue pair of {@link #createQP(IbvPd, IbvQPInitAttr)} belongs to the id. Private data given in
 * an {@link RdmaConnParam} is copied during the call, so its memory need only live until the call returns.
 */
public class RdmaCmId {

    private RdmaCm cm;
    /**
     * The port space: {@code RdmaCm.RDMA_PS_TCP} (0x0106) for every id this module creates, 0 for an object made
     * with the protected constructor.
     */
    protected int ps;
    /**
     * What {@link #getPort_num()} returns for an object without an id behind it (set by
     * {@link #setPort_num(byte)}); a real id's port comes from Panama Verbs.
     */
    protected byte port_num;
    /** The event channel the id's events are queued on. */
    protected RdmaEventChannel cmChannel;
    /**
     * The device the id is bound to: looked up the first time {@link #getVerbs()} finds the id bound, or set by
     * {@link #setVerbs(IbvContext)}; null before.
     */
    protected IbvContext verbs;
    /** The queue pair {@link #createQP(IbvPd, IbvQPInitAttr)} made on this id, or null. */
    protected IbvQP qpObj;
    /** False once {@link #close()} or {@link #destroyId()} has been called. */
    protected volatile boolean isOpen;

    /** The Panama Verbs id behind this object; null for one made with the protected constructor. */
    final CmId pv;

    /**
     * An object with no id behind it (its calls throw {@code IOException}); kept because DiSNI 2.1 has this
     * constructor.
     *
     * @param cmChannel the channel
     * @param verbs the device
     * @throws IOException never
     */
    protected RdmaCmId(RdmaEventChannel cmChannel, IbvContext verbs) throws IOException {
        this.cm = RdmaCm.open();
        this.cmChannel = cmChannel;
        this.verbs = verbs;
        this.isOpen = true;
        this.pv = null;
    }

    RdmaCmId(RdmaEventChannel cmChannel, CmId pv) {
        this.cm = PanamaCm.INSTANCE;
        this.cmChannel = cmChannel;
        this.pv = pv;
        this.ps = RdmaCm.RDMA_PS_TCP;
        this.isOpen = true;
        cmChannel.ids.put(pv, this);
    }

    CmId panama() throws IOException {
        if (pv == null) {
            throw Failures.notOurs(this);
        }
        return pv;
    }

    /**
     * Returns the port space.
     *
     * @return {@code RdmaCm.RDMA_PS_TCP}
     */
    public int getPs() {
        return ps;
    }

    /**
     * Returns the port of the device the id uses ({@code cm_id->port_num}).
     *
     * @return the port, 0 before the id is bound to a device
     */
    public byte getPort_num() {
        if (pv != null && !pv.isClosed()) {
            return (byte) pv.port();
        }
        return port_num;
    }

    /**
     * Returns the channel the id reports to.
     *
     * @return the channel
     */
    public RdmaEventChannel getCmChannel() {
        return cmChannel;
    }

    /**
     * Returns the device the id is bound to ({@code cm_id->verbs}).
     *
     * @return the context
     * @throws IOException if the id is closed or not bound to a device yet
     */
    public IbvContext getVerbs() throws IOException {
        if (verbs == null) {
            try {
                verbs = IbvContext.of(panama().context());
            } catch (RuntimeException e) {
                throw Failures.io("getVerbs", e);
            }
        }
        return verbs;
    }

    /**
     * Returns the queue pair made by {@link #createQP(IbvPd, IbvQPInitAttr)}.
     *
     * @return the queue pair, or null
     */
    public IbvQP getQp() {
        return qpObj;
    }

    /**
     * Sets what {@link #getQp()} returns.
     *
     * @param qpObj the queue pair
     */
    protected void setQp(IbvQP qpObj) {
        this.qpObj = qpObj;
    }

    /**
     * Sets what {@link #getPort_num()} returns for an object without an id behind it.
     *
     * @param port_num the port
     */
    protected void setPort_num(byte port_num) {
        this.port_num = port_num;
    }

    /**
     * Sets what {@link #getVerbs()} returns.
     *
     * @param verbs the device
     */
    protected void setVerbs(IbvContext verbs) {
        this.verbs = verbs;
    }

    /**
     * Tells whether neither {@link #close()} nor {@link #destroyId()} has been called.
     *
     * @return false once closed
     */
    public boolean isOpen() {
        return isOpen;
    }

    /** Marks this object closed; the id is freed by {@link #destroyId()}. */
    public void close() {
        isOpen = false;
    }

    /**
     * {@code rdma_create_qp}: see {@link RdmaCm#createQP(RdmaCmId, IbvPd, IbvQPInitAttr)}.
     *
     * @param pd a protection domain of the id's device
     * @param attr the queue pair's attributes
     * @return the queue pair
     * @throws IOException if the call fails
     */
    public IbvQP createQP(IbvPd pd, IbvQPInitAttr attr) throws IOException {
        return cm.createQP(this, pd, attr);
    }

    /**
     * {@code rdma_bind_addr}.
     *
     * @param addr an {@code InetSocketAddress}, passed as given
     * @throws IOException if the call fails
     */
    public void bindAddr(SocketAddress addr) throws IOException {
        cm.bindAddr(this, addr);
    }

    /**
     * {@code rdma_listen}.
     *
     * @param backlog the queue of pending requests
     * @throws IOException if the call fails
     */
    public void listen(int backlog) throws IOException {
        cm.listen(this, backlog);
    }

    /**
     * {@code rdma_resolve_addr}; {@code ADDR_RESOLVED} or {@code ADDR_ERROR} follows.
     *
     * @param src a local address to bind first, or null
     * @param dst the destination
     * @param timeout milliseconds
     * @throws IOException if {@code src} cannot be bound
     */
    public void resolveAddr(SocketAddress src, SocketAddress dst, int timeout) throws IOException {
        cm.resolveAddr(this, src, dst, timeout);
    }

    /**
     * {@code rdma_resolve_route}; {@code ROUTE_RESOLVED} or {@code ROUTE_ERROR} follows.
     *
     * @param timeout milliseconds
     * @throws IOException never at once
     */
    public void resolveRoute(int timeout) throws IOException {
        cm.resolveRoute(this, timeout);
    }

    /**
     * {@code rdma_connect}; {@code ESTABLISHED} or a failure event follows.
     *
     * @param connParam the parameters
     * @throws IOException if the id has no queue pair or the parameters are refused
     */
    public void connect(RdmaConnParam connParam) throws IOException {
        cm.connect(this, connParam);
    }

    /**
     * {@code rdma_accept}; {@code ESTABLISHED} follows.
     *
     * @param connParam the parameters
     * @throws IOException if the call fails
     */
    public void accept(RdmaConnParam connParam) throws IOException {
        cm.accept(this, connParam);
    }

    /**
     * {@code rdma_disconnect}.
     *
     * @return 0, or -1 if the call failed
     * @throws IOException never
     */
    public int disconnect() throws IOException {
        return cm.disconnect(this);
    }

    /**
     * {@code rdma_destroy_id}, after destroying its queue pair.
     *
     * @return 0
     * @throws IOException if the call fails
     */
    public int destroyId() throws IOException {
        return cm.destroyCmId(this);
    }

    /**
     * {@code rdma_destroy_qp}.
     *
     * @return 0
     * @throws IOException if the call fails
     */
    public int destroyQP() throws IOException {
        return cm.destroyQP(this);
    }

    /**
     * {@code rdma_get_local_addr}.
     *
     * @return the local address, or null before bind or resolve
     * @throws IOException if the id was destroyed (its address went with it; nothing freed is read)
     */
    public SocketAddress getSource() throws IOException {
        return cm.getSrcAddr(this);
    }

    /**
     * {@code rdma_get_peer_addr}.
     *
     * @return the peer's address, or null before resolve or a request
     * @throws IOException if the id was destroyed (its address went with it; nothing freed is read)
     */
    public SocketAddress getDestination() throws IOException {
        return cm.getDstAddr(this);
    }

    /**
     * {@code rdma_destroy_ep}: the id and its queue pair.
     *
     * @return 0
     * @throws IOException if the call fails
     */
    public int destroyEp() throws IOException {
        return cm.destroyEp(this);
    }
}
