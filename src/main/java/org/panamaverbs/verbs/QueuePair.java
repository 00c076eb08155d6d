package org.panamaverbs.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.security.SecureRandom;
import java.util.Objects;

import org.panamaverbs.ffi.ibv_ah_attr;
import org.panamaverbs.ffi.ibv_global_route;
import org.panamaverbs.ffi.ibv_qp;
import org.panamaverbs.ffi.ibv_qp_attr;
import org.panamaverbs.ffi.ibv_qp_cap;
import org.panamaverbs.ffi.ibv_qp_init_attr;
import org.panamaverbs.ffi.ibverbs_h;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.Unchecked;

/**
 * {@code struct ibv_qp}: a reliable-connected (RC) queue pair from {@code ibv_create_qp}, destroyed with
 * {@code ibv_destroy_qp}; it depends on its protection domain and both completion queues, and is closed
 * before any of them.
 *
 * <p>Control path: {@link #connect(Endpoint)} walks RESET → INIT → RTR → RTS with {@code ibv_modify_qp}
 * and the defaults of {@link ConnectOptions} (perftest's: timeout 14, retry 7, RNR retry 7, min RNR timer
 * 12, the port's active MTU); {@link #connectLoopback} connects two local queue pairs; {@link #state()}
 * is {@code ibv_query_qp}. Failures throw {@link VerbsException} naming the verb, the errno and the
 * transition.
 *
 * <p>Data path: {@link #postSend} and {@link #postRecv} are {@code ibv_post_send} / {@code ibv_post_recv},
 * which verbs.h defines inline; they call the provider's function pointers directly, allocate nothing,
 * and return 0 or the provider's errno value (the refused request is
 * {@link WorkRequestChain#failedIndex()}). The memory the requests name must stay registered until their
 * completions are polled.
 */
public final class QueuePair extends VerbsResource {
    private static final SecureRandom PSN_SOURCE = new SecureRandom();
    private static final int ACCESS_DEFAULT = Access.bits(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);

    private final ProtectionDomain pd;
    private final Context context;
    private final MemorySegment handle;
    private final MemorySegment postSendFunction;
    private final MemorySegment postRecvFunction;
    private final Config config;
    private final Capabilities capabilities;
    private final int qpNumber;
    private final int psn;
    private final int gidIndex;
    /** Whether the device mis-carries opcodes other than SEND (QEMU's PVRDMA model): then every post is checked. */
    private final boolean checkOpcodes;
    /** Whether every post needs {@link #checkSpecialRequests} (UD, or opcodes checked); else only special chains. */
    private final boolean checkEveryPost;
    /** The largest UD message: the port's active MTU, read when the queue pair became ready; 0 before. */
    private volatile int datagramLimit;

    private static final class Native {
        static final MethodHandle CREATE_QP = CallState.capturingErrno(
                ibverbs_h.ibv_create_qp$address(), ibverbs_h.ibv_create_qp$descriptor());
    }

    /**
     * What to create: type, completion queues and capacities. Build with {@link #builder}.
     *
     * @param type          only {@link QpType#RC} in this version
     * @param sendCq        completion queue for send-side completions
     * @param recvCq        completion queue for receive completions (may be the same)
     * @param maxSendWr     outstanding send requests (default 128, perftest's tx depth)
     * @param maxRecvWr     outstanding receive requests (default 512, perftest's rx depth)
     * @param maxSendSge    scatter-gather entries per send request (default 1)
     * @param maxRecvSge    scatter-gather entries per receive request (default 1)
     * @param maxInlineData inline payload bytes (default 0)
     * @param signalAll     {@code sq_sig_all}: every send request completes with a completion
     * @param port          the port (default 1)
     * @param gidIndex      the source GID index, or -1 for {@link Context#defaultGidIndex(int)}
     * @param srq           the shared receive queue to draw receives from, or null for the queue pair's own
     */
    public record Config(QpType type, CompletionQueue sendCq, CompletionQueue recvCq, int maxSendWr, int maxRecvWr,
            int maxSendSge, int maxRecvSge, int maxInlineData, boolean signalAll, int port, int gidIndex,
            SharedReceiveQueue srq) {
        public Config {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(sendCq, "sendCq");
            Objects.requireNonNull(recvCq, "recvCq");
        }

        /** A builder with perftest's defaults, for a queue pair using {@code cq} for both directions. */
        public static Builder builder(CompletionQueue cq) {
            return new Builder(cq, cq);
        }

        /** A builder with perftest's defaults and separate completion queues. */
        public static Builder builder(CompletionQueue sendCq, CompletionQueue recvCq) {
            return new Builder(sendCq, recvCq);
        }
    }

    /** Builds a {@link Config}; every setter has the default named on {@link Config}. */
    public static final class Builder {
        private QpType type = QpType.RC;
        private final CompletionQueue sendCq;
        private final CompletionQueue recvCq;
        private int maxSendWr = 128;
        private int maxRecvWr = 512;
        private int maxSendSge = 1;
        private int maxRecvSge = 1;
        private int maxInlineData;
        private boolean signalAll;
        private int port = 1;
        private int gidIndex = -1;
        private SharedReceiveQueue srq;

        private Builder(CompletionQueue sendCq, CompletionQueue recvCq) {
            this.sendCq = sendCq;
            this.recvCq = recvCq;
        }

        public Builder type(QpType value) {
            type = value;
            return this;
        }

        public Builder maxSendWr(int value) {
            maxSendWr = value;
            return this;
        }

        public Builder maxRecvWr(int value) {
            maxRecvWr = value;
            return this;
        }

        public Builder maxSendSge(int value) {
            maxSendSge = value;
            return this;
        }

        public Builder maxRecvSge(int value) {
            maxRecvSge = value;
            return this;
        }

        public Builder maxInlineData(int value) {
            maxInlineData = value;
            return this;
        }

        public Builder signalAll(boolean value) {
            signalAll = value;
            return this;
        }

        public Builder port(int value) {
            port = value;
            return this;
        }

        public Builder gidIndex(int value) {
            gidIndex = value;
            return this;
        }

        /** Receives come from {@code value}, shared with other queue pairs; {@link QueuePair#postRecv} is refused. */
        public Builder srq(SharedReceiveQueue value) {
            srq = value;
            return this;
        }

        public Config build() {
            return new Config(type, sendCq, recvCq, maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData,
                    signalAll, port, gidIndex, srq);
        }
    }

    /**
     * The capacities the device granted ({@code ibv_qp_init_attr.cap} after {@code ibv_create_qp}), which
     * may exceed what was asked.
     */
    public record Capabilities(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
    }

    /**
     * What a peer needs to connect to a queue pair, as perftest exchanges it.
     *
     * @param qpNumber the queue pair number (24 bits)
     * @param psn      the initial packet sequence number (24 bits)
     * @param lid      the port LID (InfiniBand; 0 on RoCE)
     * @param gid      the source GID
     */
    public record Endpoint(int qpNumber, int psn, int lid, Gid gid) {
    }

    /**
     * How to connect: RTR and RTS attributes. {@link #defaults()} are perftest's.
     *
     * @param pathMtu          path MTU, or null for the port's active MTU; not {@link Mtu#UNKNOWN}
     * @param access           {@code qp_access_flags} (C bits) for INIT, or -1 (the default) for local write,
     *                         remote write and read, plus remote atomic when the device supports atomics
     * @param minRnrTimer      RTR {@code min_rnr_timer} (12)
     * @param timeout          RTS {@code timeout} (14: 4.096 µs × 2^14 ≈ 67 ms)
     * @param retryCount       RTS {@code retry_cnt} (7)
     * @param rnrRetry         RTS {@code rnr_retry} (7 = retry forever)
     * @param maxReadAtomic    outstanding RDMA READs this side initiates (RTS {@code max_rd_atomic}),
     *                         -1 for the device's {@code max_qp_init_rd_atom} capped at 16
     * @param maxDestReadAtomic RDMA READs this side answers at once (RTR {@code max_dest_rd_atomic}),
     *                         -1 for the device's {@code max_qp_rd_atom} capped at 16
     * @param hopLimit         GRH hop limit (255)
     * @param trafficClass     GRH traffic class (0)
     * @param serviceLevel     service level (0)
     */
    public record ConnectOptions(Mtu pathMtu, int access, int minRnrTimer, int timeout, int retryCount, int rnrRetry,
            int maxReadAtomic, int maxDestReadAtomic, int hopLimit, int trafficClass, int serviceLevel) {
        /** @throws IllegalArgumentException if {@code pathMtu} is {@link Mtu#UNKNOWN}, which has no C value to send */
        public ConnectOptions {
            if (pathMtu == Mtu.UNKNOWN) {
                throw new IllegalArgumentException("Mtu.UNKNOWN is not a path MTU: pass MTU_256 to MTU_4096,"
                        + " or null for the port's active MTU");
            }
        }

        /** perftest's defaults. */
        public static ConnectOptions defaults() {
            return new ConnectOptions(null, -1, 12, 14, 7, 7, -1, -1, 255, 0, 0);
        }

        /** These options with another path MTU. */
        public ConnectOptions withPathMtu(Mtu mtu) {
            return new ConnectOptions(mtu, access, minRnrTimer, timeout, retryCount, rnrRetry, maxReadAtomic,
                    maxDestReadAtomic, hopLimit, trafficClass, serviceLevel);
        }

        /** These options with other INIT access flags (C bits, see {@link Access#bits}). */
        public ConnectOptions withAccess(int accessBits) {
            return new ConnectOptions(pathMtu, accessBits, minRnrTimer, timeout, retryCount, rnrRetry, maxReadAtomic,
                    maxDestReadAtomic, hopLimit, trafficClass, serviceLevel);
        }

        /** These options with other RTS timeout and retry counts. */
        public ConnectOptions withRetries(int newTimeout, int newRetryCount, int newRnrRetry) {
            return new ConnectOptions(pathMtu, access, minRnrTimer, newTimeout, newRetryCount, newRnrRetry,
                    maxReadAtomic, maxDestReadAtomic, hopLimit, trafficClass, serviceLevel);
        }
    }

    private QueuePair(ProtectionDomain pd, MemorySegment handle, Config config, Capabilities capabilities, int gidIndex) {
        super(pd.treeLock(), owners(pd, config));
        this.pd = pd;
        this.context = pd.context();
        this.handle = scoped(handle);
        this.postSendFunction = context.postSendFunction;
        this.postRecvFunction = context.postRecvFunction;
        this.config = config;
        this.capabilities = capabilities;
        this.qpNumber = ibv_qp.qp_num(handle);
        this.psn = PSN_SOURCE.nextInt() & 0xffffff;
        this.gidIndex = gidIndex;
        this.checkOpcodes = context.profile().checksOpcodes();
        this.checkEveryPost = config.type() == QpType.UD || checkOpcodes;
    }

    private static VerbsResource[] owners(ProtectionDomain pd, Config config) {
        java.util.List<VerbsResource> owners = new java.util.ArrayList<>(java.util.List.of(pd, config.sendCq()));
        if (config.recvCq() != config.sendCq()) {
            owners.add(config.recvCq());
        }
        if (config.srq() != null) {
            owners.add(config.srq());
        }
        return owners.toArray(VerbsResource[]::new);
    }

    static QueuePair create(ProtectionDomain pd, Config config) {
        Context context = pd.context();
        context.profile().requireQueuePairType(config.type(), context.liveUdQueuePairs());
        if (config.maxInlineData() > 0) {
            context.profile().requireInline("ibv_create_qp");
        }
        if (config.type() != QpType.RC && config.type() != QpType.UD) {
            throw new UnsupportedVerbException("ibv_create_qp", "queue pair type " + config.type()
                    + " is not implemented by this version of Panama Verbs", "use QpType.RC or QpType.UD");
        }
        if (config.sendCq().context() != context || config.recvCq().context() != context) {
            throw new IllegalArgumentException("the completion queues must belong to the protection domain's context "
                    + context.name());
        }
        if (config.srq() != null && config.srq().protectionDomain().context() != context) {
            throw new IllegalArgumentException("the shared receive queue must belong to context " + context.name());
        }
        checkCapacities(context, config);
        context.checkPort(config.port());
        int gidIndex = config.gidIndex() >= 0 ? config.gidIndex() : context.defaultGidIndex(config.port());
        try (Arena arena = Arena.ofConfined(); CallState state = CallState.open()) {
            MemorySegment init = arena.allocate(ibv_qp_init_attr.layout());
            ibv_qp_init_attr.send_cq(init, config.sendCq().handle());
            ibv_qp_init_attr.recv_cq(init, config.recvCq().handle());
            ibv_qp_init_attr.qp_type(init, config.type().code());
            ibv_qp_init_attr.sq_sig_all(init, config.signalAll() ? 1 : 0);
            if (config.srq() != null) {
                ibv_qp_init_attr.srq(init, config.srq().handleUnchecked());
            }
            MemorySegment cap = ibv_qp_init_attr.cap(init);
            ibv_qp_cap.max_send_wr(cap, config.maxSendWr());
            boolean ownReceives = config.srq() == null;
            ibv_qp_cap.max_recv_wr(cap, ownReceives ? config.maxRecvWr() : 0);
            ibv_qp_cap.max_send_sge(cap, config.maxSendSge());
            ibv_qp_cap.max_recv_sge(cap, ownReceives ? config.maxRecvSge() : 0);
            ibv_qp_cap.max_inline_data(cap, config.maxInlineData());
            MemorySegment qp = (MemorySegment) Native.CREATE_QP.invokeExact(state.segment(), pd.handle(), init);
            if (qp.equals(MemorySegment.NULL)) {
                throw new VerbsException("ibv_create_qp", state.errno(), describeRequest(context, config));
            }
            Capabilities granted = new Capabilities(ibv_qp_cap.max_send_wr(cap), ibv_qp_cap.max_recv_wr(cap),
                    ibv_qp_cap.max_send_sge(cap), ibv_qp_cap.max_recv_sge(cap), ibv_qp_cap.max_inline_data(cap));
            return new QueuePair(pd, qp.reinterpret(ibv_qp.layout().byteSize()), config, granted, gidIndex);
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    private static void checkCapacities(Context context, Config config) {
        DeviceAttributes device = context.attributes();
        StringBuilder problems = new StringBuilder();
        limit(problems, "maxSendWr", config.maxSendWr(), 1, device.maxQpWr(), "max_qp_wr");
        if (config.srq() == null) {
            limit(problems, "maxRecvWr", config.maxRecvWr(), 1, device.maxQpWr(), "max_qp_wr");
        }
        limit(problems, "maxSendSge", config.maxSendSge(), 0, device.maxSge(), "max_sge");
        limit(problems, "maxRecvSge", config.maxRecvSge(), 0, device.maxSge(), "max_sge");
        if (config.maxInlineData() < 0) {
            problems.append("; maxInlineData ").append(config.maxInlineData()).append(" is negative");
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("queue pair capacities exceed what " + context.name() + " allows: "
                    + problems.substring(2));
        }
    }

    private static void limit(StringBuilder problems, String name, int value, int min, int max, String deviceName) {
        if (value < min || value > max) {
            problems.append("; ").append(name).append(' ').append(value).append(" is outside ").append(min)
                    .append("..").append(max).append(" (").append(deviceName).append(')');
        }
    }

    private static String describeRequest(Context context, Config config) {
        DeviceAttributes d = context.attributes();
        return config.type() + " queue pair with max_send_wr " + config.maxSendWr() + ", max_recv_wr "
                + config.maxRecvWr() + ", max_send_sge " + config.maxSendSge() + ", max_recv_sge "
                + config.maxRecvSge() + ", max_inline_data " + config.maxInlineData() + " on " + context.name()
                + " (device max_qp " + d.maxQp() + ", max_qp_wr " + d.maxQpWr() + ", max_sge " + d.maxSge() + ")";
    }

    long address() {
        return handle.address();
    }

    /**
     * {@code ibv_modify_qp} RTS → SQD with {@code en_sqd_async_notify}: the send queue stops taking new
     * requests, and an {@link AsyncEventType#SQ_DRAINED} event reports when the outstanding ones are done.
     */
    public void drainSendQueue() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            ibv_qp_attr.qp_state(attr, QpState.SQD.code());
            ibv_qp_attr.en_sqd_async_notify(attr, (byte) 1);
            modify(attr, ibverbs_h.IBV_QP_STATE() | ibverbs_h.IBV_QP_EN_SQD_ASYNC_NOTIFY(), "RTS→SQD");
        }
    }

    /** The queue pair number ({@code qp_num}). */
    public int qpNumber() {
        return qpNumber;
    }

    /** The initial send PSN this side uses (random, 24 bits, as perftest does). */
    public int psn() {
        return psn;
    }

    /** The configuration it was created with. */
    public Config config() {
        return config;
    }

    /** What the device granted. */
    public Capabilities capabilities() {
        return capabilities;
    }

    /** The source GID index used to connect. */
    public int gidIndex() {
        return gidIndex;
    }

    /** The protection domain. */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /** The native {@code struct ibv_qp *}; valid until closed. */
    public MemorySegment handle() {
        ensureOpen();
        return handle;
    }

    /** This side's connection data to send to the peer: QPN, PSN, LID and the GID at {@link #gidIndex()}. */
    public Endpoint localEndpoint() {
        ensureOpen();
        int lid = context.queryPort(config.port()).lid();
        return new Endpoint(qpNumber, psn, lid, context.gid(config.port(), gidIndex));
    }

    /** {@code ibv_query_qp(qp, &attr, IBV_QP_STATE, &init_attr)}: the current state. */
    public QpState state() {
        ensureOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            MemorySegment init = arena.allocate(ibv_qp_init_attr.layout());
            int rc = ibverbs_h.ibv_query_qp(handle, attr, ibverbs_h.IBV_QP_STATE(), init);
            if (rc != 0) {
                throw new VerbsException("ibv_query_qp", rc, toString());
            }
            return QpState.of(ibv_qp_attr.qp_state(attr));
        }
    }

    /**
     * {@code struct ibv_qp_attr} as {@code ibv_query_qp} reports it.
     *
     * @param state             the current state
     * @param pathMtu           the path MTU (meaningful from RTR)
     * @param access            {@code qp_access_flags}
     * @param destQpNumber      the connected peer's QPN
     * @param receivePsn        {@code rq_psn}
     * @param sendPsn           {@code sq_psn}
     * @param port              {@code port_num}
     * @param pkeyIndex         {@code pkey_index}
     * @param minRnrTimer       {@code min_rnr_timer}
     * @param timeout           {@code timeout}
     * @param retryCount        {@code retry_cnt}
     * @param rnrRetry          {@code rnr_retry}
     * @param maxReadAtomic     {@code max_rd_atomic}
     * @param maxDestReadAtomic {@code max_dest_rd_atomic}
     * @param capabilities      {@code cap}
     */
    public record Attributes(QpState state, Mtu pathMtu, int access, int destQpNumber, int receivePsn, int sendPsn,
            int port, int pkeyIndex, int minRnrTimer, int timeout, int retryCount, int rnrRetry, int maxReadAtomic,
            int maxDestReadAtomic, Capabilities capabilities) {
    }

    /** {@code ibv_query_qp} of every attribute this library sets. */
    public Attributes query() {
        ensureOpen();
        int mask = ibverbs_h.IBV_QP_STATE() | ibverbs_h.IBV_QP_PATH_MTU() | ibverbs_h.IBV_QP_ACCESS_FLAGS()
                | ibverbs_h.IBV_QP_DEST_QPN() | ibverbs_h.IBV_QP_RQ_PSN() | ibverbs_h.IBV_QP_SQ_PSN()
                | ibverbs_h.IBV_QP_PORT() | ibverbs_h.IBV_QP_PKEY_INDEX() | ibverbs_h.IBV_QP_MIN_RNR_TIMER()
                | ibverbs_h.IBV_QP_TIMEOUT() | ibverbs_h.IBV_QP_RETRY_CNT() | ibverbs_h.IBV_QP_RNR_RETRY()
                | ibverbs_h.IBV_QP_MAX_QP_RD_ATOMIC() | ibverbs_h.IBV_QP_MAX_DEST_RD_ATOMIC() | ibverbs_h.IBV_QP_CAP();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            MemorySegment init = arena.allocate(ibv_qp_init_attr.layout());
            int rc = ibverbs_h.ibv_query_qp(handle, attr, mask, init);
            if (rc != 0) {
                throw new VerbsException("ibv_query_qp", rc, toString());
            }
            MemorySegment cap = ibv_qp_attr.cap(attr);
            int mtu = ibv_qp_attr.path_mtu(attr);
            return new Attributes(QpState.of(ibv_qp_attr.qp_state(attr)), mtu == 0 ? null : Mtu.of(mtu),
                    ibv_qp_attr.qp_access_flags(attr), ibv_qp_attr.dest_qp_num(attr), ibv_qp_attr.rq_psn(attr),
                    ibv_qp_attr.sq_psn(attr), Byte.toUnsignedInt(ibv_qp_attr.port_num(attr)),
                    Short.toUnsignedInt(ibv_qp_attr.pkey_index(attr)), Byte.toUnsignedInt(ibv_qp_attr.min_rnr_timer(attr)),
                    Byte.toUnsignedInt(ibv_qp_attr.timeout(attr)), Byte.toUnsignedInt(ibv_qp_attr.retry_cnt(attr)),
                    Byte.toUnsignedInt(ibv_qp_attr.rnr_retry(attr)), Byte.toUnsignedInt(ibv_qp_attr.max_rd_atomic(attr)),
                    Byte.toUnsignedInt(ibv_qp_attr.max_dest_rd_atomic(attr)),
                    new Capabilities(ibv_qp_cap.max_send_wr(cap), ibv_qp_cap.max_recv_wr(cap),
                            ibv_qp_cap.max_send_sge(cap), ibv_qp_cap.max_recv_sge(cap), ibv_qp_cap.max_inline_data(cap)));
        }
    }

    /**
     * {@code ibv_modify_qp} to ERR: every outstanding request completes with {@link WcStatus#WR_FLUSH_ERR}
     * (poll them to drain the queue pair) and new ones are flushed too.
     */
    public void modifyToError() {
        modifyToState(QpState.ERR, "→ERR");
    }

    /** {@code ibv_modify_qp} to RESET: the queue pair forgets its connection and can be connected again. */
    public void reset() {
        modifyToState(QpState.RESET, "→RESET");
    }

    private void modifyToState(QpState target, String transition) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            ibv_qp_attr.qp_state(attr, target.code());
            modify(attr, ibverbs_h.IBV_QP_STATE(), transition);
        }
    }

    /** {@link #connect(Endpoint, ConnectOptions)} with {@link ConnectOptions#defaults()}. */
    public void connect(Endpoint remote) {
        connect(remote, ConnectOptions.defaults());
    }

    /**
     * Moves this queue pair from RESET to RTS, connected to {@code remote}: {@link #modifyToInit},
     * {@link #modifyToRtr}, {@link #modifyToRts}.
     *
     * @throws VerbsException naming {@code ibv_modify_qp}, the errno and the failed transition
     */
    public void connect(Endpoint remote, ConnectOptions options) {
        if (config.type() == QpType.UD) {
            throw new IllegalStateException(this + " is a UD queue pair: it is not connected; use readyForDatagrams(qkey)");
        }
        modifyToInit(options.access() >= 0 ? options.access() : defaultAccess());
        modifyToRtr(remote, options);
        modifyToRts(options);
    }

    /** Connects two queue pairs to each other (on one device or two in this process), with the defaults. */
    public static void connectLoopback(QueuePair a, QueuePair b) {
        connectLoopback(a, b, ConnectOptions.defaults());
    }

    /** Connects two queue pairs to each other with {@code options} on both sides (or one queue pair to itself). */
    public static void connectLoopback(QueuePair a, QueuePair b, ConnectOptions options) {
        if (a == b) {
            a.connect(a.localEndpoint(), options);
            return;
        }
        Endpoint endpointA = a.localEndpoint();
        Endpoint endpointB = b.localEndpoint();
        a.connect(endpointB, options);
        b.connect(endpointA, options);
    }

    /** Local write, remote write and read, and remote atomic where the device (and its profile) has atomics. */
    private int defaultAccess() {
        return !context.profile().capabilities().atomics()
                ? ACCESS_DEFAULT : ACCESS_DEFAULT | Access.REMOTE_ATOMIC.bit();
    }

    /**
     * Makes an unreliable-datagram queue pair ready to send and receive: {@code ibv_modify_qp} to INIT
     * (pkey index 0, the configured port, {@code qkey}), RTR and RTS.
     *
     * @param qkey the Q_Key senders must use to reach this queue pair
     * @throws IllegalStateException if this is not a UD queue pair
     */
    public void readyForDatagrams(int qkey) {
        if (config.type() != QpType.UD) {
            throw new IllegalStateException(this + " is not a UD queue pair; connect RC queue pairs with connect()");
        }
        modifyToInit(ibverbs_h.IBV_QP_QKEY(), attr -> ibv_qp_attr.qkey(attr, qkey),
                "RESET→INIT (UD, qkey 0x" + Integer.toHexString(qkey) + ")");
        modifyToState(QpState.RTR, "INIT→RTR (UD)");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            ibv_qp_attr.qp_state(attr, QpState.RTS.code());
            ibv_qp_attr.sq_psn(attr, psn);
            modify(attr, ibverbs_h.IBV_QP_STATE() | ibverbs_h.IBV_QP_SQ_PSN(), "RTR→RTS (UD)");
        }
        Mtu active = context.queryPort(config.port()).activeMtu();
        if (active == Mtu.UNKNOWN) {
            // 0 would read as "not ready" and refuse every send with the wrong advice.
            throw new IllegalStateException("port " + config.port() + " reports an active MTU this library does not"
                    + " know, so the datagram size limit is unknown");
        }
        datagramLimit = active.bytes();
    }

    /** The largest message a UD send may carry (the port's active MTU), or 0 before {@link #readyForDatagrams}. */
    public int maxDatagramSize() {
        return datagramLimit;
    }

    /** {@code ibv_modify_qp} to INIT: pkey index 0, the configured port, {@code accessBits}. */
    public void modifyToInit(int accessBits) {
        modifyToInit(ibverbs_h.IBV_QP_ACCESS_FLAGS(), attr -> ibv_qp_attr.qp_access_flags(attr, accessBits),
                "RESET→INIT on port " + config.port());
    }

    /** RESET → INIT with pkey index 0 and the configured port, plus what RC (access flags) or UD (qkey) adds. */
    private void modifyToInit(int extraMask, java.util.function.Consumer<MemorySegment> extra, String transition) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            ibv_qp_attr.qp_state(attr, QpState.INIT.code());
            ibv_qp_attr.pkey_index(attr, (short) 0);
            ibv_qp_attr.port_num(attr, (byte) config.port());
            extra.accept(attr);
            modify(attr, ibverbs_h.IBV_QP_STATE() | ibverbs_h.IBV_QP_PKEY_INDEX() | ibverbs_h.IBV_QP_PORT() | extraMask,
                    transition);
        }
    }

    /** {@code ibv_modify_qp} to RTR, towards {@code remote}, with a GRH (always on RoCE) from the configured GID index. */
    public void modifyToRtr(Endpoint remote, ConnectOptions options) {
        PortAttributes port = context.queryPort(config.port());
        Mtu mtu = options.pathMtu() == null ? port.activeMtu() : Mtu.min(options.pathMtu(), port.activeMtu());
        if (mtu == Mtu.UNKNOWN) {
            // Its code (-1) would reach the kernel as a path MTU; name the way out instead.
            throw new IllegalStateException("port " + config.port() + " reports an active MTU this library does not"
                    + " know: choose one with ConnectOptions.withPathMtu");
        }
        int destReadAtomic = options.maxDestReadAtomic() >= 0 ? options.maxDestReadAtomic()
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
            ibv_ah_attr.port_num(ah, (byte) config.port());
            boolean global = port.linkLayer() == LinkLayer.ETHERNET || !remote.gid().isZero();
            if (global) {
                ibv_ah_attr.is_global(ah, (byte) 1);
                MemorySegment grh = ibv_ah_attr.grh(ah);
                remote.gid().write(grh, ibv_global_route.dgid$offset());
                ibv_global_route.sgid_index(grh, (byte) gidIndex);
                ibv_global_route.hop_limit(grh, (byte) options.hopLimit());
                ibv_global_route.traffic_class(grh, (byte) options.trafficClass());
            }
            modify(attr, ibverbs_h.IBV_QP_STATE() | ibverbs_h.IBV_QP_AV() | ibverbs_h.IBV_QP_PATH_MTU()
                    | ibverbs_h.IBV_QP_DEST_QPN() | ibverbs_h.IBV_QP_RQ_PSN() | ibverbs_h.IBV_QP_MAX_DEST_RD_ATOMIC()
                    | ibverbs_h.IBV_QP_MIN_RNR_TIMER(), "INIT→RTR towards QPN 0x" + Integer.toHexString(remote.qpNumber())
                    + " GID " + remote.gid() + " (source GID index " + gidIndex + ", path MTU " + mtu.bytes()
                    + "; check the peer's QPN and GID and that the GID index exists on this port)");
        }
    }

    /** {@code ibv_modify_qp} to RTS with this side's PSN. */
    public void modifyToRts(ConnectOptions options) {
        int readAtomic = options.maxReadAtomic() >= 0 ? options.maxReadAtomic()
                : Math.min(16, context.attributes().maxQpInitRdAtom());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            ibv_qp_attr.qp_state(attr, QpState.RTS.code());
            ibv_qp_attr.timeout(attr, (byte) options.timeout());
            ibv_qp_attr.retry_cnt(attr, (byte) options.retryCount());
            ibv_qp_attr.rnr_retry(attr, (byte) options.rnrRetry());
            ibv_qp_attr.sq_psn(attr, psn);
            ibv_qp_attr.max_rd_atomic(attr, (byte) readAtomic);
            modify(attr, ibverbs_h.IBV_QP_STATE() | ibverbs_h.IBV_QP_TIMEOUT() | ibverbs_h.IBV_QP_RETRY_CNT()
                    | ibverbs_h.IBV_QP_RNR_RETRY() | ibverbs_h.IBV_QP_SQ_PSN() | ibverbs_h.IBV_QP_MAX_QP_RD_ATOMIC(),
                    "RTR→RTS");
        }
    }

    private void modify(MemorySegment attr, int mask, String transition) {
        synchronized (treeLock()) {
            ensureOpen();
            int rc = ibverbs_h.ibv_modify_qp(handle, attr, mask);
            if (rc != 0) {
                throw new VerbsException("ibv_modify_qp", rc, toString() + " " + transition);
            }
        }
    }

    /**
     * {@code ibv_post_send(qp, &wrs[0], &bad_wr)} for the first {@code count} requests of the chain.
     *
     * @return 0, or the provider's errno value (EINVAL for a malformed request or a queue pair not in
     *         RTS, ENOMEM when the send queue is full); {@link WorkRequestChain#failedIndex()} then names
     *         the first request not posted
     * @throws IllegalStateException     if this queue pair or the chain is closed
     * @throws IndexOutOfBoundsException if {@code count} is not in 1..capacity
     * @throws UnsupportedVerbException  for atomics or inline data the device lacks, and on QEMU's PVRDMA
     *                                   model for any opcode but SEND (it would carry it as a plain SEND);
     *                                   nothing of the chain is posted then
     */
    public int postSend(SendWorkRequests requests, int count) {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        if (requests.specialCount != 0 || checkEveryPost) {
            checkSpecialRequests(requests, count);
        }
        return requests.postThrough(postSendFunction, handle, count);
    }

    /**
     * {@code ibv_post_recv(qp, &wrs[0], &bad_wr)} for the first {@code count} requests of the chain.
     *
     * @return 0, or the provider's errno value; {@link WorkRequestChain#failedIndex()} names the refused request
     * @throws IllegalStateException     if this queue pair or the chain is closed
     * @throws IndexOutOfBoundsException if {@code count} is not in 1..capacity
     */
    public int postRecv(RecvWorkRequests requests, int count) {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        if (config.srq() != null) {
            throw new IllegalStateException(this + " takes its receives from " + config.srq()
                    + ": post them there (SharedReceiveQueue.postRecv)");
        }
        return requests.postThrough(postRecvFunction, handle, count);
    }

    /**
     * The checks C leaves to the device (which may fail obscurely or, for some providers, mis-encode):
     * atomics need a device with atomic support and exactly one 8-byte local entry; inline payloads must
     * fit the queue pair's {@code max_inline_data}. Only runs when the chain holds such requests.
     */
    private void checkSpecialRequests(SendWorkRequests requests, int count) {
        for (int i = 0; i < Math.min(count, requests.capacity()); i++) {
            int special = requests.special(i);
            if (config.type() == QpType.UD) {
                AddressHandle ah = requests.addressHandle(i);
                if (ah == null) {
                    // the provider would dereference a NULL address handle
                    throw new IllegalArgumentException("work request " + i + " on UD " + this
                            + " has no address handle: call SendWorkRequest.ud(handle, remoteQpn, qkey)");
                }
                if (ah.isClosed()) {
                    throw new IllegalStateException("work request " + i + " names " + ah + ", which is closed");
                }
                long payload = requests.get(i).payloadLength();
                if (payload > datagramLimit) {
                    throw new IllegalArgumentException("UD work request " + i + " carries " + payload + " bytes; UD messages"
                            + " are limited to the path MTU, " + datagramLimit + " bytes on port " + config.port()
                            + (datagramLimit == 0 ? " (call readyForDatagrams first)" : ""));
                }
            }
            if ((special & SendWorkRequests.SPECIAL_ATOMIC) != 0) {
                context.profile().requireAtomics(context.name());
                SendWorkRequest wr = requests.get(i);
                if (wr.numSge() != 1 || requests.sgeLength(i, 0) != 8) {
                    throw new IllegalArgumentException("atomic work request " + i + " needs exactly one 8-byte local"
                            + " scatter-gather entry for the old value, not " + wr.numSge() + " entries of "
                            + wr.payloadLength() + " bytes");
                }
            }
            if ((special & SendWorkRequests.SPECIAL_INLINE) != 0) {
                context.profile().requireInline("ibv_post_send");
                long payload = requests.get(i).payloadLength();
                if (capabilities.maxInlineData() == 0) {
                    throw new UnsupportedVerbException("ibv_post_send", this + " has max_inline_data 0 (work request "
                            + i + " is IBV_SEND_INLINE)", "create the queue pair with maxInlineData(" + payload
                            + ") or leave out SendFlags.INLINE");
                }
                if (payload > capabilities.maxInlineData()) {
                    throw new IllegalArgumentException("inline work request " + i + " carries " + payload
                            + " bytes, more than the queue pair's max_inline_data " + capabilities.maxInlineData());
                }
            }
            if (checkOpcodes) { // after the atomic check, whose refusal says more
                context.profile().requireOpcode(requests.get(i).opcode(), i);
            }
        }
    }

    /** {@link #postSend} that throws {@link VerbsException} (naming {@code ibv_post_send}) instead of returning an error. */
    public void postSendOrThrow(SendWorkRequests requests, int count) {
        int rc = postSend(requests, count);
        if (rc != 0) {
            throw postFailure("ibv_post_send", rc, requests, count);
        }
    }

    /** {@link #postRecv} that throws {@link VerbsException} (naming {@code ibv_post_recv}) instead of returning an error. */
    public void postRecvOrThrow(RecvWorkRequests requests, int count) {
        int rc = postRecv(requests, count);
        if (rc != 0) {
            throw postFailure("ibv_post_recv", rc, requests, count);
        }
    }

    private VerbsException postFailure(String verb, int rc, WorkRequestChain requests, int count) {
        int failed = requests.failedIndex();
        return new VerbsException(verb, rc, "work request " + failed + " of " + count + " was refused (requests before it"
                + " were posted) on " + this + " in state " + state());
    }

    @Override
    void destroy() {
        int rc = ibverbs_h.ibv_destroy_qp(raw(handle));
        if (rc != 0) {
            throw new VerbsException("ibv_destroy_qp", rc, toString());
        }
    }

    @Override
    public String toString() {
        return "QueuePair[" + config.type() + " 0x" + Integer.toHexString(qpNumber) + " on " + context.name() + "]";
    }
}
