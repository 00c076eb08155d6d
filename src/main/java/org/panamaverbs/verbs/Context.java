package org.panamaverbs.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.panamaverbs.ffi.ibv_async_event;
import org.panamaverbs.ffi.ibv_context;
import org.panamaverbs.ffi.ibv_device;
import org.panamaverbs.ffi.ibv_device_attr;
import org.panamaverbs.ffi.ibv_gid;
import org.panamaverbs.ffi.ibv_gid_entry;
import org.panamaverbs.ffi.ibv_port_attr;
import org.panamaverbs.ffi.ibverbs_h;
import org.panamaverbs.ffi.verbs_context;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.ControlEvents;
import org.panamaverbs.internal.DataPath;
import org.panamaverbs.internal.FdPoller;
import org.panamaverbs.internal.Libc;
import org.panamaverbs.internal.NativeLayouts;
import org.panamaverbs.internal.SysfsGidAttributes;
import org.panamaverbs.internal.Unchecked;
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
    /** {@code __VERBS_ABI_IS_EXTENDED}: {@code ((void *)UINTPTR_MAX)} in {@code ibv_context.abi_compat}. */
    private static final long VERBS_ABI_IS_EXTENDED = -1L;

    private final MemorySegment handle;
    private final RdmaDevice device;
    /**
     * The libibverbs functions newer than rdma-core 17 that this context may call (absent ones have fallbacks); null
     * for an adopted context until a control-path verb needs them ({@link #symbols()}).
     */
    private final VerbsSymbols symbols;
    private final DeviceAttributes attributes;
    private DeviceProfile profile;
    private DevicePolicy policy;
    final MemorySegment pollCqFunction;
    final MemorySegment postSendFunction;
    final MemorySegment postRecvFunction;
    final MemorySegment reqNotifyCqFunction;
    final MemorySegment postSrqRecvFunction;
    private final int asyncFd;
    private final List<Consumer<AsyncEvent>> asyncListeners = new CopyOnWriteArrayList<>();
    private Thread asyncDispatcher;
    /** Frees the tree if this context is lost without close (see {@link Backstop}). */
    private final java.lang.ref.Cleaner.Cleanable backstopWatch;
    /**
     * Moves on each time a memory region of this context closes (under the tree lock): chains compare it at
     * every post to know whether the regions their entries name may have closed since they last checked.
     */
    volatile int regionGeneration;

    static {
        org.panamaverbs.internal.VerbsBridge.register(new VerbsBridgeImpl());
    }

    private static final class Native {
        static final MethodHandle OPEN_DEVICE = CallState.capturingErrno(
                ibverbs_h.ibv_open_device$address(), ibverbs_h.ibv_open_device$descriptor());
        /** {@code verbs_context.query_port(ctx, port, attr, sizeof attr)}, called through the provider pointer. */
        static final MethodHandle QUERY_PORT_OP = Linker.nativeLinker().downcallHandle(
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS, JAVA_LONG));
        static final MethodHandle GET_ASYNC_EVENT = CallState.capturingErrno(
                ibverbs_h.ibv_get_async_event$address(), ibverbs_h.ibv_get_async_event$descriptor());
        /** {@code ibv_query_gid}, for the GID table on a libibverbs without {@code _ibv_query_gid_table}. */
        static final MethodHandle QUERY_GID = CallState.capturingErrno(
                ibverbs_h.ibv_query_gid$address(), ibverbs_h.ibv_query_gid$descriptor());
    }

    private Context(MemorySegment handle, RdmaDevice device, VerbsSymbols symbols) {
        this(handle, device, symbols, null);
    }

    /** {@code knownAttributes} non-null: an adopted context, whose attributes are given rather than queried. */
    private Context(MemorySegment handle, RdmaDevice device, VerbsSymbols symbols, DeviceAttributes knownAttributes) {
        super(new Backstop(device.name()));
        this.handle = scoped(handle);
        this.device = device;
        this.symbols = symbols;
        this.pollCqFunction = DataPath.opsPointer(handle, DataPath.POLL_CQ_OFFSET);
        this.postSendFunction = DataPath.opsPointer(handle, DataPath.POST_SEND_OFFSET);
        this.postRecvFunction = DataPath.opsPointer(handle, DataPath.POST_RECV_OFFSET);
        this.reqNotifyCqFunction = DataPath.opsPointer(handle, DataPath.REQ_NOTIFY_CQ_OFFSET);
        this.postSrqRecvFunction = DataPath.opsPointer(handle, DataPath.POST_SRQ_RECV_OFFSET);
        this.attributes = knownAttributes != null ? knownAttributes : queryDeviceNow();
        this.asyncFd = ibv_context.async_fd(handle);
        int rc = Libc.setNonBlocking(asyncFd);
        if (rc != 0) {
            throw new VerbsException("fcntl", rc, "making the async event descriptor of " + device.name() + " non-blocking");
        }
        MemorySegment raw = raw(handle);
        String name = device.name();
        own(() -> check("ibv_close_device", ibverbs_h.ibv_close_device(raw), "device " + name));
        this.backstopWatch = treeLock().watch(this);
    }

    /**
     * Opens {@code device} (an entry of a live {@code ibv_get_device_list} array) under {@code emulate}, or detected if
     * null, calling the functions of {@code symbols} (the process's, {@link VerbsSymbols#system()}, but for tests).
     */
    static Context open(MemorySegment device, RdmaDevice info, HardwareClass emulate, VerbsSymbols symbols) {
        Object event = ControlEvents.begin(ControlEvents.Kind.DEVICE_OPEN);
        MemorySegment context;
        try (CallState state = CallState.open()) {
            context = (MemorySegment) Native.OPEN_DEVICE.invokeExact(state.segment(), device);
            if (context.equals(MemorySegment.NULL)) {
                throw new VerbsException("ibv_open_device", state.errno(), "device " + info.name()
                        + ": check access to /dev/infiniband/uverbs* and that the provider for this device"
                        + " (package ibverbs-providers) is installed");
            }
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
        MemorySegment handle = context.reinterpret(NativeLayouts.selected().ibvContext().byteSize());
        Context opened = null;
        try {
            opened = new Context(handle, info, symbols);
            opened.profile = profileFor(opened, emulate);
            opened.policy = opened.profile.policy(opened.attributes, info.name());
            opened.requireDataPathOps();
            opened.reportOpened(event, "opened");
            return opened;
        } catch (RuntimeException e) {
            if (!(e instanceof UnsupportedVerbException)) { // requireDataPathOps closed it already
                if (opened != null) {
                    opened.disown();
                }
                ibverbs_h.ibv_close_device(handle);
            }
            throw e;
        }
    }

    /**
     * Wraps an {@code ibv_context} another owner opened and will close (rdma_cm's {@code cm_id->verbs}, which
     * librdmacm keeps open for the life of the process): closing this object closes what was created on it,
     * never the device.
     */
    static Context borrow(MemorySegment verbs, String owner) {
        Object event = ControlEvents.begin(ControlEvents.Kind.DEVICE_OPEN);
        MemorySegment handle = verbs.reinterpret(NativeLayouts.selected().ibvContext().byteSize());
        RdmaDevice info = Rdma.describe(ibv_context.device(handle));
        Context borrowed = new Context(handle, info, VerbsSymbols.system());
        borrowed.heldBy(owner, () -> { });
        borrowed.profile = profileFor(borrowed, null);
        borrowed.policy = borrowed.profile.policy(borrowed.attributes, info.name());
        borrowed.requireDataPathOps();
        borrowed.reportOpened(event, "borrowed");
        return borrowed;
    }

    /** Logs the device and its profile (INFO when the profile gates anything, else DEBUG) and commits {@code event}. */
    private void reportOpened(Object event, String how) {
        ControlEvents.deviceOpened(event, device.name(), how, profile.hardwareClass().name(), profile.emulated(),
                profile.reasons(), profile.describe(), attributes.vendorId(), attributes.vendorPartId(),
                profile.hardwareClass().isPvrdma() || profile.emulated());
    }

    /**
     * Refuses a provider without the legacy {@code poll_cq}/{@code post_send}/{@code post_recv} operations, which
     * the data path calls through (closing this context first).
     */
    private void requireDataPathOps() {
        if (pollCqFunction.equals(MemorySegment.NULL) || postSendFunction.equals(MemorySegment.NULL)
                || postRecvFunction.equals(MemorySegment.NULL)) {
            close();
            throw policy.refused(new UnsupportedVerbException("ibv_post_send", "the " + device.name()
                    + " provider has no legacy poll_cq/post_send/post_recv operations",
                    "use a device whose rdma-core provider implements them (all in-tree providers do)"));
        }
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

    /**
     * Wraps an {@code ibv_context} another owner made and frees, without asking libibverbs anything about it
     * (no {@code ibv_query_device}, no GID table): {@code attributes} stand in for the query, the profile is
     * the generic one they imply, and closing runs {@code giveBack}. Reached only through the internal
     * {@link org.panamaverbs.internal.VerbsBridge}; used by the benchmarks to run the data path against a stub
     * provider whose objects libibverbs never saw.
     *
     * @throws IllegalArgumentException if the attributes describe a PVRDMA device (its gates need the GID table)
     * @throws UnsupportedVerbException if the context lacks poll_cq, post_send or post_recv
     */
    static Context adopt(MemorySegment context, RdmaDevice info, DeviceAttributes attributes, String owner,
            Runnable giveBack) {
        MemorySegment handle = context.reinterpret(NativeLayouts.selected().ibvContext().byteSize());
        for (long offset : new long[] {DataPath.POLL_CQ_OFFSET, DataPath.POST_SEND_OFFSET, DataPath.POST_RECV_OFFSET}) {
            if (DataPath.opsPointer(handle, offset).equals(MemorySegment.NULL)) {
                throw new UnsupportedVerbException("ibv_post_send", "the context " + info.name() + " from " + owner
                        + " has no legacy poll_cq/post_send/post_recv operations", "fill ctx->ops before adopting it");
            }
        }
        DeviceProfile profile = DeviceProfile.detect(attributes, List.of());
        if (profile.hardwareClass() != HardwareClass.NOT_PVRDMA) {
            throw new IllegalArgumentException("an adopted context gets the generic profile; these attributes say "
                    + profile.hardwareClass() + ", whose gates need the device's GID table");
        }
        Context adopted = new Context(handle, info, null, attributes);
        adopted.heldBy(owner, giveBack);
        adopted.profile = profile;
        adopted.policy = profile.policy(attributes, info.name());
        return adopted;
    }

    /** {@return the device this context was opened on: its name, GUID and transport} */
    public RdmaDevice device() {
        return device;
    }

    /** {@return the device name, e.g. {@code "rxe0"}, as {@code ibv_get_device_name} gives it} */
    public String name() {
        return device.name();
    }

    private static DeviceProfile profileFor(Context context, HardwareClass emulate) {
        DeviceProfile detected = DeviceProfile.detect(context.attributes, context.gidTables());
        if (emulate == null) {
            String property = System.getProperty("panamaverbs.profile");
            emulate = property == null || property.isBlank() ? null : HardwareClass.ofPropertyValue(property);
        }
        return emulate == null ? detected : detected.emulate(emulate);
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
        return policy.verdicts(gidTables(), org.panamaverbs.internal.NativeLibrary.probe(org.panamaverbs.internal.NativeLibrary.RDMACM));
    }

    /** The GID tables of every port, one list. */
    private List<GidEntry> gidTables() {
        List<GidEntry> gids = new ArrayList<>();
        for (int port = 1; port <= attributes.physicalPortCount(); port++) {
            gids.addAll(gidTable(port));
        }
        return gids;
    }

    /** Called by a closing memory region of this context, under the tree lock. */
    void regionClosed() {
        regionGeneration++;
    }

    /** The gates of this context's profile, consulted by every verb. */
    DevicePolicy policy() {
        return policy;
    }

    /** Live UD queue pairs of this context, for the HWv13 limit. */
    int liveUdQueuePairs() {
        return countUd(this);
    }

    private static int countUd(VerbsResource node) {
        int n = 0;
        for (VerbsResource child : node.dependents()) {
            if (child instanceof QueuePair qp && qp.config().type() == QpType.UD) {
                n++;
            } else if (child instanceof ProtectionDomain) {
                n += countUd(child);
            }
        }
        return n;
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

    private DeviceAttributes queryDeviceNow() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_device_attr.layout());
            int rc = ibverbs_h.ibv_query_device(handle, attr);
            if (rc != 0) {
                throw new VerbsException("ibv_query_device", rc, "device " + device.name());
            }
            return new DeviceAttributes(
                    ibv_device_attr.fw_ver(attr).getString(0),
                    Long.reverseBytes(ibv_device_attr.node_guid(attr)),
                    Long.reverseBytes(ibv_device_attr.sys_image_guid(attr)),
                    ibv_device_attr.max_mr_size(attr),
                    ibv_device_attr.page_size_cap(attr),
                    ibv_device_attr.vendor_id(attr),
                    ibv_device_attr.vendor_part_id(attr),
                    ibv_device_attr.hw_ver(attr),
                    ibv_device_attr.max_qp(attr),
                    ibv_device_attr.max_qp_wr(attr),
                    ibv_device_attr.device_cap_flags(attr),
                    ibv_device_attr.max_sge(attr),
                    ibv_device_attr.max_sge_rd(attr),
                    ibv_device_attr.max_cq(attr),
                    ibv_device_attr.max_cqe(attr),
                    ibv_device_attr.max_mr(attr),
                    ibv_device_attr.max_pd(attr),
                    ibv_device_attr.max_qp_rd_atom(attr),
                    ibv_device_attr.max_qp_init_rd_atom(attr),
                    AtomicCapability.of(ibv_device_attr.atomic_cap(attr)),
                    ibv_device_attr.max_ah(attr),
                    ibv_device_attr.max_srq(attr),
                    ibv_device_attr.max_srq_wr(attr),
                    ibv_device_attr.max_srq_sge(attr),
                    Short.toUnsignedInt(ibv_device_attr.max_pkeys(attr)),
                    Byte.toUnsignedInt(ibv_device_attr.phys_port_cnt(attr)));
        }
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
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_port_attr.layout());
            MemorySegment queryPortOp = extendedOp(verbs_context.query_port$offset());
            int rc;
            if (queryPortOp == null) {
                rc = ibverbs_h.ibv_query_port(handle, (byte) port, attr);
            } else {
                rc = (int) Native.QUERY_PORT_OP.invokeExact(queryPortOp, handle, (byte) port, attr,
                        ibv_port_attr.layout().byteSize());
            }
            if (rc != 0) {
                throw new VerbsException("ibv_query_port", rc, "device " + device.name() + " port " + port);
            }
            return new PortAttributes(
                    PortState.of(ibv_port_attr.state(attr)),
                    Mtu.of(ibv_port_attr.max_mtu(attr)),
                    Mtu.of(ibv_port_attr.active_mtu(attr)),
                    ibv_port_attr.gid_tbl_len(attr),
                    ibv_port_attr.port_cap_flags(attr),
                    Integer.toUnsignedLong(ibv_port_attr.max_msg_sz(attr)),
                    Short.toUnsignedInt(ibv_port_attr.lid(attr)),
                    Short.toUnsignedInt(ibv_port_attr.sm_lid(attr)),
                    Byte.toUnsignedInt(ibv_port_attr.lmc(attr)),
                    Byte.toUnsignedInt(ibv_port_attr.active_width(attr)),
                    Byte.toUnsignedInt(ibv_port_attr.active_speed(attr)),
                    Byte.toUnsignedInt(ibv_port_attr.phys_state(attr)),
                    LinkLayer.of(Byte.toUnsignedInt(ibv_port_attr.link_layer(attr))),
                    ibv_port_attr.pkey_tbl_len(attr));
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /**
     * {@code verbs_get_ctx_op(ctx, op)}: the extended operation at {@code opOffset} inside
     * {@code struct verbs_context}, or null when the context is not extended, too old to have it, or
     * the provider leaves it NULL.
     */
    private MemorySegment extendedOp(long opOffset) {
        NativeLayouts.Selected layouts = NativeLayouts.selected();
        if (handle.get(ADDRESS, NativeLayouts.offset(layouts.ibvContext(), "abi_compat")).address() != VERBS_ABI_IS_EXTENDED) {
            return null;
        }
        long contextOffset = verbs_context.context$offset();
        long verbsContextSize = layouts.verbsContext().byteSize();
        MemorySegment verbsContext = MemorySegment.ofAddress(handle.address() - contextOffset).reinterpret(verbsContextSize);
        long size = verbsContext.get(JAVA_LONG, verbs_context.sz$offset());
        if (size < verbsContextSize - opOffset) {
            return null;
        }
        MemorySegment op = verbsContext.get(ADDRESS, opOffset);
        return op.equals(MemorySegment.NULL) ? null : op;
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
        MethodHandle queryGidTable = symbols().handle(VerbsSymbols.Newer.QUERY_GID_TABLE);
        if (queryGidTable == null) {
            return gidTableBySlot(port);
        }
        int slots = 0;
        for (int p = 1; p <= attributes.physicalPortCount(); p++) {
            slots += queryPort(p).gidTableLength();
        }
        long entrySize = ibv_gid_entry.layout().byteSize();
        try (Arena arena = Arena.ofConfined(); CallState state = CallState.open()) {
            MemorySegment entries = arena.allocate(ibv_gid_entry.layout(), Math.max(slots, 1));
            long n = (long) queryGidTable.invokeExact(state.segment(), handle, entries, (long) slots, 0, entrySize);
            if (n < 0) {
                throw new VerbsException("ibv_query_gid_table", n == -1 ? state.errno() : (int) -n,
                        "device " + device.name());
            }
            List<GidEntry> table = new ArrayList<>();
            for (long i = 0; i < n; i++) {
                MemorySegment entry = entries.asSlice(i * entrySize, entrySize);
                int entryPort = ibv_gid_entry.port_num(entry);
                if (entryPort == port) {
                    table.add(new GidEntry(ibv_gid_entry.gid_index(entry), entryPort,
                            Gid.read(entry, ibv_gid_entry.gid$offset()),
                            GidType.of(ibv_gid_entry.gid_type(entry)), ibv_gid_entry.ndev_ifindex(entry)));
                }
            }
            return List.copyOf(table);
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /**
     * {@link #gidTable} without {@code _ibv_query_gid_table}: {@code ibv_query_gid} on every slot of the port's
     * table (an empty slot reads as the zero GID and is left out, as {@code ibv_query_gid_table} leaves it out),
     * then the type and the network device of each populated slot from the device's sysfs directory.
     */
    private List<GidEntry> gidTableBySlot(int port) {
        PortAttributes portAttributes = queryPort(port);
        boolean ethernet = portAttributes.linkLayer() == LinkLayer.ETHERNET;
        MemorySegment deviceStruct = ibv_context.device(handle).reinterpret(ibv_device.layout().byteSize());
        java.nio.file.Path sysfs = java.nio.file.Path.of(deviceStruct.getString(ibv_device.ibdev_path$offset()));
        List<GidEntry> table = new ArrayList<>();
        try (Arena arena = Arena.ofConfined(); CallState state = CallState.open()) {
            MemorySegment gid = arena.allocate(ibv_gid.layout());
            for (int index = 0; index < portAttributes.gidTableLength(); index++) {
                int rc = (int) Native.QUERY_GID.invokeExact(state.segment(), handle, (byte) port, index, gid);
                if (rc != 0) {
                    throw new VerbsException("ibv_query_gid", rc > 0 ? rc : state.errno(), "device " + device.name()
                            + " port " + port + " index " + index + " (reading " + sysfs + ")");
                }
                Gid value = Gid.read(gid, 0);
                if (!value.equals(Gid.ZERO)) {
                    table.add(new GidEntry(index, port, value,
                            GidType.of(SysfsGidAttributes.type(sysfs, port, index, ethernet)),
                            SysfsGidAttributes.netdevIndex(sysfs, port, index)));
                }
            }
            return List.copyOf(table);
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /**
     * The libibverbs functions this context calls that older rdma-core releases lack (absent ones have fallbacks): the
     * process's table for an adopted context, which asks libibverbs nothing until a control-path verb needs it.
     */
    VerbsSymbols symbols() {
        return symbols != null ? symbols : VerbsSymbols.system();
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
        List<GidEntry> table = gidTable(port);
        return table.stream().filter(e -> e.type() == GidType.ROCE_V2 && e.gid().isIpv4Mapped()).findFirst()
                .or(() -> table.stream().filter(e -> e.type() == GidType.ROCE_V2).findFirst())
                .or(() -> table.stream().findFirst())
                .map(GidEntry::index).orElse(0);
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
            return CompletionQueue.create(this, minEntries, channel);
        }
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
     * @throws IllegalStateException if the context is closed
     * @throws VerbsException naming {@code ibv_get_async_event} if reading the event fails
     */
    public AsyncEvent awaitAsyncEvent(Duration timeout) {
        return awaitAsyncEvent(timeout.toNanos());
    }

    /** {@link #awaitAsyncEvent(Duration)} in nanoseconds, {@link FdPoller#UNTIL_INTERRUPTED} included. */
    private AsyncEvent awaitAsyncEvent(long timeoutNanos) {
        AsyncEvent event = FdPoller.instance().awaitNonBlocking(asyncFd, timeoutNanos, this::tryGetAsyncEvent);
        if (event != null) {
            ControlEvents.asyncEvent(logLevel(event.type()), device.name(), event.type().name(),
                    event.source() == null ? null : event.source().toString(), event.port());
        }
        return event;
    }

    /** WARNING for errors, INFO for port and fabric changes, DEBUG for what a connection's life brings anyway. */
    private static System.Logger.Level logLevel(AsyncEventType type) {
        return switch (type) {
            case CQ_ERR, QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, PATH_MIG_ERR, DEVICE_FATAL, PORT_ERR, SRQ_ERR, WQ_FATAL,
                    UNKNOWN -> System.Logger.Level.WARNING;
            case PORT_ACTIVE, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER, GID_CHANGE, PATH_MIG ->
                    System.Logger.Level.INFO;
            case COMM_EST, SQ_DRAINED, SRQ_LIMIT_REACHED, QP_LAST_WQE_REACHED -> System.Logger.Level.DEBUG;
        };
    }

    private AsyncEvent tryGetAsyncEvent() {
        synchronized (treeLock()) {
            ensureOpen();
            try (Arena arena = Arena.ofConfined(); CallState state = CallState.open()) {
                MemorySegment event = arena.allocate(ibv_async_event.layout());
                int rc = (int) Native.GET_ASYNC_EVENT.invokeExact(state.segment(), handle, event);
                if (rc != 0) {
                    int errno = state.errno();
                    if (errno == Errno.EAGAIN) {
                        return null;
                    }
                    throw new VerbsException("ibv_get_async_event", errno, "device " + device.name());
                }
                AsyncEventType type = AsyncEventType.of(ibv_async_event.event_type(event));
                long element = event.get(ADDRESS, ibv_async_event.element$offset()).address();
                int port = type.concernsPort() ? event.get(JAVA_INT, ibv_async_event.element$offset()) : 0;
                VerbsResource source = type.concernsQueuePair() || type.concernsCompletionQueue()
                        || type.concernsSharedReceiveQueue() ? findByAddress(this, element) : null;
                ibverbs_h.ibv_ack_async_event(event);
                return new AsyncEvent(type, source, port);
            } catch (Throwable t) {
                throw Unchecked.rethrow(t);
            }
        }
    }

    /** The queue pair or completion queue below {@code node} whose native address is {@code address}. */
    private static VerbsResource findByAddress(VerbsResource node, long address) {
        for (VerbsResource child : node.dependents()) {
            if ((child instanceof QueuePair qp && qp.address() == address)
                    || (child instanceof CompletionQueue cq && cq.address() == address)
                    || (child instanceof SharedReceiveQueue srq && srq.address() == address)) {
                return child;
            }
            VerbsResource found = findByAddress(child, address);
            if (found != null) {
                return found;
            }
        }
        return null;
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
        java.util.Objects.requireNonNull(listener, "listener");
        synchronized (treeLock()) {
            ensureOpen();
            asyncListeners.add(listener);
            if (asyncDispatcher == null) {
                asyncDispatcher = Thread.ofVirtual().name("panama-verbs-async-" + device.name()).start(this::dispatchAsyncEvents);
            }
        }
    }

    /**
     * Stops delivering events to {@code listener}. The dispatcher thread keeps running, and reading events,
     * until the context closes.
     *
     * @param listener a listener given to {@link #addAsyncEventListener}; any other value is ignored
     */
    public void removeAsyncEventListener(Consumer<AsyncEvent> listener) {
        asyncListeners.remove(listener);
    }

    private void dispatchAsyncEvents() {
        while (!closed) {
            AsyncEvent event;
            try {
                // no timed re-check: closing interrupts this thread (afterClose), so an idle dispatcher never wakes
                event = awaitAsyncEvent(FdPoller.UNTIL_INTERRUPTED);
            } catch (IllegalStateException closedMeanwhile) {
                return;
            } catch (RuntimeException readFailed) {
                // a failed read (ibv_get_async_event's errno) must not end delivery for good: report, pause, retry
                if (closed) {
                    return;
                }
                org.panamaverbs.internal.ControlEvents.VERBS.log(System.Logger.Level.WARNING,
                        "reading an asynchronous event of " + device.name() + " failed; retrying in 1 s", readFailed);
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    // from close, or stray: the loop's condition tells
                }
                continue;
            }
            if (event == null) {
                if (!closed) {
                    Thread.interrupted(); // not from close: a stray interrupt must not end delivery
                }
                continue;
            }
            for (Consumer<AsyncEvent> listener : asyncListeners) {
                try {
                    listener.accept(event);
                } catch (RuntimeException e) {
                    Thread.currentThread().getUncaughtExceptionHandler().uncaughtException(Thread.currentThread(), e);
                }
            }
        }
    }

    /** Closed: the backstop has nothing left to watch, and the dispatcher (if any) is woken to end. */
    @Override
    void afterClose() {
        backstopWatch.clean();
        if (asyncDispatcher != null) {
            asyncDispatcher.interrupt();
        }
    }

    @Override
    public String toString() {
        return "Context[" + device.name() + "]";
    }
}
