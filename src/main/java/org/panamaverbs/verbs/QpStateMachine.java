package org.panamaverbs.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

import org.panamaverbs.ffi.ibv_ah_attr;
import org.panamaverbs.ffi.ibv_global_route;
import org.panamaverbs.ffi.ibv_qp_attr;
import org.panamaverbs.ffi.ibv_qp_cap;
import org.panamaverbs.ffi.ibv_qp_init_attr;
import org.panamaverbs.ffi.ibverbs_h;
import org.panamaverbs.internal.ControlEvents;

/**
 * The queue pair state machine: every {@code ibv_modify_qp} and {@code ibv_query_qp} of a {@link QueuePair},
 * with the attribute masks C requires for each transition (RESET → INIT → RTR → RTS for RC; the same
 * with a Q_Key for UD; SQD, ERR, RESET). Failures throw {@link VerbsException} naming the transition.
 */
final class QpStateMachine {
    private QpStateMachine() {
    }

    /** RESET → INIT with the configured P_Key index and port, plus what RC (access flags) or UD (qkey) adds. */
    static void toInit(QueuePair qp, int extraMask, Consumer<MemorySegment> extra, String transition) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            ibv_qp_attr.qp_state(attr, QpState.INIT.code());
            ibv_qp_attr.pkey_index(attr, (short) qp.config().pkeyIndex());
            ibv_qp_attr.port_num(attr, (byte) qp.config().port());
            extra.accept(attr);
            modify(qp, attr, ibverbs_h.IBV_QP_STATE() | ibverbs_h.IBV_QP_PKEY_INDEX() | ibverbs_h.IBV_QP_PORT()
                    | extraMask, transition);
        }
    }

    /** INIT → RTR towards {@code remote}, with a GRH (always on RoCE) from the queue pair's GID index. */
    static void toRtr(QueuePair qp, QpEndpoint remote, QpConnectOptions options) {
        Context context = qp.protectionDomain().context();
        int port = qp.config().port();
        PortAttributes portAttributes = context.queryPort(port);
        Mtu mtu = options.pathMtu() == null ? portAttributes.activeMtu() : Mtu.min(options.pathMtu(), portAttributes.activeMtu());
        if (mtu == Mtu.UNKNOWN) {
            // Its code (-1) would reach the kernel as a path MTU; name the way out instead.
            throw new IllegalStateException("port " + port + " reports an active MTU this library does not"
                    + " know: choose one with QpConnectOptions.builder().pathMtu(...)");
        }
        int destReadAtomic = options.maxDestReadAtomic() != null ? options.maxDestReadAtomic()
                : Math.min(16, context.attributes().maxQpRdAtom());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            ibv_qp_attr.qp_state(attr, QpState.RTR.code());
            ibv_qp_attr.path_mtu(attr, mtu.code());
            ibv_qp_attr.dest_qp_num(attr, remote.qpNumber());
            ibv_qp_attr.rq_psn(attr, remote.psn());
            ibv_qp_attr.max_dest_rd_atomic(attr, (byte) destReadAtomic);
            ibv_qp_attr.min_rnr_timer(attr, (byte) options.minRnrTimer());
            MemorySegment ah = ibv_qp_attr.ah_attr(attr);
            ibv_ah_attr.dlid(ah, (short) remote.lid());
            ibv_ah_attr.sl(ah, (byte) options.serviceLevel());
            ibv_ah_attr.port_num(ah, (byte) port);
            boolean global = portAttributes.linkLayer() == LinkLayer.ETHERNET || !remote.gid().isZero();
            if (global) {
                ibv_ah_attr.is_global(ah, (byte) 1);
                MemorySegment grh = ibv_ah_attr.grh(ah);
                remote.gid().write(grh, ibv_global_route.dgid$offset());
                ibv_global_route.sgid_index(grh, (byte) qp.gidIndex());
                ibv_global_route.hop_limit(grh, (byte) options.hopLimit());
                ibv_global_route.traffic_class(grh, (byte) options.trafficClass());
                ibv_global_route.flow_label(grh, options.flowLabel());
            }
            modify(qp, attr, ibverbs_h.IBV_QP_STATE() | ibverbs_h.IBV_QP_AV() | ibverbs_h.IBV_QP_PATH_MTU()
                    | ibverbs_h.IBV_QP_DEST_QPN() | ibverbs_h.IBV_QP_RQ_PSN() | ibverbs_h.IBV_QP_MAX_DEST_RD_ATOMIC()
                    | ibverbs_h.IBV_QP_MIN_RNR_TIMER(), "INIT→RTR towards QPN 0x" + Integer.toHexString(remote.qpNumber())
                    + " GID " + remote.gid() + " (source GID index " + qp.gidIndex() + ", path MTU " + mtu.bytes()
                    + "; check the peer's QPN and GID and that the GID index exists on this port)");
        }
    }

    /** RTR → RTS with the queue pair's PSN. */
    static void toRts(QueuePair qp, QpConnectOptions options) {
        int readAtomic = options.maxReadAtomic() != null ? options.maxReadAtomic()
                : Math.min(16, qp.protectionDomain().context().attributes().maxQpInitRdAtom());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            ibv_qp_attr.qp_state(attr, QpState.RTS.code());
            ibv_qp_attr.timeout(attr, (byte) options.timeout());
            ibv_qp_attr.retry_cnt(attr, (byte) options.retryCount());
            ibv_qp_attr.rnr_retry(attr, (byte) options.rnrRetry());
            ibv_qp_attr.sq_psn(attr, qp.psn());
            ibv_qp_attr.max_rd_atomic(attr, (byte) readAtomic);
            modify(qp, attr, ibverbs_h.IBV_QP_STATE() | ibverbs_h.IBV_QP_TIMEOUT() | ibverbs_h.IBV_QP_RETRY_CNT()
                    | ibverbs_h.IBV_QP_RNR_RETRY() | ibverbs_h.IBV_QP_SQ_PSN() | ibverbs_h.IBV_QP_MAX_QP_RD_ATOMIC(),
                    "RTR→RTS");
        }
    }

    /** UD: RESET → INIT (qkey) → RTR → RTS (PSN). */
    static void toDatagramReady(QueuePair qp, int qkey) {
        toInit(qp, ibverbs_h.IBV_QP_QKEY(), attr -> ibv_qp_attr.qkey(attr, qkey),
                "RESET→INIT (UD, qkey 0x" + Integer.toHexString(qkey) + ")");
        toState(qp, QpState.RTR, "INIT→RTR (UD)");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            ibv_qp_attr.qp_state(attr, QpState.RTS.code());
            ibv_qp_attr.sq_psn(attr, qp.psn());
            modify(qp, attr, ibverbs_h.IBV_QP_STATE() | ibverbs_h.IBV_QP_SQ_PSN(), "RTR→RTS (UD)");
        }
    }

    /** RTS → SQD with {@code en_sqd_async_notify}. */
    static void toSendQueueDrained(QueuePair qp) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            ibv_qp_attr.qp_state(attr, QpState.SQD.code());
            ibv_qp_attr.en_sqd_async_notify(attr, (byte) 1);
            modify(qp, attr, ibverbs_h.IBV_QP_STATE() | ibverbs_h.IBV_QP_EN_SQD_ASYNC_NOTIFY(), "RTS→SQD");
        }
    }

    /** A transition that sets the state alone (ERR, RESET, UD's RTR). */
    static void toState(QueuePair qp, QpState target, String transition) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            ibv_qp_attr.qp_state(attr, target.code());
            modify(qp, attr, ibverbs_h.IBV_QP_STATE(), transition);
        }
    }

    private static void modify(QueuePair qp, MemorySegment attr, int mask, String transition) {
        synchronized (qp.treeLock()) {
            qp.ensureOpen();
            // the state before, for the JFR event only: one ibv_query_qp, asked only while a recording wants it
            String from = ControlEvents.isRecording(ControlEvents.Kind.QUEUE_PAIR_TRANSITION) ? stateForEvent(qp) : null;
            Object event = ControlEvents.begin(ControlEvents.Kind.QUEUE_PAIR_TRANSITION);
            int rc = ibverbs_h.ibv_modify_qp(qp.handleUnchecked(), attr, mask);
            ControlEvents.queuePairTransitioned(event, qp.deviceName(), qp, qp.qpNumber(), from,
                    QpState.of(ibv_qp_attr.qp_state(attr)).name(), transition, rc == 0);
            if (rc != 0) {
                throw new VerbsException("ibv_modify_qp", rc, qp + " " + transition);
            }
        }
    }

    /** The state's name, or why it is unknown: an event must never make the transition fail. */
    private static String stateForEvent(QueuePair qp) {
        try {
            return state(qp).name();
        } catch (RuntimeException e) {
            return "UNKNOWN (" + e.getMessage() + ")";
        }
    }

    /** {@code ibv_query_qp} of the state alone. */
    static QpState state(QueuePair qp) {
        try (Arena arena = Arena.ofConfined()) {
            return QpState.of(ibv_qp_attr.qp_state(query(qp, arena, ibverbs_h.IBV_QP_STATE())));
        }
    }

    /** {@code ibv_query_qp} of every attribute this library sets. */
    static QpAttributes attributes(QueuePair qp) {
        int mask = ibverbs_h.IBV_QP_STATE() | ibverbs_h.IBV_QP_PATH_MTU() | ibverbs_h.IBV_QP_ACCESS_FLAGS()
                | ibverbs_h.IBV_QP_DEST_QPN() | ibverbs_h.IBV_QP_RQ_PSN() | ibverbs_h.IBV_QP_SQ_PSN()
                | ibverbs_h.IBV_QP_PORT() | ibverbs_h.IBV_QP_PKEY_INDEX() | ibverbs_h.IBV_QP_MIN_RNR_TIMER()
                | ibverbs_h.IBV_QP_TIMEOUT() | ibverbs_h.IBV_QP_RETRY_CNT() | ibverbs_h.IBV_QP_RNR_RETRY()
                | ibverbs_h.IBV_QP_MAX_QP_RD_ATOMIC() | ibverbs_h.IBV_QP_MAX_DEST_RD_ATOMIC() | ibverbs_h.IBV_QP_CAP()
                | ibverbs_h.IBV_QP_AV();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = query(qp, arena, mask);
            int mtu = ibv_qp_attr.path_mtu(attr);
            MemorySegment ah = ibv_qp_attr.ah_attr(attr);
            MemorySegment grh = ibv_ah_attr.grh(ah);
            return new QpAttributes(QpState.of(ibv_qp_attr.qp_state(attr)), mtu == 0 ? null : Mtu.of(mtu),
                    ibv_qp_attr.qp_access_flags(attr), ibv_qp_attr.dest_qp_num(attr), ibv_qp_attr.rq_psn(attr),
                    ibv_qp_attr.sq_psn(attr), Byte.toUnsignedInt(ibv_qp_attr.port_num(attr)),
                    Short.toUnsignedInt(ibv_qp_attr.pkey_index(attr)), Byte.toUnsignedInt(ibv_qp_attr.min_rnr_timer(attr)),
                    Byte.toUnsignedInt(ibv_qp_attr.timeout(attr)), Byte.toUnsignedInt(ibv_qp_attr.retry_cnt(attr)),
                    Byte.toUnsignedInt(ibv_qp_attr.rnr_retry(attr)), Byte.toUnsignedInt(ibv_qp_attr.max_rd_atomic(attr)),
                    Byte.toUnsignedInt(ibv_qp_attr.max_dest_rd_atomic(attr)), capabilities(ibv_qp_attr.cap(attr)),
                    Byte.toUnsignedInt(ibv_ah_attr.sl(ah)), Byte.toUnsignedInt(ibv_global_route.hop_limit(grh)),
                    Byte.toUnsignedInt(ibv_global_route.traffic_class(grh)), ibv_global_route.flow_label(grh));
        }
    }

    /** A {@code struct ibv_qp_cap} as a record. */
    static QpCapabilities capabilities(MemorySegment cap) {
        return new QpCapabilities(ibv_qp_cap.max_send_wr(cap), ibv_qp_cap.max_recv_wr(cap),
                ibv_qp_cap.max_send_sge(cap), ibv_qp_cap.max_recv_sge(cap), ibv_qp_cap.max_inline_data(cap));
    }

    private static MemorySegment query(QueuePair qp, Arena arena, int mask) {
        MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
        MemorySegment init = arena.allocate(ibv_qp_init_attr.layout());
        int rc;
        synchronized (qp.treeLock()) { // the close frees the queue pair under it
            qp.ensureOpen();
            rc = ibverbs_h.ibv_query_qp(qp.handleUnchecked(), attr, mask, init);
        }
        if (rc != 0) {
            throw new VerbsException("ibv_query_qp", rc, qp.toString());
        }
        return attr;
    }
}
