package com.ibm.disni.verbs;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.panamaverbs.verbs.Context;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.IbvContext}: an RDMA device opened for verbs
 * ({@code struct ibv_context}), over a Panama Verbs {@link Context}. In the DiSNI API it comes from
 * {@code RdmaCmId.getVerbs()}: rdma_cm's device context, which librdmacm keeps
 * open, so {@link #close()} never closes the device. There is one object per device context in the JVM,
 * so it can key caches.
 *
 * <p>{@link #getCmd_fd()} is a number unique per device context in this JVM, not the file descriptor DiSNI
 * returned (programs use it only as a device key; Panama Verbs' public API does not expose the
 * descriptor). {@link #getNumCompVectors()} is 1: completion queues are created on vector 0.
 */
public class IbvContext {

    /** {@code IBV_ODP_SUPPORT_SEND} (1). */
    public static int IBV_ODP_SUPPORT_SEND;
    /** {@code IBV_ODP_SUPPORT_RECV} (2). */
    public static int IBV_ODP_SUPPORT_RECV;
    /** {@code IBV_ODP_SUPPORT_WRITE} (4). */
    public static int IBV_ODP_SUPPORT_WRITE;
    /** {@code IBV_ODP_SUPPORT_READ} (8). */
    public static int IBV_ODP_SUPPORT_READ;
    /** {@code IBV_ODP_SUPPORT_ATOMIC} (16). */
    public static int IBV_ODP_SUPPORT_ATOMIC;

    static {
        IBV_ODP_SUPPORT_SEND = 1;
        IBV_ODP_SUPPORT_RECV = 2;
        IBV_ODP_SUPPORT_WRITE = 4;
        IBV_ODP_SUPPORT_READ = 8;
        IBV_ODP_SUPPORT_ATOMIC = 16;
    }

    private static final Map<Context, IbvContext> CONTEXTS = new ConcurrentHashMap<>();
    private static final AtomicInteger NUMBERS = new AtomicInteger(1000);

    private RdmaVerbs verbs;
    /**
     * A number unique to this device context in the JVM, counted from 1001; not a file descriptor. For an object
     * made with the protected constructor, the number given.
     */
    protected int cmd_fd;
    /** False once {@link #close()} has been called; the device itself stays open. */
    protected volatile boolean isOpen;
    /**
     * Completion vectors offered: 1 (only vector 0) for a device context of this module; for an object made with
     * the protected constructor, the number given.
     */
    protected int numCompVectors;

    /** The Panama Verbs context behind this object; null for one made with the protected constructor. */
    final Context pv;
    /** Regions registered through this module on this device, by lkey: how work requests find theirs. */
    final Map<Integer, IbvMr> regions = new ConcurrentHashMap<>();

    /**
     * An object with no device behind it (its verbs throw {@code IOException}); kept because DiSNI 2.1 has
     * this constructor.
     *
     * @param cmd_fd the number {@link #getCmd_fd()} returns
     * @param numCompVectors the number {@link #getNumCompVectors()} returns
     * @throws IOException never
     */
    protected IbvContext(int cmd_fd, int numCompVectors) throws IOException {
        this.cmd_fd = cmd_fd;
        this.numCompVectors = numCompVectors;
        this.isOpen = true;
        this.verbs = RdmaVerbs.open();
        this.pv = null;
    }

    private IbvContext(Context pv) {
        this.pv = pv;
        this.cmd_fd = NUMBERS.incrementAndGet();
        this.numCompVectors = 1;
        this.isOpen = true;
        this.verbs = PanamaVerbs.INSTANCE;
    }

    /** The one object of this JVM for {@code context}. */
    static IbvContext of(Context context) {
        return CONTEXTS.computeIfAbsent(context, IbvContext::new);
    }

    /** Every device context of this module in the JVM (a live view): where raw addresses are looked up. */
    static java.util.Collection<IbvContext> all() {
        return CONTEXTS.values();
    }

    Context panama() throws IOException {
        if (pv == null) {
            throw Failures.notOurs(this);
        }
        return pv;
    }

    /**
     * Returns a number unique to this device context in the JVM (see the class comment).
     *
     * @return the number
     * @throws IOException never
     */
    public int getCmd_fd() throws IOException {
        return cmd_fd;
    }

    /**
     * Returns the number of completion vectors this module offers: 1 (vector 0).
     *
     * @return 1
     * @throws IOException never
     */
    public int getNumCompVectors() throws IOException {
        return numCompVectors;
    }

    /**
     * Tells whether {@link #close()} has not been called.
     *
     * @return false once closed
     */
    public boolean isOpen() {
        return isOpen;
    }

    /** Marks this object closed; the device stays open (librdmacm owns rdma_cm's device context). */
    public void close() {
        isOpen = false;
    }

    /**
     * {@code ibv_alloc_pd}.
     *
     * @return a new protection domain
     * @throws IOException if the call fails
     */
    public IbvPd allocPd() throws IOException {
        return verbs.allocPd(this);
    }

    /**
     * {@code ibv_create_comp_channel}.
     *
     * @return a new completion channel
     * @throws IOException if the call fails
     */
    public IbvCompChannel createCompChannel() throws IOException {
        return verbs.createCompChannel(this);
    }

    /**
     * {@code ibv_create_cq}.
     *
     * @param compChannel the channel the queue signals when armed, or null
     * @param ncqe the least number of entries
     * @param comp_vector the completion vector: 0
     * @return a new completion queue
     * @throws IOException if the call fails or {@code comp_vector} is not 0
     */
    public IbvCQ createCQ(IbvCompChannel compChannel, int ncqe, int comp_vector) throws IOException {
        return verbs.createCQ(this, compChannel, ncqe, comp_vector);
    }

    /**
     * Asks which on-demand-paging operations the device supports.
     *
     * @return -1: not supported here (see {@link RdmaVerbs#queryOdpSupport(IbvContext)})
     * @throws IOException never
     */
    public int queryOdpSupport() throws IOException {
        return verbs.queryOdpSupport(this);
    }
}
