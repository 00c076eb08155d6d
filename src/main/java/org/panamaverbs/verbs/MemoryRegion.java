package org.panamaverbs.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;

import org.panamaverbs.ffi.ibv_mr;
import org.panamaverbs.ffi.ibverbs_h;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.ControlEvents;
import org.panamaverbs.internal.NativeFunction;
import org.panamaverbs.internal.Unchecked;
import org.panamaverbs.internal.VerbsSymbols;

/**
 * {@code struct ibv_mr}: native memory registered with the device, from {@code ibv_reg_mr}, closed with
 * {@code ibv_dereg_mr}. Gives the local key (for scatter-gather entries), the remote key and address
 * (for a peer's RDMA READ/WRITE), and bounds-checked slices.
 *
 * <p>{@code ibv_reg_mr} is a macro in verbs.h that ends in the exported
 * {@code ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, access)} whenever the access flags are not a
 * compile-time constant, which from Java they never are; that is what is called here. rdma-core before 28 has
 * no {@code ibv_reg_mr_iova2}: there the exported {@code ibv_reg_mr(pd, addr, length, access)} is called, which
 * registers the same region but knows no optional access flags, so a registration asking for one
 * ({@link Access#RELAXED_ORDERING}) is refused there, naming the release that has them.
 *
 * <p>Memory lifetime: a region made by {@link ProtectionDomain#register(Arena, MemorySegment, Access...)}
 * is tied to the arena of its memory, whose close closes the region before it frees the memory; one made by
 * {@link ProtectionDomain#allocateAndRegister} owns its memory and frees it after deregistration; one made by
 * {@link ProtectionDomain#register(MemorySegment, Access...)} holds memory that nothing frees while it is reachable
 * (a direct {@code ByteBuffer}'s, the global or an automatic arena's). The memory of an open region is therefore
 * always alive, and a post reads no liveness.
 *
 * <p>A null region ({@link ProtectionDomain#allocateNullRegion}, {@code ibv_alloc_null_mr}) has a local key only:
 * the device discards what a request would write through it and reads zeros. Its entries point into memory the
 * region owns, which the device never touches, so that what a provider reads in user space (inline data) is real.
 */
public final class MemoryRegion extends VerbsResource {
    /** Alignment of memory the library allocates for regions. */
    static final long PAGE_SIZE = 4096;

    private final ProtectionDomain pd;
    private final Context context;
    private final MemorySegment segment;
    private final Arena ownedMemory;
    private final int lkey;
    private final int rkey;
    private final int access;
    /** Whether this is a null region, whose key the device reads as no memory ({@code ibv_alloc_null_mr}). */
    private final boolean nullRegion;
    /** The arena's ties, for a region {@link #registerTied} made; it leaves them when closed. */
    private ArenaTies ties;

    private static final class Native {
        /** The exported {@code ibv_reg_mr} (IBVERBS_1.1), for a libibverbs without {@code ibv_reg_mr_iova2}. */
        static final MethodHandle REG_MR = CallState.capturingErrno(NativeFunction.IBV_REG_MR);
    }

    private MemoryRegion(ProtectionDomain pd, MemorySegment handle, MemorySegment segment, Arena ownedMemory, int access) {
        this(pd, handle, segment, ownedMemory, access, false);
    }

    private MemoryRegion(ProtectionDomain pd, MemorySegment handle, MemorySegment segment, Arena ownedMemory, int access,
            boolean nullRegion) {
        super(pd.treeLock(), pd);
        this.pd = pd;
        this.context = pd.context();
        this.segment = segment;
        this.ownedMemory = ownedMemory;
        this.lkey = ibv_mr.lkey(handle);
        this.rkey = ibv_mr.rkey(handle);
        this.access = access;
        this.nullRegion = nullRegion;
        String what = toString();
        Arena memory = ownedMemory; // a local: the lambda must not capture this region
        own(what, () -> {
            check("ibv_dereg_mr", ibverbs_h.ibv_dereg_mr(handle), what);
            if (memory != null) {
                memory.close(); // only once deregistered: the device may use it until then
            }
        });
    }

    /**
     * Registers memory of {@code memoryOwner} and ties the region to it ({@link ArenaTies}): the arena's close
     * closes the region before it frees the memory.
     */
    static MemoryRegion registerTied(ProtectionDomain pd, Arena memoryOwner, MemorySegment segment, int access) {
        requireRegistrable(segment, access); // before the tie, so that a refused segment adds nothing to the arena
        // first, so that a thread the arena refuses (a confined arena's other threads) registers nothing
        ArenaTies ties = ArenaTies.of(memoryOwner);
        MemoryRegion region = register(pd, segment, null, access);
        region.ties = ties;
        if (!ties.tie(region)) { // the arena closed while the region was being registered: undo it
            region.close();
            throw new IllegalStateException("the arena of " + region + " was closed while it was being registered");
        }
        return region;
    }

    /**
     * Registers memory that nothing frees while the region holds its segment.
     *
     * @throws IllegalArgumentException if the segment's scope is a closeable arena's (or one this JDK's classes
     *                                  do not show to be never-closing)
     */
    static MemoryRegion registerHeld(ProtectionDomain pd, MemorySegment segment, int access) {
        requireRegistrable(segment, access);
        if (!segment.scope().isAlive()) {
            throw new IllegalStateException("the segment's arena is already closed");
        }
        if (NeverClosingScopes.mayClose(segment.scope())) {
            throw new IllegalArgumentException("the segment is memory of an arena that can close, which would free it"
                    + " under the device: register it with register(arena, segment), whose close deregisters first");
        }
        return register(pd, segment, null, access);
    }

    /**
     * Refuses what the device must not be given: heap or empty segments, and a read-only segment with an access
     * that lets the device write it (a read-only view may be the library's own, such as {@code cq.handle()}).
     */
    private static void requireRegistrable(MemorySegment segment, int access) {
        if (!segment.isNative()) {
            throw new IllegalArgumentException("only native memory can be registered: the device cannot address a"
                    + " heap segment, which the garbage collector may move (allocate with an Arena instead)");
        }
        if (segment.byteSize() == 0) {
            throw new IllegalArgumentException("a memory region needs at least one byte; the segment is empty");
        }
        int writes = Access.LOCAL_WRITE.bit() | Access.REMOTE_WRITE.bit() | Access.REMOTE_ATOMIC.bit();
        if (segment.isReadOnly() && (access & writes) != 0) {
            throw new IllegalArgumentException("the segment is read-only, and LOCAL_WRITE, REMOTE_WRITE or"
                    + " REMOTE_ATOMIC would let the device write it: register writable memory, or this one without"
                    + " write access");
        }
    }

    static MemoryRegion register(ProtectionDomain pd, MemorySegment segment, Arena ownedMemory, int access) {
        requireRegistrable(segment, access);
        if (!segment.scope().isAlive()) {
            throw new IllegalStateException("the segment's arena is already closed");
        }
        pd.context().policy().requireRemoteAccess(access);
        if ((access & (Access.REMOTE_WRITE.bit() | Access.REMOTE_ATOMIC.bit())) != 0) {
            access |= Access.LOCAL_WRITE.bit();
        }
        VerbsSymbols symbols = pd.context().symbols();
        UnsupportedVerbException tooOld = optionalAccessRefusal(symbols, access);
        if (tooOld != null) {
            throw pd.context().policy().refused(tooOld);
        }
        UnsupportedVerbException noPaging = onDemandRefusal(pd.context(), access);
        if (noPaging != null) {
            throw pd.context().policy().refused(noPaging);
        }
        MethodHandle regMrIova2 = symbols.handle(VerbsSymbols.Newer.REG_MR_IOVA2);
        Object event = ControlEvents.begin(ControlEvents.Kind.MEMORY_REGION_CREATE);
        try (CallState state = CallState.open()) {
            MemorySegment mr = regMrIova2 != null
                    ? (MemorySegment) regMrIova2.invokeExact(state.segment(), pd.handleUnchecked(), segment, segment.byteSize(),
                            segment.address(), access)
                    : (MemorySegment) Native.REG_MR.invokeExact(state.segment(), pd.handleUnchecked(), segment, segment.byteSize(),
                            access);
            if (mr.equals(MemorySegment.NULL)) {
                DeviceAttributes limits = pd.context().attributes();
                throw new VerbsException("ibv_reg_mr", state.errno(), "registering " + segment.byteSize()
                        + " bytes at 0x" + Long.toHexString(segment.address()) + " with access 0x"
                        + Integer.toHexString(access) + " (max_mr_size " + limits.maxMrSize() + ", max_mr "
                        + limits.maxMr() + "; ENOMEM/EFAULT often mean RLIMIT_MEMLOCK is too low: ulimit -l)");
            }
            MemoryRegion created = new MemoryRegion(pd, mr.reinterpret(ibv_mr.layout().byteSize()), segment, ownedMemory,
                    access);
            ControlEvents.memoryRegionCreated(event, pd.context().name(), created.toString(), segment.byteSize(), access,
                    created.lkey, created.rkey, ownedMemory != null);
            return created;
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /**
     * A null region of {@code pd} from {@code mr}, the provider's {@code struct ibv_mr *}, whose entries point into
     * {@code memory} of {@code arena}, which it frees after {@code ibv_dereg_mr} ({@link NullRegions}).
     */
    static MemoryRegion ofNull(ProtectionDomain pd, MemorySegment mr, MemorySegment memory, Arena arena) {
        return new MemoryRegion(pd, mr.reinterpret(ibv_mr.layout().byteSize()), memory, arena, 0, true);
    }

    /**
     * The refusal of a registration with an optional access flag ({@code IBV_ACCESS_OPTIONAL_RANGE}, e.g.
     * {@link Access#RELAXED_ORDERING}) by a libibverbs without {@code ibv_reg_mr_iova2}, whose {@code ibv_reg_mr}
     * would pass the flag to a kernel that may refuse it or, worse, misread it; null when {@code symbols} has
     * {@code ibv_reg_mr_iova2} or {@code access} has no optional flag.
     */
    static UnsupportedVerbException optionalAccessRefusal(VerbsSymbols symbols, int access) {
        if (symbols.handle(VerbsSymbols.Newer.REG_MR_IOVA2) != null || (access & VerbsSymbols.ACCESS_OPTIONAL_RANGE) == 0) {
            return null;
        }
        return new UnsupportedVerbException("ibv_reg_mr", symbols.lacking(VerbsSymbols.Newer.REG_MR_IOVA2,
                "access 0x" + Integer.toHexString(access) + " with an optional flag (RELAXED_ORDERING)"),
                "register without Access.RELAXED_ORDERING, or " + VerbsSymbols.upgrade(VerbsSymbols.Newer.REG_MR_IOVA2));
    }

    /**
     * The refusal of {@link Access#ON_DEMAND} on a device whose {@code ibv_query_device_ex} reports no on-demand paging
     * (the kernel would answer EOPNOTSUPP or EINVAL), or null.
     */
    private static UnsupportedVerbException onDemandRefusal(Context context, int access) {
        if ((access & Access.ON_DEMAND.bit()) == 0 || context.onDemandPaging().supported()) {
            return null;
        }
        return new UnsupportedVerbException("ibv_reg_mr", "device " + context.name() + " has no on-demand paging"
                + " (odp_caps.general_caps of ibv_query_device_ex lacks IBV_ODP_SUPPORT)",
                "register without Access.ON_DEMAND: the memory is then pinned");
    }

    /**
     * {@return the protection domain this region belongs to} Only queue pairs of the same protection domain
     * may use its keys.
     */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /**
     * The registered memory. For a region that owns its memory, it is freed when the region closes.
     *
     * @return the segment the region covers, exactly ({@link #length()} bytes from {@link #address()})
     * @throws IllegalStateException if the region is closed
     */
    public MemorySegment segment() {
        ensureOpen();
        return segment;
    }

    /**
     * The local key, for scatter-gather entries.
     *
     * @return {@code mr->lkey}; {@link #sge(long, int)} puts it into the entries it makes
     * @throws IllegalStateException if the region is closed
     */
    public int lkey() {
        ensureOpen();
        return lkey;
    }

    /**
     * The remote key, to give a peer for RDMA READ/WRITE into this region.
     *
     * @return {@code mr->rkey}, which a peer's requests name with an address within {@link #address()} and
     *         {@link #address()} + {@link #length()}; usable only for the remote access the region was
     *         registered with
     * @throws IllegalStateException         if the region is closed
     * @throws UnsupportedOperationException for a null region, whose remote key is not valid ({@code ibv_alloc_null_mr})
     */
    public int rkey() {
        ensureOpen();
        if (nullRegion) {
            throw new UnsupportedOperationException(this + " is a null region: only its lkey is valid"
                    + " (ibv_alloc_null_mr), a peer cannot be given it");
        }
        return rkey;
    }

    /**
     * {@return whether this is a null region} Its key makes the device discard what it would write and read zeros
     * ({@link ProtectionDomain#allocateNullRegion}); its {@link #segment()} is memory the device never touches.
     */
    public boolean isNullRegion() {
        return nullRegion;
    }

    /**
     * The virtual address of the first byte (the registration's iova).
     *
     * @return the address a peer's RDMA READ/WRITE or atomic request starts from (plus an offset), together
     *         with {@link #rkey()}
     * @throws IllegalStateException if the region is closed
     */
    public long address() {
        ensureOpen();
        return segment.address();
    }

    /** {@return the length in bytes of the registered memory} Still answers after the region is closed. */
    public long length() {
        return segment.byteSize();
    }

    /**
     * The access flags the region was registered with (as C bits).
     *
     * @return the {@code IBV_ACCESS_*} bits passed to {@code ibv_reg_mr}, including the
     *         {@link Access#LOCAL_WRITE} added for remote write or atomic access
     */
    public int access() {
        return access;
    }

    /**
     * A scatter-gather entry for {@code length} bytes at {@code offset} of this region.
     *
     * @param offset the byte offset of the slice's first byte, from 0
     * @param length the slice's length in bytes, at most {@link #length()} - {@code offset}
     * @return an immutable entry naming this region, its address and its lkey; the region must stay open until
     *         every request using the entry has completed
     * @throws IndexOutOfBoundsException if the slice leaves the region
     * @throws IllegalStateException     if the region is closed
     */
    public Sge sge(long offset, int length) {
        return new Sge(this, sliceAddress(offset, length), length, lkey);
    }

    /**
     * The address of {@code [offset, offset + length)}, after checking it lies in this region and the
     * region is open, whose memory is then alive; cheap enough for the data path.
     *
     * @throws IndexOutOfBoundsException if it does not lie inside
     * @throws IllegalStateException     if the region is closed
     */
    long sliceAddress(long offset, int length) {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        if (offset < 0 || length < 0 || offset > segment.byteSize() - length) {
            throw new IndexOutOfBoundsException("slice [" + offset + ", " + offset + " + " + length
                    + ") is outside " + this);
        }
        return segment.address() + offset;
    }

    /** The context this region's protection domain belongs to. */
    Context context() {
        return context;
    }

    /**
     * Which memory scopes can never close while a segment of them is reachable: the scope classes of the FFM API's
     * never-closing scopes (the global arena's, an automatic arena's, the automatic scope that
     * {@code MemorySegment.ofBuffer} gives a direct buffer not made from a segment), found from instances, minus
     * any class that a closeable arena's scope also has. Those classes are the JDK's own, not API: on a JDK whose
     * classes differ, more memory is refused, never less.
     */
    private static final class NeverClosingScopes {
        private static final Set<Class<?>> CLASSES;

        static {
            Set<Class<?>> never = new HashSet<>();
            never.add(Arena.global().scope().getClass());
            never.add(Arena.ofAuto().scope().getClass());
            never.add(MemorySegment.ofBuffer(ByteBuffer.allocateDirect(1)).scope().getClass());
            try (Arena shared = Arena.ofShared(); Arena confined = Arena.ofConfined()) {
                never.remove(shared.scope().getClass());
                never.remove(confined.scope().getClass());
            }
            CLASSES = Set.copyOf(never);
        }

        static boolean mayClose(MemorySegment.Scope scope) {
            return !CLASSES.contains(scope.getClass());
        }
    }

    /**
     * Closing a region moves its context's region generation on before the close handshake, so that every
     * chain posted later checks its entries again and refuses the closed region.
     */
    @Override
    void beforeHandshake() {
        context.regionClosed();
    }

    @Override
    void afterClose() {
        if (ties != null) {
            ties.untie(this);
        }
    }

    /** A post uses this region through a scatter-gather entry, naming only its queue pair in its marker. */
    @Override
    boolean mayBeNamedByCalls() {
        return true;
    }

    /** Any post in flight may name this region in a scatter-gather entry: closing waits for all of them. */
    @Override
    boolean waitsFor(int inside) {
        return true;
    }

    /** The registered memory's start address, unchecked (for offsets; {@link #sliceAddress} checks). */
    long baseAddress() {
        return segment.address();
    }

    /** The local key without the closed check, for callers that just passed {@link #sliceAddress}. */
    int lkeyUnchecked() {
        return lkey;
    }

    @Override
    public String toString() {
        if (nullRegion) {
            return "MemoryRegion[null, lkey 0x" + Integer.toHexString(lkey) + ", entries over 0x"
                    + Long.toHexString(segment.address()) + ", " + segment.byteSize() + " bytes]";
        }
        return "MemoryRegion[0x" + Long.toHexString(segment.address()) + ", " + segment.byteSize() + " bytes, lkey 0x"
                + Integer.toHexString(lkey) + "]";
    }
}
