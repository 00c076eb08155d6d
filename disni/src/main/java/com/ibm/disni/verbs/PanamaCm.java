package com.ibm.disni.verbs;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.panamaverbs.cm.CmEvent;
import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.cm.CmEventType;
import org.panamaverbs.cm.CmException;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.ConnectionParameters;
import org.panamaverbs.cm.PortSpace;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QpType;
import org.panamaverbs.verbs.QueuePair;

/**
 * This module's {@link RdmaCm}, on Panama Verbs' {@link CmId}. As in DiSNI, the address, route and connection
 * calls return at once ({@link CmId#beginResolveAddress}, {@link CmId#beginResolveRoute},
 * {@link CmId#beginConnect}, {@link CmId#accept}) and their outcome is the event the kernel reports for the
 * id, whenever it comes: a virtual thread per call hands that event on to the DiSNI channel's queue
 * unchanged (type, status, private data). No event is ever made up on the Java side: the timeout a program
 * passes bounds the kernel's work, as in DiSNI, and the endpoint layer's waits ({@code RdmaEndpoint}) bound
 * how long a program waits for the event. A listening id's virtual thread turns connection requests into
 * {@code CONNECT_REQUEST} events, and an established id's reports {@code DISCONNECTED}. Every such thread
 * ends when its id is destroyed.
 */
final class PanamaCm extends RdmaCm {

    static final PanamaCm INSTANCE = new PanamaCm();

    /**
     * How long the threads that watch an id (for DISCONNECTED, for connection requests) wait for its next
     * event: until the id is destroyed, which wakes them ({@code CmId.close}). No timed re-check, so a
     * connection costs its process no wake-up while nothing happens on it.
     */
    private static final Duration UNTIL_DESTROYED = Duration.ofNanos(Long.MAX_VALUE);
    private static final AtomicInteger QP_HANDLES = new AtomicInteger();
    private static final AtomicInteger THREADS = new AtomicInteger();

    private PanamaCm() {
    }

    // ---- events ----

    private static void post(RdmaCmId id, CmEventType type, int status, RdmaCmId listenId, byte[] privateData) {
        try {
            RdmaCmEvent event = new RdmaCmEvent(type.code(), listenId, id);
            event.status = status;
            if (privateData != null && privateData.length > 0) {
                MemorySegment copy = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_BYTE, privateData);
                event.privateData = copy;
                event.conn.private_data_addr = copy.address();
                event.conn.private_data_len = (byte) privateData.length;
            }
            id.cmChannel.events.add(event);
        } catch (IOException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /**
     * Hands the id's next event to the DiSNI channel as it came from the kernel; after ESTABLISHED goes on to
     * report DISCONNECTED. Ends without posting when the id is destroyed first.
     */
    private static void forwardOutcome(RdmaCmId id) {
        CmEvent event;
        try {
            event = id.pv.awaitEvent(UNTIL_DESTROYED);
        } catch (RuntimeException destroyed) {
            return; // the id was destroyed while waiting: nobody waits for its events
        }
        if (event == null || id.pv.isClosed()) {
            return;
        }
        post(id, event.type(), event.status(), null, event.privateData());
        if (event.type() == CmEventType.ESTABLISHED) {
            watchDisconnect(id);
        }
    }

    /** The failure event a refused listening id stands for. */
    private static void postFailure(RdmaCmId id, CmException e) {
        if (!id.pv.isClosed()) {
            post(id, e.event() != null ? e.event() : CmEventType.CONNECT_ERROR, e.status(), null, e.privateData());
        }
    }

    private static void async(String what, Runnable task) {
        Thread.ofVirtual().name("disni-cm-" + what + "-" + THREADS.incrementAndGet()).start(task);
    }

    /** After ESTABLISHED: reports DISCONNECTED when it arrives; ends when the id is destroyed. */
    private static void watchDisconnect(RdmaCmId id) {
        try {
            while (!id.pv.isClosed()) {
                if (id.pv.awaitDisconnected(UNTIL_DESTROYED)) {
                    if (!id.pv.isClosed()) {
                        post(id, CmEventType.DISCONNECTED, 0, null, null);
                    }
                    return;
                }
            }
        } catch (RuntimeException closed) {
            // the id was destroyed while waiting
        }
    }

    private static InetSocketAddress inet(SocketAddress address, String call) throws IOException {
        if (address instanceof InetSocketAddress inet) {
            return inet;
        }
        throw new IOException(call + ": " + address + " is not an InetSocketAddress");
    }

    private static ConnectionParameters parameters(RdmaConnParam p, String call) throws IOException {
        byte[] data = new byte[0];
        int length = Byte.toUnsignedInt(p.getPrivate_data_len());
        if (length > 0) {
            if (p.getPrivate_data() == 0) {
                throw new IOException(call + ": private data of " + length + " bytes at address 0");
            }
            // inside a region registered through this module: read through it; else a trusted address, copied by the kernel
            data = KnownMemory.copy(p.getPrivate_data(), length, call + ": private data");
        }
        int responder = Byte.toUnsignedInt(p.getResponder_resources());
        int initiator = Byte.toUnsignedInt(p.getInitiator_depth());
        try {
            // 0 asks for the device's maximum, as DiSNI always used max_qp_rd_atom; Panama Verbs caps at the device's
            return new ConnectionParameters(data, responder == 0 ? 255 : responder, initiator == 0 ? 255 : initiator,
                    Math.min(7, Byte.toUnsignedInt(p.getRetry_count())),
                    Math.min(7, Byte.toUnsignedInt(p.getRnr_retry_count())));
        } catch (IllegalArgumentException e) {
            throw new IOException("connection parameters refused: " + e.getMessage(), e);
        }
    }

    // ---- RdmaCm ----

    @Override
    public RdmaEventChannel createEventChannel() throws IOException {
        try {
            return new RdmaEventChannel(CmEventChannel.create());
        } catch (RuntimeException e) {
            throw Failures.io("rdma_create_event_channel", e);
        }
    }

    @Override
    public RdmaCmId createId(RdmaEventChannel cmChannel, short rdma_ps) throws IOException {
        if (rdma_ps != RDMA_PS_TCP) {
            throw new IOException("rdma_create_id: port space 0x" + Integer.toHexString(rdma_ps) + " is not offered;"
                    + " only RDMA_PS_TCP (DiSNI 2.1 used RDMA_PS_TCP whatever was asked)");
        }
        try {
            return new RdmaCmId(cmChannel, CmId.create(cmChannel.panama(), PortSpace.TCP));
        } catch (RuntimeException e) {
            throw Failures.io("rdma_create_id", e);
        }
    }

    @Override
    public IbvQP createQP(RdmaCmId idPriv, IbvPd pd, IbvQPInitAttr attr) throws IOException {
        CmId id = idPriv.panama();
        if (attr.getQp_type() != IbvQP.IBV_QPT_RC) {
            throw new IOException("rdma_create_qp: qp_type " + attr.getQp_type() + " is not offered; only"
                    + " IbvQP.IBV_QPT_RC on RDMA_PS_TCP ids");
        }
        if (attr.getSrq() != 0) {
            throw new IOException("rdma_create_qp: shared receive queues cannot be named through DiSNI's API");
        }
        IbvCQ send = attr.getSend_cq();
        IbvCQ recv = attr.getRecv_cq();
        if (send == null || recv == null) {
            throw new IOException("rdma_create_qp: both send_cq and recv_cq must be set");
        }
        IbvQPCap cap = attr.cap();
        try {
            CompletionQueue sendCq = send.pv;
            QpConfig config = QpConfig.builder(sendCq, recv.pv).type(QpType.RC).maxSendWr(cap.getMax_send_wr())
                    .maxRecvWr(cap.getMax_recv_wr()).maxSendSge(cap.getMax_send_sge()).maxRecvSge(cap.getMax_recv_sge())
                    .maxInlineData(cap.getMax_inline_data()).signalAll(attr.getSq_sig_all() != 0).build();
            QueuePair qp = id.createQueuePair(pd.pv, config);
            IbvQP wrapped = new IbvQP(qp, pd, send, recv, QP_HANDLES.incrementAndGet());
            idPriv.qpObj = wrapped;
            return wrapped;
        } catch (RuntimeException e) {
            throw Failures.io("rdma_create_qp", e);
        }
    }

    @Override
    public void bindAddr(RdmaCmId idPriv, SocketAddress addr) throws IOException {
        try {
            idPriv.panama().bind(inet(addr, "rdma_bind_addr"));
        } catch (RuntimeException e) {
            throw Failures.io("rdma_bind_addr", e);
        }
    }

    @Override
    public void listen(RdmaCmId idPriv, int backlog) throws IOException {
        CmId id = idPriv.panama();
        try {
            id.listen(backlog);
        } catch (RuntimeException e) {
            throw Failures.io("rdma_listen", e);
        }
        async("listen", () -> {
            while (!id.isClosed()) {
                CmEvent request;
                try {
                    request = id.awaitConnectionRequest(UNTIL_DESTROYED);
                } catch (CmException e) { // another event reached the listening id (DEVICE_REMOVAL)
                    postFailure(idPriv, e);
                    continue;
                } catch (RuntimeException closed) {
                    return;
                }
                if (request != null) {
                    RdmaCmId child = new RdmaCmId(idPriv.cmChannel, request.id());
                    post(child, CmEventType.CONNECT_REQUEST, request.status(), idPriv, request.privateData());
                }
            }
        });
    }

    @Override
    public void resolveAddr(RdmaCmId idPriv, SocketAddress src, SocketAddress dst, int timeout) throws IOException {
        CmId id = idPriv.panama();
        InetSocketAddress destination = inet(dst, "rdma_resolve_addr");
        if (src != null) {
            bindAddr(idPriv, src);
        }
        try {
            id.beginResolveAddress(destination, Duration.ofMillis(Math.max(1, timeout)));
        } catch (RuntimeException e) {
            throw Failures.io("rdma_resolve_addr", e);
        }
        async("resolve-addr", () -> forwardOutcome(idPriv));
    }

    @Override
    public void resolveRoute(RdmaCmId idPriv, int timeout) throws IOException {
        CmId id = idPriv.panama();
        try {
            id.beginResolveRoute(Duration.ofMillis(Math.max(1, timeout)));
        } catch (RuntimeException e) {
            throw Failures.io("rdma_resolve_route", e);
        }
        async("resolve-route", () -> forwardOutcome(idPriv));
    }

    @Override
    public RdmaCmEvent getCmEvent(RdmaEventChannel cmChannel, int timeout) throws IOException {
        try {
            RdmaCmEvent event = timeout < 0 ? cmChannel.events.take()
                    : cmChannel.events.poll(timeout, TimeUnit.MILLISECONDS);
            if (event == RdmaEventChannel.CLOSED) {
                cmChannel.events.add(RdmaEventChannel.CLOSED); // for the next waiter
                throw new IOException("rdma_get_cm_event: the event channel was closed");
            }
            return event;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for an rdma_cm event", e);
        }
    }

    @Override
    public void connect(RdmaCmId idPriv, RdmaConnParam connParam) throws IOException {
        CmId id = idPriv.panama();
        if (id.queuePair() == null) {
            throw new IOException("rdma_connect: create the id's queue pair first (RdmaCmId.createQP)");
        }
        ConnectionParameters parameters = parameters(connParam, "rdma_connect");
        try {
            id.beginConnect(parameters);
        } catch (RuntimeException e) {
            throw Failures.io("rdma_connect", e);
        }
        async("connect", () -> forwardOutcome(idPriv));
    }

    @Override
    public void accept(RdmaCmId idPriv, RdmaConnParam connParam) throws IOException {
        CmId id = idPriv.panama();
        ConnectionParameters parameters = parameters(connParam, "rdma_accept");
        try {
            id.accept(parameters);
        } catch (RuntimeException e) {
            throw Failures.io("rdma_accept", e);
        }
        async("accept", () -> forwardOutcome(idPriv));
    }

    @Override
    public int ackCmEvent(RdmaCmEvent cmEvent) {
        return 0;
    }

    @Override
    public int disconnect(RdmaCmId idPriv) throws IOException {
        try {
            idPriv.panama().disconnect();
            return 0;
        } catch (RuntimeException e) {
            return -1;
        }
    }

    @Override
    public int destroyEventChannel(RdmaEventChannel cmChannel) throws IOException {
        try {
            cmChannel.panama().close();
            cmChannel.close();
            return 0;
        } catch (RuntimeException e) {
            throw Failures.io("rdma_destroy_event_channel", e);
        }
    }

    @Override
    public int destroyCmId(RdmaCmId idPriv) throws IOException {
        try {
            idPriv.panama().close();
            idPriv.close();
            return 0;
        } catch (RuntimeException e) {
            throw Failures.io("rdma_destroy_id", e);
        }
    }

    @Override
    public int destroyQP(RdmaCmId idPriv) throws IOException {
        try {
            QueuePair qp = idPriv.panama().queuePair();
            if (qp != null) {
                qp.close();
            }
            if (idPriv.qpObj != null) {
                idPriv.qpObj.close();
            }
            return 0;
        } catch (RuntimeException e) {
            throw Failures.io("rdma_destroy_qp", e);
        }
    }

    @Override
    public SocketAddress getSrcAddr(RdmaCmId idPriv) throws IOException {
        try {
            return idPriv.panama().localAddress();
        } catch (RuntimeException e) { // a destroyed id: its address is gone with it
            throw Failures.io("rdma_get_local_addr", e);
        }
    }

    @Override
    public SocketAddress getDstAddr(RdmaCmId idPriv) throws IOException {
        try {
            return idPriv.panama().peerAddress();
        } catch (RuntimeException e) {
            throw Failures.io("rdma_get_peer_addr", e);
        }
    }

    @Override
    public int destroyEp(RdmaCmId idPriv) throws IOException {
        return destroyCmId(idPriv);
    }
}
