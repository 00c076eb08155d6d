package org.panamaverbs.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import org.panamaverbs.ffi.ibv_qp;
import org.panamaverbs.ffi.ibv_qp_attr;
import org.panamaverbs.ffi.ibv_qp_cap;
import org.panamaverbs.ffi.ibv_qp_init_attr;
import org.panamaverbs.ffi.ibverbs_h;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.NativeFunction;
import org.panamaverbs.internal.NativeLayouts;
import org.panamaverbs.internal.ControlEvents;
import org.panamaverbs.internal.QpCreator;
import org.panamaverbs.internal.Unchecked;

/**
 * {@code struct ibv_qp}: an RC or UD queue pair. Made by {@code ibv_create_qp}
 * ({@link ProtectionDomain#createQueuePair}) and destroyed with {@code ibv_destroy_qp}, or made by
 * {@code rdma_create_qp} on an rdma_cm id (package {@code org.panamaverbs.cm}), which owns it and frees it
 * with {@code rdma_destroy_qp} ({@link #heldBy()} says so). It depends on its protection domain, both
 * completion queues and its shared receive queue, and is closed before any of them.
 *
 * <p>Control path, without rdma_cm: {@link #connect(QpEndpoint)} walks RESET → INIT → RTR → RTS with
 * {@code ibv_modify_qp} and {@link QpConnectOptions#defaults()} (perftest's); {@link #connectLoopback}
 * connects two local queue pairs; {@link #readyForDatagrams(int)} readies a UD queue pair, and
 * {@link #attachMulticast} ({@code ibv_attach_mcast}) makes it a member of a multicast group; {@link #state()}
 * and {@link #query()} are {@code ibv_query_qp}. Failures throw {@link VerbsException} naming the verb,
 * the errno and the transition. With rdma_cm the connection manager makes these transitions.
 *
 * <p>Data path: {@link #postSend} and {@link #postRecv} are {@code ibv_post_send} / {@code ibv_post_recv},
 * which verbs.h defines inline; they call the provider's function pointers directly, allocate nothing,
 * and return 0 or the provider's errno value (the refused request is
 * {@link WorkRequestChain#failedIndex()}). They throw only for misuse that would otherwise reach the
 * provider: a closed queue pair, chain or address handle, or a request the device's {@link DevicePolicy}
 * refuses. The memory the requests name must stay registered until their completions are polled.
 */
public final class QueuePair extends VerbsResource {

    private final ProtectionDomain pd;
    private final Context context;
    private final MemorySegment handle;
    /** The handle's address, for posts ({@link InFlight} keeps it alive during them). */
    private final long address;
    private final MemorySegment postSendFunction;
    private final MemorySegment postRecvFunction;
    private final QpConfig config;
    private final QpCapabilities capabilities;
    private final int qpNumber;
    private final int psn;
    /** The configured source GID index, or -1 until {@link #gidIndex()} first chose the default. */
    private volatile int gidIndex;
    /** The device's gates; on the data path only consulted when {@link #checkEveryPost} or a chain is special. */
    private final DevicePolicy policy;
    /** Whether every post needs {@link DevicePolicy#checkSend} (UD, or opcodes checked); else only special chains. */
    private final boolean checkEveryPost;
    /** {@code config.srq() != null}: what the checked postRecv tests, without loading the SRQ's class. */
    private final boolean receivesFromSrq;
    /** The largest UD message: the port's active MTU, read when the queue pair became ready; 0 before. */
    private volatile int datagramLimit;
    /** What a chain's proof must name for a send's fast path: the region generation while open, else 0. */
    private volatile long sendStamp;
    /** As {@link #sendStamp} for receives: 0 when closed or taking its receives from a shared receive queue. */
    private volatile long recvStamp;

    /** The groups {@link #attachMulticast} joined, detached before the queue pair is freed. */
    private final MulticastGroups multicastGroups = new MulticastGroups();

    private static final class Native {
        static final MethodHandle CREATE_QP = CallState.capturingErrno(NativeFunction.IBV_CREATE_QP);
    }

    private QueuePair(ProtectionDomain pd, MemorySegment handle, QpConfig config, QpCapabilities capabilities) {
        super(pd.treeLock(), owners(pd, config));
        this.pd = pd;
        this.context = pd.context();
        this.handle = handle;
        this.address = handle.address();
        this.postSendFunction = context.postSendFunction;
        this.postRecvFunction = context.postRecvFunction;
        this.config = config;
        this.capabilities = capabilities;
        this.qpNumber = ibv_qp.qp_num(handle);
        // a random start, as perftest's lrand48: no secret, and SecureRandom read /dev/urandom per queue pair
        this.psn = ThreadLocalRandom.current().nextInt() & 0xffffff;
        this.gidIndex = config.gidIndex();
        this.policy = context.policy();
        this.checkEveryPost = policy.checksEveryPost(config.type());
        this.receivesFromSrq = config.srq() != null;
        // under the tree lock, like every move of the generation: no region close can come between
        this.sendStamp = checkEveryPost ? 0 : context.regionGeneration;
        this.recvStamp = receivesFromSrq ? 0 : context.regionGeneration;
        String what = toString();
        own(what, MulticastGroups.detachingBefore(multicastGroups, handle, what,
                () -> check("ibv_destroy_qp", ibverbs_h.ibv_destroy_qp(handle), what)));
    }

    /** {@code free} (the owner's {@code rdma_destroy_qp}) preceded by detaching the groups still attached. */
    Runnable detachingBefore(Runnable free) {
        return MulticastGroups.detachingBefore(multicastGroups, handle, toString(), free);
    }

    private static VerbsResource[] owners(ProtectionDomain pd, QpConfig config) {
        List<VerbsResource> owners = new ArrayList<>(List.of(pd, config.sendCq()));
        if (config.recvCq() != config.sendCq()) {
            owners.add(config.recvCq());
        }
        if (config.srq() != null) {
            owners.add(config.srq());
        }
        return owners.toArray(VerbsResource[]::new);
    }

    /** {@code ibv_create_qp}; the caller holds the tree lock and checked the owners are open. */
    static QueuePair create(ProtectionDomain pd, QpConfig config) {
        return create(pd, config, (pdHandle, init) -> {
            try (CallState state = CallState.open()) {
                MemorySegment qp = (MemorySegment) Native.CREATE_QP.invokeExact(state.segment(), pdHandle, init);
                if (qp.equals(MemorySegment.NULL)) {
                    throw new VerbsException("ibv_create_qp", state.errno(), config.describe(pd.context()));
                }
                return qp;
            } catch (Throwable t) {
                throw Unchecked.rethrow(t);
            }
        });
    }

    /**
     * Checks {@code config} against the device's policy and limits, fills {@code struct ibv_qp_init_attr}
     * and makes the queue pair with {@code creator}; the caller holds the tree lock and checked the owners
     * are open.
     */
    static QueuePair create(ProtectionDomain pd, QpConfig config, QpCreator creator) {
        Context context = pd.context();
        // the walk of the tree only for the type whose count a device limits (HWv13 caps UD queue pairs)
        context.policy().checkQueuePair(config, config.type() == QpType.UD ? context.liveUdQueuePairs() : 0);
        if (config.sendCq().context() != context || config.recvCq().context() != context) {
            throw new IllegalArgumentException("the completion queues must belong to the protection domain's context "
                    + context.name());
        }
        if (config.srq() != null && config.srq().protectionDomain().context() != context) {
            throw new IllegalArgumentException("the shared receive queue must belong to context " + context.name());
        }
        config.checkCapacities(context);
        context.checkPort(config.port());
        config.checkPkeyIndex(context);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment init = arena.allocate(ibv_qp_init_attr.layout());
            ibv_qp_init_attr.send_cq(init, config.sendCq().handleUnchecked());
            ibv_qp_init_attr.recv_cq(init, config.recvCq().handleUnchecked());
            ibv_qp_init_attr.qp_type(init, config.type().code());
            ibv_qp_init_attr.sq_sig_all(init, config.signalAll() ? 1 : 0);
            if (config.srq() != null) {
                ibv_qp_init_attr.srq(init, config.srq().handleUnchecked());
            }
            MemorySegment cap = ibv_qp_init_attr.cap(init);
            QpCapabilities asked = config.capabilities();
            ibv_qp_cap.max_send_wr(cap, asked.maxSendWr());
            boolean ownReceives = config.srq() == null;
            ibv_qp_cap.max_recv_wr(cap, ownReceives ? asked.maxRecvWr() : 0);
            ibv_qp_cap.max_send_sge(cap, asked.maxSendSge());
            ibv_qp_cap.max_recv_sge(cap, ownReceives ? asked.maxRecvSge() : 0);
            ibv_qp_cap.max_inline_data(cap, asked.maxInlineData());
            Object event = ControlEvents.begin(ControlEvents.Kind.QUEUE_PAIR_CREATE);
            MemorySegment qp = creator.create(pd.handleUnchecked(), init);
            QueuePair created = new QueuePair(pd, qp.reinterpret(NativeLayouts.selected().ibvQp().byteSize()), config,
                    QpStateMachine.capabilities(cap));
            QpCapabilities granted = created.capabilities;
            ControlEvents.queuePairCreated(event, context.name(), created.toString(), created.qpNumber,
                    config.type().name(), granted.maxSendWr(), granted.maxRecvWr(), granted.maxSendSge(),
                    granted.maxRecvSge(), granted.maxInlineData(), config.srq() != null);
            return created;
        }
    }

    long address() {
        return handle.address();
    }

    /** Closes the fast path before the close's handshake: a post marked after it sees 0 and checks {@code closed}. */
    @Override
    void beforeHandshake() {
        // before the handshake, so a post that reads the stamp after setting its marker sees the close (one read
        // answers "open, no per-post check, no region closed since the proof"; Context#regionClosed moves it too)
        sendStamp = 0;
        recvStamp = 0;
    }

    /** A region of the context closed ({@link Context#regionClosed}, under the tree lock): the proofs before it end. */
    void regionGenerationMoved(long generation) {
        if (sendStamp != 0) {
            sendStamp = generation;
        }
        if (recvStamp != 0) {
            recvStamp = generation;
        }
    }

    /** The raw handle, for calls under the tree lock, which a close takes to free it ({@link QpStateMachine}). */
    MemorySegment handleUnchecked() {
        return handle;
    }

    /** Marks a queue pair rdma_cm moved to RTS itself as ready for datagrams up to the port's active MTU. */
    void datagramsReady() {
        Mtu active = context.queryPort(config.port()).activeMtu();
        if (active == Mtu.UNKNOWN) {
            // 0 would read as "not ready" and refuse every send with the wrong advice.
            throw new IllegalStateException("port " + config.port() + " reports an active MTU this library does not"
                    + " know, so the datagram size limit is unknown");
        }
        datagramLimit = active.bytes();
    }

    /**
     * {@code ibv_modify_qp} RTS → SQD with {@code en_sqd_async_notify}: the send queue stops taking new
     * requests, and an {@link AsyncEventType#SQ_DRAINED} event reports when the outstanding ones are done.
     *
     * @throws IllegalStateException if this queue pair is closed
     * @throws VerbsException        naming {@code ibv_modify_qp} and the errno, for example when the queue pair
     *                               is not in RTS
     */
    public void drainSendQueue() {
        QpStateMachine.toSendQueueDrained(this);
    }

    /** {@return the queue pair number ({@code qp_num}), 24 bits} A peer addresses this queue pair with it. */
    public int qpNumber() {
        return qpNumber;
    }

    /**
     * {@return the initial send PSN this side uses (random, 24 bits, as perftest does)} The peer's RTR needs it as
     * {@code rq_psn}.
     */
    public int psn() {
        return psn;
    }

    /**
     * {@return the configuration it was created with} For a queue pair rdma_cm made, its port is the one rdma_cm
     * resolved.
     */
    public QpConfig config() {
        return config;
    }

    /**
     * A multicast group a UD queue pair is attached to.
     *
     * @param group the group's GID
     * @param lid   its multicast LID on InfiniBand (from the subnet manager), 0 on RoCE
     */
    public record MulticastMembership(Gid group, int lid) {
    }

    /**
     * {@code ibv_attach_mcast}: this UD queue pair also receives the datagrams sent to {@code group} (to QPN
     * 0xFFFFFF, with the group's Q_Key). A sender reaches the group with an address handle whose GID is the group's
     * (and on InfiniBand whose LID is {@code lid}). On InfiniBand the subnet manager must know the group first (an
     * SA join, which this library does not send); on RoCE a switch or router forwards the group's IP multicast, and
     * {@code lid} is ignored. Attaching a group again is a no-op. The queue pair's close detaches every group left,
     * since the kernel cannot destroy an attached queue pair.
     *
     * @param group a multicast GID ({@link Gid#isMulticast()})
     * @param lid   the group's multicast LID on InfiniBand (0xc000..0xfffe); 0 on RoCE
     * @throws IllegalArgumentException if this is not a UD queue pair, {@code group} is not multicast or the LID is not
     *                                  a multicast LID on InfiniBand
     * @throws UnsupportedVerbException where the device has no multicast (PVRDMA on every hardware version, a device
     *                                  reporting {@code max_mcast_grp} 0)
     * @throws VerbsException           naming {@code ibv_attach_mcast} and the errno (ENOMEM: the device's group or
     *                                  attachment limit)
     * @throws IllegalStateException    if this queue pair is closed
     */
    public void attachMulticast(Gid group, int lid) {
        multicastGroups.attach(this, group, lid);
    }

    /**
     * {@code ibv_detach_mcast}: this queue pair stops receiving what is sent to {@code group}.
     *
     * @param group a group {@link #attachMulticast} attached
     * @param lid   the LID it was attached with
     * @throws IllegalStateException    if this queue pair is closed or not attached to that group and LID
     * @throws IllegalArgumentException as {@link #attachMulticast}
     * @throws VerbsException           naming {@code ibv_detach_mcast} and the errno
     */
    public void detachMulticast(Gid group, int lid) {
        multicastGroups.detach(this, group, lid);
    }

    /**
     * {@return the groups this queue pair is attached to, in the order attached (a snapshot)}
     *
     * @throws IllegalStateException if this queue pair is closed
     */
    public List<MulticastMembership> multicastGroups() {
        return multicastGroups.list(this);
    }

    /** {@return what the device granted, which may exceed what {@link #config()} asked} */
    public QpCapabilities capabilities() {
        return capabilities;
    }

    /**
     * The source GID index used to connect ({@code sgid_index}): the configured one, or the port's default, chosen
     * when first asked (an rdma_cm queue pair never needs it: rdma_cm addresses the connection).
     *
     * @return the index into the port's GID table
     * @throws VerbsException if the default is chosen now and reading the GID table fails
     */
    public int gidIndex() {
        int index = gidIndex;
        if (index < 0) {
            index = context.defaultGidIndex(config.port());
            gidIndex = index;
        }
        return index;
    }

    /** {@return the protection domain the queue pair was created in} */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /**
     * The native {@code struct ibv_qp *}, for C code: pass it to a C function through a downcall (which keeps
     * this queue pair from being freed until the call returns) or read its fields. The view is read-only: a write
     * through it throws {@link IllegalArgumentException} ("Attempt to write a read-only segment"), because the
     * provider owns every field (a changed pointer or count would crash its next call, {@code ibv_destroy_*}
     * included). Freeing it is {@link #close()}'s job; after the close every access through the view throws
     * {@link IllegalStateException}.
     *
     * @return the handle as a read-only segment of {@code sizeof(struct ibv_qp)} bytes, valid while this queue pair is open
     * @throws IllegalStateException if this queue pair is closed
     */
    public MemorySegment handle() {
        ensureOpen();
        return scoped(handle);
    }

    /**
     * This side's connection data to send to the peer: QPN, PSN, LID and the GID at {@link #gidIndex()}.
     *
     * @return the endpoint, with the port's current LID ({@code ibv_query_port}; 0 on RoCE)
     * @throws IllegalStateException if this queue pair is closed
     * @throws VerbsException        if the port cannot be queried or has no GID at {@link #gidIndex()}
     */
    public QpEndpoint localEndpoint() {
        ensureOpen();
        int lid = context.queryPort(config.port()).lid();
        return new QpEndpoint(qpNumber, psn, lid, context.gid(config.port(), gidIndex()));
    }

    /**
     * {@code ibv_query_qp(qp, &attr, IBV_QP_STATE, &init_attr)}: the current state.
     *
     * @return the state the device reports now (for example {@link QpState#ERR} after a failed completion)
     * @throws IllegalStateException if this queue pair is closed
     * @throws VerbsException        naming {@code ibv_query_qp} and the errno
     */
    public QpState state() {
        return QpStateMachine.state(this);
    }

    /**
     * {@code ibv_query_qp} of every attribute this library sets.
     *
     * @return the attributes the device reports now, including the granted capacities
     * @throws IllegalStateException if this queue pair is closed
     * @throws VerbsException        naming {@code ibv_query_qp} and the errno
     */
    public QpAttributes query() {
        return QpStateMachine.attributes(this);
    }

    /**
     * {@code ibv_modify_qp} to ERR: every outstanding request completes with {@link WcStatus#WR_FLUSH_ERR}
     * (poll them to drain the queue pair) and new ones are flushed too.
     */
    public void modifyToError() {
        QpStateMachine.toState(this, QpState.ERR, "→ERR");
    }

    /** {@code ibv_modify_qp} to RESET: the queue pair forgets its connection and can be connected again. */
    public void reset() {
        QpStateMachine.toState(this, QpState.RESET, "→RESET");
    }

    /**
     * {@link #connect(QpEndpoint, QpConnectOptions)} with {@link QpConnectOptions#defaults()}.
     *
     * @param remote the peer's {@link #localEndpoint()}, received out of band
     * @throws IllegalStateException for a UD queue pair (use {@link #readyForDatagrams(int)})
     * @throws VerbsException naming {@code ibv_modify_qp}, the errno and the failed transition
     */
    public void connect(QpEndpoint remote) {
        connect(remote, QpConnectOptions.defaults());
    }

    /**
     * Moves this RC queue pair from RESET to RTS, connected to {@code remote}: {@link #modifyToInit},
     * {@link #modifyToRtr}, {@link #modifyToRts}.
     *
     * @param remote  the peer's {@link #localEndpoint()}, received out of band
     * @param options the INIT, RTR and RTS attributes; {@link QpConnectOptions#access()} null means the device's
     *                default access (local write, remote read and write, and remote atomic where supported)
     * @throws IllegalStateException for a UD queue pair (use {@link #readyForDatagrams(int)})
     * @throws VerbsException naming {@code ibv_modify_qp}, the errno and the failed transition
     */
    public void connect(QpEndpoint remote, QpConnectOptions options) {
        if (config.type() == QpType.UD) {
            throw new IllegalStateException(this + " is a UD queue pair: it is not connected; use readyForDatagrams(qkey)");
        }
        modifyToInit(options.access() != null ? options.access() : policy.defaultAccess());
        modifyToRtr(remote, options);
        modifyToRts(options);
    }

    /**
     * Connects two queue pairs to each other (on one device or two in this process), with the defaults.
     *
     * @param a one RC queue pair, in RESET
     * @param b the other RC queue pair, in RESET; may be {@code a} to connect it to itself
     * @throws IllegalStateException for a UD queue pair
     * @throws VerbsException        naming {@code ibv_modify_qp}, the errno and the failed transition
     */
    public static void connectLoopback(QueuePair a, QueuePair b) {
        connectLoopback(a, b, QpConnectOptions.defaults());
    }

    /**
     * Connects two queue pairs to each other with {@code options} on both sides (or one queue pair to itself).
     *
     * @param a       one RC queue pair, in RESET
     * @param b       the other RC queue pair, in RESET; may be {@code a}
     * @param options the attributes both sides use
     * @throws IllegalStateException for a UD queue pair
     * @throws VerbsException        naming {@code ibv_modify_qp}, the errno and the failed transition
     */
    public static void connectLoopback(QueuePair a, QueuePair b, QpConnectOptions options) {
        if (a == b) {
            a.connect(a.localEndpoint(), options);
            return;
        }
        QpEndpoint endpointA = a.localEndpoint();
        QpEndpoint endpointB = b.localEndpoint();
        a.connect(endpointB, options);
        b.connect(endpointA, options);
    }

    /**
     * Makes an unreliable-datagram queue pair ready to send and receive: {@code ibv_modify_qp} to INIT
     * (pkey index 0, the configured port, {@code qkey}), RTR and RTS.
     *
     * @param qkey the Q_Key senders must use to reach this queue pair (any 32-bit value both sides agree on;
     *             values with the top bit set are reserved for controlled Q_Keys)
     * @throws IllegalStateException if this is not a UD queue pair
     * @throws VerbsException        naming {@code ibv_modify_qp}, the errno and the failed transition
     */
    public void readyForDatagrams(int qkey) {
        if (config.type() != QpType.UD) {
            throw new IllegalStateException(this + " is not a UD queue pair; connect RC queue pairs with connect()");
        }
        QpStateMachine.toDatagramReady(this, qkey);
        datagramsReady();
    }

    /**
     * The largest message a UD send may carry (the port's active MTU), or 0 before {@link #readyForDatagrams}.
     *
     * @return the limit in bytes, for example 1024 on Soft-RoCE over a 1500-byte Ethernet MTU; 0 until the
     *         queue pair was made ready (by {@link #readyForDatagrams} or by rdma_cm), and for RC queue pairs
     */
    public int maxDatagramSize() {
        return datagramLimit;
    }

    /**
     * {@code ibv_modify_qp} to INIT: the configured P_Key index and port, {@code accessBits}. The first step of
     * {@link #connect}, for callers that make the transitions themselves.
     *
     * @param accessBits {@code qp_access_flags}: the {@code IBV_ACCESS_*} bits of the remote operations the
     *                   peer may perform through this queue pair, for example
     *                   {@code Access.bits(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ)}
     * @throws IllegalStateException if this queue pair is closed
     * @throws VerbsException        naming {@code ibv_modify_qp} and the errno, for example when the queue pair
     *                               is not in RESET
     */
    public void modifyToInit(int accessBits) {
        QpStateMachine.toInit(this, ibverbs_h.IBV_QP_ACCESS_FLAGS(), attr -> ibv_qp_attr.qp_access_flags(attr, accessBits),
                "RESET→INIT on port " + config.port());
    }

    /**
     * {@code ibv_modify_qp} to RTR, towards {@code remote}, with a GRH (always on RoCE) from the configured GID index.
     *
     * @param remote  the peer's QPN, PSN (this side's {@code rq_psn}) and LID or GID
     * @param options the path MTU (at most the port's active MTU), {@code max_dest_rd_atomic},
     *                {@code min_rnr_timer}, service level, hop limit, traffic class and flow label
     * @throws IllegalStateException if this queue pair is closed, or the port's active MTU is unknown and
     *                               {@code options} names none
     * @throws VerbsException        naming {@code ibv_modify_qp}, the errno and the peer's QPN and GID
     */
    public void modifyToRtr(QpEndpoint remote, QpConnectOptions options) {
        QpStateMachine.toRtr(this, remote, options);
    }

    /**
     * {@code ibv_modify_qp} to RTS with this side's PSN.
     *
     * @param options the {@code timeout}, {@code retry_cnt}, {@code rnr_retry} and {@code max_rd_atomic} to use
     * @throws IllegalStateException if this queue pair is closed
     * @throws VerbsException        naming {@code ibv_modify_qp} and the errno, for example when the queue pair
     *                               is not in RTR
     */
    public void modifyToRts(QpConnectOptions options) {
        QpStateMachine.toRts(this, options);
    }

    /**
     * {@code ibv_post_send(qp, &wrs[0], &bad_wr)} for the first {@code count} requests of the chain.
     *
     * @param requests the send requests, written through their {@link SendWorkRequest} flyweights; the
     *                 memory their entries name must stay registered until the requests' completions are
     *                 polled, while the chain itself may be rewritten as soon as this call returns
     * @param count    how many requests to post, from request 0: 1 to {@code requests.capacity()}
     * @return 0, or the provider's errno value (EINVAL for a malformed request or a queue pair not in
     *         RTS, ENOMEM when the send queue is full); {@link WorkRequestChain#failedIndex()} then names
     *         the first request not posted
     * @throws IllegalStateException     if this queue pair, the chain, a named address handle or a region an
     *                                   entry names is closed
     * @throws IndexOutOfBoundsException if {@code count} is not in 1..capacity
     * @throws IllegalArgumentException  for an entry naming a region of another device context, a UD request
     *                                   without address handle or above the path MTU, an
     *                                   atomic request without one 8-byte entry, inline data above
     *                                   {@code max_inline_data}
     * @throws UnsupportedVerbException  for atomics or inline data the device lacks, and on QEMU's PVRDMA
     *                                   model for any opcode but SEND (it would carry it as a plain SEND);
     *                                   nothing of the chain is posted then
     */
    public int postSend(SendChain requests, int count) {
        requests.mark(this);
        try {
            if (requests.isReady(count, sendStamp)) {
                return requests.postReady(postSendFunction, address);
            }
            return postSendChecked(requests, count);
        } finally {
            requests.exit();
        }
    }

    /** {@link #postSend} with every check, between the chain's {@code mark} and {@code exit}. */
    private int postSendChecked(SendChain requests, int count) {
        ensureOpen();
        requests.checkRegions(context, count);
        boolean special = requests.specialCount != 0 || checkEveryPost;
        if (special) {
            policy.checkSend(this, requests, count);
        }
        return requests.post(postSendFunction, address, count, !special);
    }

    /**
     * {@code ibv_post_recv(qp, &wrs[0], &bad_wr)} for the first {@code count} requests of the chain.
     *
     * @param requests the receive requests; the buffers their entries name must stay registered until the
     *                 requests' completions are polled, while the chain itself may be rewritten as soon as
     *                 this call returns
     * @param count    how many requests to post, from request 0: 1 to {@code requests.capacity()}
     * @return 0, or the provider's errno value; {@link WorkRequestChain#failedIndex()} names the refused request
     * @throws IllegalStateException     if this queue pair, the chain or a region an entry names is closed, or
     *                                   receives come from a shared receive queue
     * @throws IllegalArgumentException  if an entry names a region of another device context
     * @throws IndexOutOfBoundsException if {@code count} is not in 1..capacity
     */
    public int postRecv(RecvChain requests, int count) {
        requests.mark(this);
        try {
            if (requests.isReady(count, recvStamp)) {
                return requests.postReady(postRecvFunction, address);
            }
            return postRecvChecked(requests, count);
        } finally {
            requests.exit();
        }
    }

    /** {@link #postRecv} with every check, between the chain's {@code mark} and {@code exit}. */
    private int postRecvChecked(RecvChain requests, int count) {
        if (receivesFromSrq) {
            throw new IllegalStateException(this + " takes its receives from " + config.srq()
                    + ": post them there (SharedReceiveQueue.postRecv)");
        }
        ensureOpen();
        requests.checkRegions(context, count);
        return requests.post(postRecvFunction, address, count, true);
    }

    /**
     * {@link #postSend} that throws {@link VerbsException} (naming {@code ibv_post_send}) instead of returning an error.
     *
     * @param requests the send requests, written through their {@link SendWorkRequest} flyweights; the
     *                 memory their entries name must stay registered until the requests' completions are
     *                 polled, while the chain itself may be rewritten as soon as this call returns
     * @param count    how many requests to post, from request 0: 1 to {@code requests.capacity()}
     * @throws VerbsException if the provider refused a request; the message names it (the requests before it
     *                        were posted) and the queue pair's state
     */
    public void postSendOrThrow(SendChain requests, int count) {
        int rc = postSend(requests, count);
        if (rc != 0) {
            throw postFailure("ibv_post_send", rc, requests, count);
        }
    }

    /**
     * {@link #postRecv} that throws {@link VerbsException} (naming {@code ibv_post_recv}) instead of returning an error.
     *
     * @param requests the receive requests; the buffers their entries name must stay registered until the
     *                 requests' completions are polled, while the chain itself may be rewritten as soon as
     *                 this call returns
     * @param count    how many requests to post, from request 0: 1 to {@code requests.capacity()}
     * @throws VerbsException if the provider refused a request; the message names it (the requests before it
     *                        were posted) and the queue pair's state
     */
    public void postRecvOrThrow(RecvChain requests, int count) {
        int rc = postRecv(requests, count);
        if (rc != 0) {
            throw postFailure("ibv_post_recv", rc, requests, count);
        }
    }

    private VerbsException postFailure(String verb, int rc, WorkRequestChain requests, int count) {
        return new VerbsException(verb, rc, requests.describeFailure(count) + " on " + this + " in state " + state());
    }

    @Override
    public String toString() {
        return "QueuePair[" + config.type() + " 0x" + Integer.toHexString(qpNumber) + " on " + context.name() + "]";
    }
}
