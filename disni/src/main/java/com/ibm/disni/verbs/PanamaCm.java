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
import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.cm.CmEventView;
import org.panamaverbs.cm.CmEventType;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.ConnParam;
import org.panamaverbs.cm.PortSpace;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QpType;
import org.panamaverbs.verbs.QueuePair;

/**
 * This module's {@link RdmaCm}, on Panama Verbs' {@link CmId}. As in DiSNI, the address, route and connection
 * calls return at once ({@link CmId#beginResolveAddress}, {@link CmId#beginResolveRoute},
 * {@link CmId#beginConnect}, {@link CmId#accept}) and their outcome is the event the kernel reports for the
 * id, whenever it comes. The event channel is a polled one ({@link CmEventChannel#createPolled()}):
 * {@link #getCmEvent} is {@code rdma_get_cm_event} on it, through the same read every other user of the library
 * has ({@link CmEventChannel#poll(org.panamaverbs.cm.CmEventHandler, int, Duration)}), so the events are the
 * kernel's, in its order, on the thread that asks (DiSNI's {@code RdmaCmProcessor}); no thread of this module
 * waits for them. No event is made up on the Java side: the timeout a program passes bounds the kernel's work, as
 * in DiSNI, and the endpoint layer's waits ({@code RdmaEndpoint}) bound how long a program waits for the event.
 */
final class PanamaCm extends RdmaCm {

    static final PanamaCm INSTANCE = new PanamaCm();

    /** A wait of {@code getCmEvent} with a negative timeout: until an event comes or the channel is closed. */
    private static final Duration UNTIL_EVENT = Duration.ofNanos(Long.MAX_VALUE);
    private static final AtomicInteger QP_HANDLES = new AtomicInteger();

    private PanamaCm() {
    }

    // ---- events ----

    /**
     * The DiSNI event for a Panama Verbs one, with the kernel's type, status and private data (copied: the view is
     * valid only during the handler); null for an id this channel does not know (destroyed meanwhile). A connection
     * request's new id becomes a DiSNI id of the channel here.
     */
    private static RdmaCmEvent convert(RdmaEventChannel channel, CmEventView view) {
        RdmaCmId id = view.type() == CmEventType.CONNECT_REQUEST ? new RdmaCmId(channel, view.id())
                : channel.ids.get(view.id());
        if (id == null) {
            return null;
        }
        RdmaCmId listenId = view.listenId() == null ? null : channel.ids.get(view.listenId());
        try {
            RdmaCmEvent event = new RdmaCmEvent(view.type().code(), listenId, id);
            event.status = view.status();
            int length = view.privateDataLength();
            if (length > 0) {
                byte[] data = new byte[length];
                view.copyPrivateData(data, 0);
                MemorySegment copy = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_BYTE, data);
                event.privateData = copy;
                event.conn.private_data_addr = copy.address();
                event.conn.private_data_len = (byte) length;
            }
            return event;
        } catch (IOException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    private static InetSocketAddress inet(SocketAddress address, String call) throws IOException {
        if (address instanceof InetSocketAddress inet) {
            return inet;
        }
        throw new IOException(call + ": " + address + " is not an InetSocketAddress");
    }

    private static ConnParam parameters(RdmaConnParam p, String call) throws IOException {
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
            return new ConnParam(data, responder == 0 ? 255 : responder, initiator == 0 ? 255 : initiator,
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
            return new RdmaEventChannel(CmEventChannel.createPolled());
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
            QpConfig config = QpConfig.builder(sendCq, recv.pv).type(QpType.RC)
                    .capabilities(QpCapabilities.of(cap.getMax_send_wr(), cap.getMax_recv_wr())
                            .withMaxSendSge(cap.getMax_send_sge())
                            .withMaxRecvSge(cap.getMax_recv_sge())
                            .withMaxInlineData(cap.getMax_inline_data()))
                    .signalAll(attr.getSq_sig_all() != 0).build();
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
    }

    @Override
    public void resolveRoute(RdmaCmId idPriv, int timeout) throws IOException {
        CmId id = idPriv.panama();
        try {
            id.beginResolveRoute(Duration.ofMillis(Math.max(1, timeout)));
        } catch (RuntimeException e) {
            throw Failures.io("rdma_resolve_route", e);
        }
    }

    @Override
    public RdmaCmEvent getCmEvent(RdmaEventChannel cmChannel, int timeout) throws IOException {
        CmEventChannel channel = cmChannel.panama();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeout));
        RdmaCmEvent[] taken = new RdmaCmEvent[1];
        while (true) {
            if (!cmChannel.isOpen()) {
                throw new IOException("rdma_get_cm_event: the event channel was closed");
            }
            Duration wait = timeout < 0 ? UNTIL_EVENT : Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            try {
                channel.poll(view -> taken[0] = convert(cmChannel, view), 1, wait);
            } catch (IllegalStateException closed) {
                throw new IOException("rdma_get_cm_event: the event channel was closed", closed);
            } catch (RuntimeException e) {
                throw Failures.io("rdma_get_cm_event", e);
            }
            if (taken[0] != null) {
                return taken[0];
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new IOException("interrupted while waiting for an rdma_cm event");
            }
            if (!cmChannel.isOpen()) {
                throw new IOException("rdma_get_cm_event: the event channel was closed");
            }
            if (timeout >= 0 && deadline - System.nanoTime() <= 0) {
                return null;
            }
            // an event of an id destroyed meanwhile, or a wake-up: wait for the rest of the time
        }
    }

    @Override
    public void connect(RdmaCmId idPriv, RdmaConnParam connParam) throws IOException {
        CmId id = idPriv.panama();
        if (id.queuePair() == null) {
            throw new IOException("rdma_connect: create the id's queue pair first (RdmaCmId.createQP)");
        }
        ConnParam parameters = parameters(connParam, "rdma_connect");
        try {
            id.beginConnect(parameters);
        } catch (RuntimeException e) {
            throw Failures.io("rdma_connect", e);
        }
    }

    @Override
    public void accept(RdmaCmId idPriv, RdmaConnParam connParam) throws IOException {
        CmId id = idPriv.panama();
        ConnParam parameters = parameters(connParam, "rdma_accept");
        try {
            id.accept(parameters);
        } catch (RuntimeException e) {
            throw Failures.io("rdma_accept", e);
        }
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
            idPriv.cmChannel.ids.remove(idPriv.pv);
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
