package org.panamaverbs.verbs;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import org.panamaverbs.ffi.ibv_context;
import org.panamaverbs.ffi.ibverbs_h;
import org.panamaverbs.internal.DataPath;
import org.panamaverbs.internal.NativeLibrary;
import org.panamaverbs.internal.VerbsSymbols;

/**
 * An open RDMA device: {@code struct ibv_context} from {@code ibv_open_device}, closed with
 * {@code ibv_close_device}. The root of the resource tree: protection domains and completion queues
 * are created here, and closing the context closes them (see {@link VerbsResource}).
 *
 * <p>Obtain one from {@link Rdma#open(String)} or {@link Rdma#openFirst()}. The provider's data-path
 * function pointers ({@code ops.poll_cq}, {@code ops.post_send}, {@code ops.post_recv}) are read once
 * here and used by every queue pair and completion queue of the context.
 *
 * <p>Errors: {@link VerbsException} naming {@code ibv_open_device}, {@code ibv_query_device},
 * {@code ibv_query_port} or {@code ibv_query_gid_table} with the errno.
 */
public final class Context extends VerbsResource {
    private final MemorySegment handle;
    private final RdmaDevice device;
    /** The libibverbs functions newer than rdma-core 17 that this context may call (absent ones have fallbacks). */
    private final VerbsSymbols symbols;
    private final DeviceAttributes attributes;
    private DeviceProfile profile;
    private DevicePolicy policy;
    final MemorySegment pollCqFunction;
    final MemorySegment postSendFunction;
    final MemorySegment postRecvFunction;
    final MemorySegment reqNotifyCqFunction;
    final MemorySegment postSrqRecvFunction;
    private final AsyncEventDispatcher asyncEvents;
    /** Frees the tree if this context is lost without close (see {@link Backstop}). */
    private final java.lang.ref.Cleaner.Cleanable backstopWatch;
    private final int completionVectors;
    /**
     * Moves on each time a memory region of this context closes (under the tree lock): chains compare it at
     * every post to know whether the regions their entries name may have closed since they last checked. Its
     * values come from {@link #GENERATIONS}, so no two contexts ever have the same one: a chain's proof naming a
     * generation names the context too, and a post compares one number instead of a context and a number.
     */
    volatile long regionGeneration = GENERATIONS.incrementAndGet();
    /** The source of every context's region generations: 1, 2, ... (0 is no generation). */
    private static final java.util.concurrent.atomic.AtomicLong GENERATIONS = new java.util.concurrent.atomic.AtomicLong();

    static {
        org.panamaverbs.internal.VerbsBridge.register(new VerbsBridgeImpl());
    }

    /**
     * Called by {@link ContextOpener} only.
     */
    Context(MemorySegment handle, RdmaDevice device, VerbsSymbols symbols) {
        super(new Backstop(device.name()));
        this.handle = scoped(handle);
        this.device = device;
        this.symbols = symbols;
        this.pollCqFunction = DataPath.opsPointer(handle, DataPath.POLL_CQ_OFFSET);
        this.postSendFunction = DataPath.opsPointer(handle, DataPath.POST_SEND_OFFSET);
        this.postRecvFunction = DataPath.opsPointer(handle, DataPath.POST_RECV_OFFSET);
        this.reqNotifyCqFunction = DataPath.opsPointer(handle, DataPath.REQ_NOTIFY_CQ_OFFSET);
        this.postSrqRecvFunction = DataPath.opsPointer(handle, DataPath.POST_SRQ_RECV_OFFSET);
        this.attributes = DeviceAttributesQuery.query(this.handle, device.name());
        // vector 0 always exists: a provider that leaves the count 0 still takes it
        this.completionVectors = Math.max(1, ibv_context.num_comp_vectors(this.handle));
        this.asyncEvents = new AsyncEventDispatcher(this, this.handle);
        MemorySegment raw = raw(handle);
        String name = device.name();
        own(toString(), () -> check("ibv_close_device", ibverbs_h.ibv_close_device(raw), "device " + name));
        this.backstopWatch = treeLock().watch(this);
    }

    /** Sets the profile {@link ContextOpener} chose, and the gates it implies; once, right after construction. */
    void applyProfile(DeviceProfile chosen) {
        this.profile = chosen;
        this.policy = chosen.policy(attributes, device.name());
    }

    /**
     * Refuses what would call {@code function}, a provider operation the data path calls directly, when the
     * provider left it NULL (a call through it would crash).
     *
     * @throws UnsupportedVerbException naming {@code verb} and the missing operation
     */
    void requireOperation(MemorySegment function, String verb, String operation) {
        if (function.equals(MemorySegment.NULL)) {
            throw policy.refused(new UnsupportedVerbException(verb, "the " + device.name() + " provider has no "
                    + operation + " operation (ibv_context.ops." + operation + " is NULL)",
                    "use a device whose rdma-core provider implements it"));
        }
    }

    /** {@return the device this context was opened on: its name, GUID and transport} */
    public RdmaDevice device() {
        return device;
    }

    /** {@return the device name, e.g. {@code "rxe0"}, as {@code ibv_get_device_name} gives it} */
    public String name() {
        return device.name();
    }

    /**
     * What this device allows, detected when the context opened (or emulated: see {@link DeviceProfile}).
     * Log it: {@code profile().reasons()} says why the class was chosen.
     *
     * @return the profile, fixed for the life of the context
     */
    public DeviceProfile profile() {
        return profile;
    }

    /**
     * What this context allows, one {@link CapabilityVerdict} per {@link Capability}, under its profile (detected
     * or emulated): allowed, limited, refused with the exact message the refusing verb's gate throws, or absent.
     * Asks the same gates the verbs ask ({@code DevicePolicy}), the port GID tables ({@code ibv_query_gid_table})
     * and whether librdmacm loads; creates nothing on the device.
     *
     * @return one verdict per {@link Capability}, in the enum's declaration order; an immutable list
     * @throws IllegalStateException if the context is closed
     * @throws VerbsException naming {@code ibv_query_port} or {@code ibv_query_gid_table} if a query fails
     */
    public List<CapabilityVerdict> capabilities() {
        ensureOpen();
        return policy.verdicts(GidTableQuery.ofAllPorts(this), NativeLibrary.probe(NativeLibrary.RDMACM));
    }

    /** Called by a closing memory region of this context, under the tree lock. */
    void regionClosed() {
        long generation = GENERATIONS.incrementAndGet();
        regionGeneration = generation;
        // the queues' fast-path stamps follow, so a post reads one field of its target instead of this one
        ResourceTreeWalk.forEachPostTarget(this, generation);
    }

    /** The gates of this context's profile, consulted by every verb. */
    DevicePolicy policy() {
        return policy;
    }

    /** Live UD queue pairs of this context, for the HWv13 limit. */
    int liveUdQueuePairs() {
        return ResourceTreeWalk.countUdQueuePairs(this);
    }

    /**
     * {@code ibv_query_device}, read once when the context opened.
     *
     * @return the device's identity and limits; not queried again, so no call to the device and usable after close
     */
    public DeviceAttributes attributes() {
        return attributes;
    }

    /**
     * The native {@code struct ibv_context *}, for C code: pass it to a C function through a downcall (which keeps
     * this context from being freed until the call returns) or read its fields. The view is read-only: a write
     * through it throws {@link IllegalArgumentException} ("Attempt to write a read-only segment"), because the
     * provider owns every field (a changed pointer or count would crash its next call, {@code ibv_destroy_*}
     * included). Freeing it is {@link #close()}'s job; after the close every access through the view throws
     * {@link IllegalStateException}.
     *
     * @return the handle as a read-only segment of {@code sizeof(struct ibv_context)} bytes, valid while this context is open
     * @throws IllegalStateException if this context is closed
     */
    public MemorySegment handle() {
        ensureOpen();
        return handle;
    }

    /**
     * {@code ibv_query_port}. In C this is a macro over the inline {@code ___ibv_query_port}:
     * <pre>{@code
     * struct verbs_context *vctx = verbs_get_ctx_op(context, query_port);
     * if (!vctx) {
     *     memset(port_attr, 0, sizeof(*port_attr));
     *     return ibv_query_port(context, port_num, (struct _compat_ibv_port_attr *)port_attr);
     * }
     * return vctx->query_port(context, port_num, port_attr, sizeof(*port_attr));
     * }</pre>
     * re-implemented here, with {@code verbs_get_ctx_op} reading {@code abi_compat}, {@code sz} and the
     * operation pointer as C does.
     *
     * @param port the port number, from 1 to {@link DeviceAttributes#physicalPortCount()}
     * @return the port's state and limits now (queried on every call: state and active MTU may change)
     * @throws IllegalArgumentException for a port the device does not have
     * @throws IllegalStateException    if the context is closed
     * @throws VerbsException           if the provider fails the query
     */
    public PortAttributes queryPort(int port) {
        ensureOpen();
        checkPort(port);
        return PortAttributesQuery.query(handle, port, device.name());
    }

    /**
     * What on-demand paging the device offers: the {@code odp_caps} of {@code ibv_query_device_ex}, an inline
     * function in C re-implemented here as {@link #queryPort} is (the provider's {@code query_device_ex} through the
     * extended context; none when the provider or libibverbs lacks it, as in C). Check it before registering with
     * {@link Access#ON_DEMAND}, which a device without it refuses.
     *
     * @return the device's ODP capabilities, queried on each call
     * @throws IllegalStateException if the context is closed
     * @throws VerbsException        naming {@code ibv_query_device_ex} if the provider fails the query
     */
    public OnDemandPaging onDemandPaging() {
        ensureOpen();
        return OnDemandPagingQuery.query(handle, device.name());
    }

    /**
     * The populated entries of a port's GID table, with their types ({@code _ibv_query_gid_table},
     * which the inline {@code ibv_query_gid_table} calls with {@code sizeof(struct ibv_gid_entry)}). On a libibverbs
     * older than rdma-core 32, which lacks it, each slot is read with {@code ibv_query_gid} and the type and network
     * device of the populated ones from sysfs, by the rules libibverbs' own sysfs fallback follows.
     *
     * @param port the port number, from 1 to {@link DeviceAttributes#physicalPortCount()}
     * @return the populated entries of that port, in the order {@code ibv_query_gid_table} returns them
     *         (empty slots are not returned); an immutable list, read anew on each call
     * @throws IllegalArgumentException for a port the device does not have
     * @throws IllegalStateException    if the context is closed
     * @throws VerbsException           naming {@code ibv_query_port}, {@code ibv_query_gid_table} or (older
     *                                  libibverbs) {@code ibv_query_gid} if a query fails
     */
    public List<GidEntry> gidTable(int port) {
        ensureOpen();
        checkPort(port);
        return GidTableQuery.ofPort(this, port);
    }

    /** The libibverbs functions this context calls that older rdma-core releases lack (absent ones have fallbacks). */
    VerbsSymbols symbols() {
        return symbols;
    }

    /**
     * The GID index to use on {@code port} when none is given: on RoCE the first RoCE v2 entry holding
     * an IPv4-mapped address (routable, what {@code ib_write_bw -x} users pick), else the first RoCE v2
     * entry, else the first entry; on InfiniBand, 0.
     *
     * @param port the port number, from 1 to {@link DeviceAttributes#physicalPortCount()}
     * @return the chosen index of {@code port}'s GID table, what a {@link QpConfig} with GID index -1 uses;
     *         0 when the table has no populated entry
     * @throws IllegalArgumentException for a port the device does not have
     * @throws VerbsException           if reading the GID table fails
     */
    public int defaultGidIndex(int port) {
        return GidSelector.defaultIndex(gidTable(port));
    }

    /**
     * The GID at {@code index} of {@code port}'s table.
     *
     * @param port  the port number, from 1 to {@link DeviceAttributes#physicalPortCount()}
     * @param index the GID index ({@code sgid_index}), as {@link GidEntry#index()} gives it
     * @return the GID in that slot
     * @throws IllegalArgumentException for a port the device does not have
     * @throws VerbsException if the slot is empty or out of range (ENODATA; the message lists the populated
     *                        indices)
     */
    public Gid gid(int port, int index) {
        for (GidEntry entry : gidTable(port)) {
            if (entry.index() == index) {
                return entry.gid();
            }
        }
        throw new VerbsException("ibv_query_gid", Errno.ENODATA, "device " + device.name() + " port " + port
                + " has no GID at index " + index + "; populated: " + gidTable(port).stream().map(GidEntry::index).toList());
    }

    /** @throws IllegalArgumentException naming the device's ports, for a port it does not have */
    void checkPort(int port) {
        if (port < 1 || port > attributes.physicalPortCount()) {
            throw new IllegalArgumentException("device " + device.name() + " has ports 1.."
                    + attributes.physicalPortCount() + ", not " + port);
        }
    }

    /**
     * {@code ibv_alloc_pd}: a protection domain, owned by this context.
     *
     * @return the new protection domain; closing this context closes it
     * @throws IllegalStateException if the context is closed
     * @throws VerbsException naming {@code ibv_alloc_pd} and the errno (ENOMEM past {@code max_pd})
     */
    public ProtectionDomain allocateProtectionDomain() {
        synchronized (treeLock()) {
            ensureOpen();
            return ProtectionDomain.allocate(this);
        }
    }

    /**
     * {@code ibv_create_cq(context, cqe, NULL, NULL, 0)}: a completion queue of at least {@code minEntries}
     * entries, owned by this context.
     *
     * @param minEntries at least 1, at most {@link DeviceAttributes#maxCqe()}
     * @return the new completion queue, with {@link CompletionQueue#capacity()} of at least {@code minEntries};
     *         it has no channel, so it is polled, never awaited
     * @throws IllegalArgumentException outside those bounds
     * @throws IllegalStateException if the context is closed
     * @throws VerbsException naming {@code ibv_create_cq} and the errno
     */
    public CompletionQueue createCompletionQueue(int minEntries) {
        return createCompletionQueue(minEntries, null);
    }

    /**
     * {@code ibv_create_cq(context, cqe, NULL, channel, 0)}: a completion queue that signals {@code channel}
     * when armed ({@link CompletionQueue#requestNotification(boolean)}); it depends on the channel.
     *
     * @param minEntries the number of completions the queue must hold: at least 1, at most
     *                   {@link DeviceAttributes#maxCqe()}; size it for every request that may be outstanding
     *                   on the queue pairs using it
     * @param channel    a channel of this context, or null for none
     * @return the new completion queue, with {@link CompletionQueue#capacity()} of at least {@code minEntries}
     * @throws IllegalArgumentException if {@code minEntries} is out of bounds or {@code channel} belongs to
     *                                  another context
     * @throws IllegalStateException    if the context or the channel is closed
     * @throws UnsupportedVerbException with a channel, if the provider has no {@code req_notify_cq} operation
     * @throws VerbsException           naming {@code ibv_create_cq} and the errno
     */
    public CompletionQueue createCompletionQueue(int minEntries, CompletionChannel channel) {
        return createCompletionQueue(minEntries, channel, 0);
    }

    /**
     * {@code ibv_create_cq(context, cqe, NULL, channel, comp_vector)}: as
     * {@link #createCompletionQueue(int, CompletionChannel)}, with the completion vector that signals the channel.
     * A device with several vectors (one interrupt each) spreads event-driven queues over CPUs by giving each
     * queue its own; the vector matters only with a channel (Soft-RoCE offers one per CPU, PVRDMA one).
     *
     * @param minEntries       as for {@link #createCompletionQueue(int, CompletionChannel)}
     * @param channel          a channel of this context, or null for none
     * @param completionVector 0 to {@link #completionVectors()} - 1
     * @return the new completion queue
     * @throws IllegalArgumentException if {@code completionVector} is not one of the device's, or as for
     *                                  {@link #createCompletionQueue(int, CompletionChannel)}
     * @throws IllegalStateException    if the context or the channel is closed
     * @throws UnsupportedVerbException with a channel, if the provider has no {@code req_notify_cq} operation
     * @throws VerbsException           naming {@code ibv_create_cq} and the errno
     */
    public CompletionQueue createCompletionQueue(int minEntries, CompletionChannel channel, int completionVector) {
        if (channel != null && channel.context() != this) {
            throw new IllegalArgumentException(channel + " belongs to another context");
        }
        if (minEntries < 1 || minEntries > attributes.maxCqe()) {
            throw new IllegalArgumentException("completion queue size " + minEntries + " is outside 1.."
                    + attributes.maxCqe() + " (max_cqe of " + device.name() + ")");
        }
        synchronized (treeLock()) {
            ensureOpen();
            if (channel != null) {
                channel.ensureOpen();
                // requestNotification calls ops.req_notify_cq directly
                requireOperation(reqNotifyCqFunction, "ibv_req_notify_cq", "req_notify_cq");
            }
            if (completionVector < 0 || completionVector >= completionVectors()) {
                // the kernel would refuse it with a bare EINVAL
                throw new IllegalArgumentException("completion vector " + completionVector + " is outside 0.."
                        + (completionVectors() - 1) + " (num_comp_vectors of " + device.name() + ")");
            }
            return CompletionQueue.create(this, minEntries, channel, completionVector);
        }
    }

    /**
     * {@code ibv_context.num_comp_vectors}: how many completion vectors the device offers
     * ({@link #createCompletionQueue(int, CompletionChannel, int)}), read when the context opened.
     *
     * @return at least 1 on every device
     */
    public int completionVectors() {
        return completionVectors;
    }

    /**
     * {@code ibv_create_comp_channel}: a completion channel owned by this context, for event-driven
     * completion queues.
     *
     * @return the new channel; closing this context closes it
     * @throws IllegalStateException if the context is closed
     * @throws VerbsException naming {@code ibv_create_comp_channel} and the errno
     */
    public CompletionChannel createCompletionChannel() {
        synchronized (treeLock()) {
            ensureOpen();
            return CompletionChannel.create(this);
        }
    }

    /**
     * {@code ibv_get_async_event} on demand: waits up to {@code timeout} for the next asynchronous event of
     * this device (the waiting thread parks; see {@link CompletionChannel}), acknowledges it with
     * {@code ibv_ack_async_event} and returns it with the object it concerns. With a listener registered
     * ({@link #addAsyncEventListener}), this competes with its dispatcher thread: each event goes to one of them.
     *
     * @param timeout how long to wait at most; zero or negative makes one non-blocking attempt; not null
     * @return the event, or null on timeout or if the thread is interrupted (its interrupt status stays set)
     * @throws IllegalStateException if the context is closed, including by another thread while this one waits
     * @throws VerbsException naming {@code ibv_get_async_event} if reading the event fails
     */
    public AsyncEvent awaitAsyncEvent(Duration timeout) {
        return asyncEvents.await(timeout.toNanos());
    }

    /**
     * Delivers every asynchronous event of this device to {@code listener}, on a virtual thread
     * ("panama-verbs-async-DEVICE") started with the first listener and ended when the context closes.
     * Events are acknowledged before listeners see them. A listener that throws is reported to the
     * thread's uncaught exception handler and stays registered.
     *
     * @param listener called with each event on the dispatcher thread, in order; it should return quickly,
     *                 since the next event waits for it; not null
     * @throws IllegalStateException if the context is closed
     * @throws NullPointerException  if {@code listener} is null
     */
    public void addAsyncEventListener(Consumer<AsyncEvent> listener) {
        asyncEvents.addListener(listener);
    }

    /**
     * Stops delivering events to {@code listener}. The dispatcher thread keeps running, and reading events,
     * until the context closes.
     *
     * @param listener a listener given to {@link #addAsyncEventListener}; any other value is ignored
     */
    public void removeAsyncEventListener(Consumer<AsyncEvent> listener) {
        asyncEvents.removeListener(listener);
    }

    /** A thread in {@link #awaitAsyncEvent} is woken by the close, after the flag is set, and throws. */
    @Override
    void beforeHandshake() {
        asyncEvents.wakeWaiters();
    }

    /** Closed: the backstop has nothing left to watch, and the dispatcher (if any) is woken to end. */
    @Override
    void afterClose() {
        backstopWatch.clean();
        asyncEvents.stop();
    }

    @Override
    public String toString() {
        return "Context[" + device.name() + "]";
    }
}
