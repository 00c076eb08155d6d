package org.panamaverbs.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import org.panamaverbs.ffi.ibv_pd;
import org.panamaverbs.ffi.ibverbs_h;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.ControlEvents;
import org.panamaverbs.internal.NativeFunction;
import org.panamaverbs.internal.Unchecked;

/**
 * {@code struct ibv_pd} from {@code ibv_alloc_pd}, freed with {@code ibv_dealloc_pd}. Memory regions and
 * queue pairs are created here; closing the domain closes them first.
 *
 * <p>Errors: {@link VerbsException} naming {@code ibv_alloc_pd}, {@code ibv_reg_mr} or
 * {@code ibv_create_qp} with the errno.
 */
public final class ProtectionDomain extends VerbsResource {
    private final Context context;
    /** The struct, unscoped: every internal use runs under the tree lock, which a close takes to free it. */
    private final MemorySegment handle;

    private static final class Native {
        static final MethodHandle ALLOC_PD = CallState.capturingErrno(NativeFunction.IBV_ALLOC_PD);
    }

    private ProtectionDomain(Context context, MemorySegment handle) {
        super(context.treeLock(), context);
        this.context = context;
        this.handle = handle;
        MemorySegment raw = raw(handle);
        String what = toString();
        own(what, () -> check("ibv_dealloc_pd", ibverbs_h.ibv_dealloc_pd(raw), what));
    }

    /** Called by {@link Context#allocateProtectionDomain()} under the tree lock. */
    static ProtectionDomain allocate(Context context) {
        Object event = ControlEvents.begin(ControlEvents.Kind.PROTECTION_DOMAIN_CREATE);
        try (CallState state = CallState.open()) {
            MemorySegment pd = (MemorySegment) Native.ALLOC_PD.invokeExact(state.segment(), context.handle());
            if (pd.equals(MemorySegment.NULL)) {
                throw new VerbsException("ibv_alloc_pd", state.errno(), "device " + context.name()
                        + " (max_pd " + context.attributes().maxPd() + ")");
            }
            // the struct's size, so that handle() reads its fields (context, handle) as the other objects' do
            ProtectionDomain created = new ProtectionDomain(context, pd.reinterpret(ibv_pd.layout().byteSize()));
            ControlEvents.protectionDomainCreated(event, context.name(), created.toString());
            return created;
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /** {@return the context this domain belongs to} */
    public Context context() {
        return context;
    }

    /**
     * The native {@code struct ibv_pd *}, for C code: pass it to a C function through a downcall (which keeps
     * this domain from being freed until the call returns) or read its fields. The view is read-only: a write
     * through it throws {@link IllegalArgumentException} ("Attempt to write a read-only segment"), because the
     * provider owns every field (a changed pointer or count would crash its next call, {@code ibv_destroy_*}
     * included). Freeing it is {@link #close()}'s job; after the close every access through the view throws
     * {@link IllegalStateException}.
     *
     * @return the handle as a read-only segment of {@code sizeof(struct ibv_pd)} bytes, valid while this domain is open
     * @throws IllegalStateException if this domain is closed
     */
    public MemorySegment handle() {
        ensureOpen();
        return scoped(handle);
    }

    /** The struct for the create calls, which run under the tree lock (a close frees it under the same lock). */
    MemorySegment handleUnchecked() {
        return handle;
    }

    /**
     * {@code ibv_reg_mr}: registers native memory of {@code memoryOwner}, tied to that arena's lifetime. When
     * the arena closes, the region closes first ({@code ibv_dereg_mr}, after waiting for posts in flight as
     * every close does), before the arena frees the memory: from then on the device refuses every access
     * through the region's keys. A receive already posted into the memory then completes with an error
     * status when a message arrives for it, instead of writing into memory that was handed out again
     * ({@link WcStatus#LOC_QP_OP_ERR} on rxe, {@link WcStatus#LOC_PROT_ERR} on most HCAs; the queue pair
     * moves to ERR, so its other requests flush, and the sender's request fails with
     * {@link WcStatus#REM_OP_ERR}), and a peer's RDMA READ or WRITE with the old rkey fails on the peer
     * ({@link WcStatus#REM_ACCESS_ERR}).
     * Posting a request that names the region after the arena closed is refused ({@link IllegalStateException}).
     *
     * <p>Call it on a thread that may add to the arena: any thread for a shared arena, the owner thread for a
     * confined one. For an automatic or the global arena nothing can close it while the region keeps the
     * memory reachable, so the region simply holds it. The region may be closed before the arena as usual.
     *
     * @param memoryOwner the arena {@code segment} was allocated from (its {@link Arena#scope()} is the
     *                    segment's)
     * @param segment     native memory of {@code memoryOwner}; heap segments are refused
     * @param access      what the region allows; {@link Access#REMOTE_WRITE} and {@link Access#REMOTE_ATOMIC}
     *                    need {@link Access#LOCAL_WRITE} (the verbs specification), so it is added for them
     * @return the region, owned by this domain; its {@link MemoryRegion#lkey()} goes into local entries and its
     *         {@link MemoryRegion#rkey()} and {@link MemoryRegion#address()} to a peer for remote access
     * @throws IllegalArgumentException for a heap or zero-length segment, one that is not memory of
     *                                  {@code memoryOwner}, or a read-only one with a write access
     * @throws IllegalStateException    if this domain is closed or the arena already is (or closed meanwhile)
     * @throws WrongThreadException     if {@code memoryOwner} is confined to another thread
     * @throws UnsupportedVerbException for remote access on QEMU's PVRDMA model, which has no RDMA WRITE/READ, and for
     *                                  {@link Access#ON_DEMAND} on a device without on-demand paging
     * @throws VerbsException           naming {@code ibv_reg_mr} and the errno (ENOMEM or EFAULT often mean the
     *                                  locked-memory limit, {@code ulimit -l}, is too low)
     */
    public MemoryRegion register(Arena memoryOwner, MemorySegment segment, Access... access) {
        if (!segment.scope().equals(memoryOwner.scope())) {
            throw new IllegalArgumentException("the segment is not memory of that arena: pass the arena it was"
                    + " allocated from, whose close must deregister the region before it frees the memory");
        }
        synchronized (treeLock()) {
            ensureOpen();
            return MemoryRegion.registerTied(this, memoryOwner, segment, Access.bits(access));
        }
    }

    /**
     * {@code ibv_reg_mr}: registers native memory that nothing frees while the region holds its segment: a
     * direct {@code ByteBuffer}'s ({@link MemorySegment#ofBuffer}), the global arena's, an automatic arena's, or
     * an address made into a segment with {@link MemorySegment#reinterpret(long)}, a restricted method whose
     * caller vouches for the memory. The region keeps the segment, and with it the memory, reachable until it is
     * closed, so the device never writes freed memory. Memory of an arena the caller can close is refused:
     * register it with {@link #register(Arena, MemorySegment, Access...)}, whose close deregisters the region
     * before it frees the memory.
     *
     * @param segment native memory of a scope that never closes; heap segments are refused (the device cannot
     *                address the Java heap)
     * @param access  what the region allows; {@link Access#REMOTE_WRITE} and {@link Access#REMOTE_ATOMIC}
     *                need {@link Access#LOCAL_WRITE} (the verbs specification), so it is added for them
     * @return the region, owned by this domain; its {@link MemoryRegion#lkey()} goes into local entries and its
     *         {@link MemoryRegion#rkey()} and {@link MemoryRegion#address()} to a peer for remote access
     * @throws IllegalArgumentException for a heap or zero-length segment, memory of an arena that can close, or a
     *                                  read-only segment with {@link Access#LOCAL_WRITE},
     *                                  {@link Access#REMOTE_WRITE} or {@link Access#REMOTE_ATOMIC}
     * @throws IllegalStateException    if this domain is closed
     * @throws UnsupportedVerbException for remote access on QEMU's PVRDMA model, which has no RDMA WRITE/READ, for
     *                                  {@link Access#RELAXED_ORDERING} on rdma-core before 28 (see {@link Rdma#rdmaCore()}),
     *                                  and for {@link Access#ON_DEMAND} on a device without on-demand paging
     *                                  ({@link Context#onDemandPaging()})
     * @throws VerbsException           naming {@code ibv_reg_mr} and the errno (ENOMEM or EFAULT often mean the
     *                                  locked-memory limit, {@code ulimit -l}, is too low)
     */
    public MemoryRegion register(MemorySegment segment, Access... access) {
        synchronized (treeLock()) {
            ensureOpen();
            return MemoryRegion.registerHeld(this, segment, Access.bits(access));
        }
    }

    /**
     * Allocates {@code size} bytes of zeroed, page-aligned native memory and registers them; the region
     * owns the memory and frees it when closed, so it can never outlive its registration.
     *
     * @param size   the number of bytes, at least 1; the allocation is aligned to 4096 bytes
     * @param access what the region allows, as for {@link #register(Arena, MemorySegment, Access...)}; none
     *               for local read only
     * @return the region; {@link MemoryRegion#segment()} is the memory to read and write
     * @throws IllegalArgumentException if {@code size} is not positive
     * @throws UnsupportedVerbException for remote access on QEMU's PVRDMA model, which has no RDMA WRITE/READ, for
     *                                  {@link Access#RELAXED_ORDERING} on rdma-core before 28 (see {@link Rdma#rdmaCore()}),
     *                                  and for {@link Access#ON_DEMAND} on a device without on-demand paging
     *                                  ({@link Context#onDemandPaging()})
     * @throws VerbsException           naming {@code ibv_reg_mr} and the errno
     */
    public MemoryRegion allocateAndRegister(long size, Access... access) {
        if (size <= 0) {
            throw new IllegalArgumentException("a memory region needs at least one byte, not " + size);
        }
        synchronized (treeLock()) {
            ensureOpen();
            Arena arena = Arena.ofShared();
            try {
                MemorySegment memory = arena.allocate(size, MemoryRegion.PAGE_SIZE);
                return MemoryRegion.register(this, memory, arena, Access.bits(access));
            } catch (RuntimeException e) {
                arena.close();
                throw e;
            }
        }
    }

    /**
     * {@code ibv_alloc_null_mr}: a null memory region, whose local key makes the device discard what it would write
     * and read zeros where it would read: traffic that touches no memory, to measure the network alone (perftest's
     * {@code --use-null-mr}). Its entries ({@link MemoryRegion#sge}) point into {@code length} bytes of zeroed memory
     * the region owns and frees when closed, which the device never touches; a provider that copies inline data in
     * user space copies those zeros. Only the local key is valid: {@link MemoryRegion#rkey()} throws.
     *
     * @param length the bytes entries may cover, at least 1; the memory is aligned to 4096 bytes
     * @return the region, owned by this domain, with {@link MemoryRegion#isNullRegion()} true
     * @throws IllegalArgumentException if {@code length} is not positive
     * @throws IllegalStateException    if this domain is closed
     * @throws UnsupportedVerbException if the device has no null regions: a provider without the operation (rxe,
     *                                  PVRDMA and most others; mlx5 has it) or a libibverbs older than it
     * @throws VerbsException           naming {@code ibv_alloc_null_mr} and the errno of another failure
     */
    public MemoryRegion allocateNullRegion(long length) {
        if (length <= 0) {
            throw new IllegalArgumentException("a null region needs at least one byte for its entries, not " + length);
        }
        synchronized (treeLock()) {
            ensureOpen();
            return NullRegions.allocate(this, length);
        }
    }

    /**
     * {@code ibv_create_qp}: a queue pair in this domain, in state RESET. Connect it with
     * {@link QueuePair#connect(QpEndpoint)} or {@link QueuePair#connectLoopback(QueuePair, QueuePair)}.
     *
     * @param config the type, completion queues, capacities and port; its completion queues (and shared
     *               receive queue) must be open and belong to this domain's context
     * @return the queue pair, owned by this domain and closed before its completion queues; its
     *         {@link QueuePair#capabilities()} are what the device granted, which may exceed what was asked
     * @throws IllegalArgumentException if the capacities exceed the device's limits, the port does not exist,
     *                                  or a queue belongs to another context
     * @throws IllegalStateException    if this domain or a queue {@code config} names is closed
     * @throws UnsupportedVerbException for a type other than RC and UD, or what the device's policy refuses
     *                                  (inline data, a UD queue pair beyond PVRDMA's limit)
     * @throws VerbsException           naming {@code ibv_create_qp} and the errno
     */
    public QueuePair createQueuePair(QpConfig config) {
        synchronized (treeLock()) {
            ensureOwnersOpen(config);
            return QueuePair.create(this, config);
        }
    }

    /** A queue pair made by {@code creator} and held by {@code owner}, which frees it through {@code giveBack}. */
    QueuePair createQueuePair(QpConfig config, org.panamaverbs.internal.QpCreator creator, String owner, Runnable giveBack) {
        synchronized (treeLock()) {
            ensureOwnersOpen(config);
            QueuePair qp = QueuePair.create(this, config, creator);
            qp.heldBy(owner, qp.detachingBefore(giveBack));
            return qp;
        }
    }

    void ensureOwnersOpen(QpConfig config) {
        ensureOpen();
        config.sendCq().ensureOpen();
        config.recvCq().ensureOpen();
        if (config.srq() != null) {
            config.srq().ensureOpen();
        }
    }

    /**
     * {@code ibv_create_srq}: a shared receive queue in this domain.
     *
     * @param maxWr  how many receive requests the queue holds, 1 to the device's {@code max_srq_wr}
     * @param maxSge scatter-gather entries per receive request, 1 to the device's {@code max_srq_sge}
     * @return the queue, owned by this domain; give it to queue pairs with {@link QpConfig.Builder#srq}
     * @throws UnsupportedVerbException if the device has no shared receive queues ({@code max_srq} 0), or its
     *                                  provider no {@code post_srq_recv} operation
     * @throws IllegalArgumentException beyond {@code max_srq_wr} / {@code max_srq_sge}
     * @throws VerbsException           naming {@code ibv_create_srq} and the errno
     */
    public SharedReceiveQueue createSharedReceiveQueue(int maxWr, int maxSge) {
        synchronized (treeLock()) {
            ensureOpen();
            return SharedReceiveQueue.create(this, maxWr, maxSge);
        }
    }

    /**
     * {@code ibv_create_ah}: an address handle for unreliable-datagram sends, owned by this domain.
     *
     * @param target where datagrams go: destination GID (and LID on InfiniBand), local port and source GID
     *               index; see {@link AddressHandle.Target#of(Gid, int, int)}
     * @return the handle, for {@link SendWorkRequest#ud(AddressHandle, int, int)}
     * @throws IllegalArgumentException for a port the device does not have
     * @throws VerbsException           for a GID index with no GID ({@code ibv_query_gid}) or a refused handle
     */
    public AddressHandle createAddressHandle(AddressHandle.Target target) {
        synchronized (treeLock()) {
            ensureOpen();
            return AddressHandle.create(this, target);
        }
    }

    @Override
    public String toString() {
        return "ProtectionDomain[" + context.name() + "]";
    }
}
