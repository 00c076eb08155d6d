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
import org.panamaverbs.verbs.VerbsException;

/**
 * This module's {@link RdmaCm}, on Panama Verbs' {@link CmId}. Panama Verbs' address, route and connection
 * calls wait for their outcome; DiSNI's return at once and report through the channel's event queue. So each
 * such call runs Panama Verbs' waiting call on a virtual thread and turns its outcome into the DiSNI event
 * (a {@link CmException} names the failure event and status); a listening id's virtual thread turns
 * connection requests into {@code CONNECT_REQUEST} events, and an established id's waits for
 * {@code DISCONNECTED}. Every wait is bounded, and every thread ends when its id is destroyed.
 */
final class PanamaCm extends RdmaCm {

    static final PanamaCm INSTANCE = new PanamaCm();

    /** How long a connect or accept waits for ESTABLISHED before it reports CONNECT_ERROR (ETIMEDOUT). */
    private static final Duration ESTABLISH_TIMEOUT = Duration.ofSeconds(120);
    /**
     * How long the threads that watch an id (for DISCONNECTED, for connection requests) wait for its next
     * event: until the id is destroyed, which wakes them ({@code CmId.close}). No timed re-check, so a
     * connection costs its process no wake-up while nothing happens on it.
     */
    private static final Duration UNTIL_DESTROYED = Duration.ofNanos(Long.MAX_VALUE);
    private static final int ETIMEDOUT = 110;
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

    /** The failure event an exception of a waiting call stands for. */
    private static void postFailure(RdmaCmId id, RuntimeException e, CmEventType otherwise) {
        if (id.pv.isClosed()) {
            return; // destroyed meanwhile: nobody waits for this id's events
        }
        if (e instanceof CmException cm && cm.event() != null) {
            post(id, cm.event(), cm.status(), null, cm.privateData());
        } else if (e instanceof CmException cm && cm.timedOut()) {
            post(id, otherwise, -ETIMEDOUT, null, null);
        } else if (e instanceof VerbsException v) {
            post(id, otherwise, -v.errno(), null, null);
        } else {
            post(id, otherwise, -1, null, null);
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

    private static ConnectionParameters parameters(RdmaConnParam p) throws IOException {
        byte[] data = new byte[0];
        int length = Byte.toUnsignedInt(p.getPrivate_data_len());
        if (length > 0) {
            if (p.getPrivate_data() == 0) {
                throw new IOException("private data of " + length + " bytes at address 0");
            }
            data = MemorySegment.ofAddress(p.getPrivate_data()).reinterpret(length).toArray(ValueLayout.JAVA_BYTE);
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
                } catch (CmException e) {
                    postFailure(idPriv, e, CmEventType.CONNECT_ERROR);
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
        Duration wait = Duration.ofMillis(Math.max(1, timeout));
        async("resolve-addr", () -> {
            try {
                id.resolveAddress(destination, wait);
                post(idPriv, CmEventType.ADDR_RESOLVED, 0, null, null);
            } catch (RuntimeException e) {
                postFailure(idPriv, e, CmEventType.ADDR_ERROR);
            }
        });
    }

    @Override
    public void resolveRoute(RdmaCmId idPriv, int timeout) throws IOException {
        CmId id = idPriv.panama();
        Duration wait = Duration.ofMillis(Math.max(1, timeout));
        async("resolve-route", () -> {
            try {
                id.resolveRoute(wait);
                post(idPriv, CmEventType.ROUTE_RESOLVED, 0, null, null);
            } catch (RuntimeException e) {
                postFailure(idPriv, e, CmEventType.ROUTE_ERROR);
            }
        });
    }

    @Override
    public RdmaCmEvent getCmEvent(RdmaEventChannel cmChannel, int timeout) throws IOException {
        try {
            return timeout < 0 ? cmChannel.events.take() : cmChannel.events.poll(timeout, TimeUnit.MILLISECONDS);
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
        ConnectionParameters parameters = parameters(connParam);
        async("connect", () -> {
            try {
                CmEvent established = id.connect(parameters, ESTABLISH_TIMEOUT);
                post(idPriv, CmEventType.ESTABLISHED, established.status(), null, established.privateData());
            } catch (RuntimeException e) {
                postFailure(idPriv, e, CmEventType.CONNECT_ERROR);
                return;
            }
            watchDisconnect(idPriv);
        });
    }

    @Override
    public void accept(RdmaCmId idPriv, RdmaConnParam connParam) throws IOException {
        CmId id = idPriv.panama();
        ConnectionParameters parameters = parameters(connParam);
        try {
            id.accept(parameters);
        } catch (RuntimeException e) {
            throw Failures.io("rdma_accept", e);
        }
        async("accept", () -> {
            try {
                CmEvent established = id.awaitEstablished(ESTABLISH_TIMEOUT);
                post(idPriv, CmEventType.ESTABLISHED, established.status(), null, established.privateData());
            } catch (RuntimeException e) {
                postFailure(idPriv, e, CmEventType.CONNECT_ERROR);
                return;
            }
            watchDisconnect(idPriv);
        });
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
