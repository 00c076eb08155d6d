package org.panamaverbs.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import org.panamaverbs.ffi.ibv_srq_attr;
import org.panamaverbs.ffi.ibv_srq_init_attr;
import org.panamaverbs.ffi.ibverbs_h;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.NativeFunction;
import org.panamaverbs.internal.NativeLayouts;
import org.panamaverbs.internal.ControlEvents;
import org.panamaverbs.internal.Unchecked;

/**
 * {@code struct ibv_srq} from {@code ibv_create_srq}, destroyed with {@code ibv_destroy_srq}: one pool of
 * receive requests that several queue pairs (created with {@link QpConfig.Builder#srq}) draw from. Those
 * queue pairs depend on it and are closed first.
 *
 * <p>{@link #postRecv} is {@code ibv_post_srq_recv}, inline in verbs.h ({@code ops.post_srq_recv}): no
 * allocation, returns 0 or the provider's errno. {@link #modifyLimit(int)} arms the
 * {@link AsyncEventType#SRQ_LIMIT_REACHED} event.
 *
 * <p>Errors: {@link UnsupportedVerbException} when the device reports {@code max_srq} 0;
 * {@link VerbsException} naming {@code ibv_create_srq}, {@code ibv_modify_srq} or {@code ibv_query_srq}.
 */
public final class SharedReceiveQueue extends VerbsResource {
    private final ProtectionDomain pd;
    private final Context context;
    private final MemorySegment handle;
    /** The handle's address, for posts ({@link InFlight} keeps it alive during them). */
    private final long address;
    private final MemorySegment postFunction;

    private static final class Native {
        static final MethodHandle CREATE_SRQ = CallState.capturingErrno(NativeFunction.IBV_CREATE_SRQ);
    }

    /**
     * {@code struct ibv_srq_attr}: capacity in requests and entries, and the limit that raises the event (0 = none).
     *
     * @param maxWr  {@code max_wr}: how many receive requests the queue holds, as the device granted it
     *               (possibly more than asked)
     * @param maxSge {@code max_sge}: scatter-gather entries per receive request
     * @param limit  {@code srq_limit}: the armed low-water mark in requests; 0 when no
     *               {@link AsyncEventType#SRQ_LIMIT_REACHED} event is armed
     */
    public record Attributes(int maxWr, int maxSge, int limit) {
    }

    /** What a chain's proof must name for the fast path: the region generation while open, 0 once closing. */
    private volatile long postStamp;

    private SharedReceiveQueue(ProtectionDomain pd, MemorySegment handle) {
        super(pd.treeLock(), pd);
        this.pd = pd;
        this.handle = scoped(handle);
        this.address = handle.address();
        this.postFunction = pd.context().postSrqRecvFunction;
        this.context = pd.context();
        this.postStamp = context.regionGeneration; // under the tree lock, like every move of the generation
        MemorySegment raw = raw(handle);
        String what = toString();
        own(what, () -> check("ibv_destroy_srq", ibverbs_h.ibv_destroy_srq(raw), what));
    }

    static SharedReceiveQueue create(ProtectionDomain pd, int maxWr, int maxSge) {
        Context context = pd.context();
        DeviceAttributes device = context.attributes();
        context.policy().requireSharedReceiveQueues();
        // posts call ops.post_srq_recv directly: a queue that could never be posted to is refused up front
        context.requireOperation(context.postSrqRecvFunction, "ibv_post_srq_recv", "post_srq_recv");
        if (maxWr < 1 || maxWr > device.maxSrqWr() || maxSge < 1 || maxSge > device.maxSrqSge()) {
            throw new IllegalArgumentException("shared receive queue of " + maxWr + " requests × " + maxSge
                    + " entries is outside what " + context.name() + " allows (max_srq_wr " + device.maxSrqWr()
                    + ", max_srq_sge " + device.maxSrqSge() + ")");
        }
        try (Arena arena = Arena.ofConfined(); CallState state = CallState.open()) {
            MemorySegment init = arena.allocate(ibv_srq_init_attr.layout());
            MemorySegment attr = ibv_srq_init_attr.attr(init);
            ibv_srq_attr.max_wr(attr, maxWr);
            ibv_srq_attr.max_sge(attr, maxSge);
            Object event = ControlEvents.begin(ControlEvents.Kind.SHARED_RECEIVE_QUEUE_CREATE);
            MemorySegment srq = (MemorySegment) Native.CREATE_SRQ.invokeExact(state.segment(), pd.handleUnchecked(), init);
            if (srq.equals(MemorySegment.NULL)) {
                throw new VerbsException("ibv_create_srq", state.errno(), maxWr + " requests × " + maxSge
                        + " entries on " + context.name());
            }
            SharedReceiveQueue created = new SharedReceiveQueue(pd, srq.reinterpret(
                    NativeLayouts.selected().ibvSrq().byteSize()));
            // ibv_create_srq writes the granted capacities back into the attributes
            ControlEvents.sharedReceiveQueueCreated(event, context.name(), created.toString(), ibv_srq_attr.max_wr(attr),
                    ibv_srq_attr.max_sge(attr));
            return created;
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    long address() {
        return handle.address();
    }

    MemorySegment handleUnchecked() {
        return handle;
    }

    /** Closes the fast path before the close's handshake. */
    @Override
    void beforeHandshake() {
        postStamp = 0;
    }

    /** A region of the context closed (under the tree lock): the proofs before it end. */
    void regionGenerationMoved(long generation) {
        if (postStamp != 0) {
            postStamp = generation;
        }
    }

    /** {@return the protection domain the queue was created in} */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /**
     * {@code ibv_post_srq_recv(srq, &wrs[0], &bad_wr)} for the first {@code count} requests of the chain.
     *
     * @param requests the receive requests; the buffers they name must stay registered until a queue pair's
     *                 completion hands them back, and the chain may be refilled as soon as this call returns
     * @param count    how many requests to post, from request 0, 1 to {@code requests.capacity()}
     * @return 0, or the provider's errno value; {@link WorkRequestChain#failedIndex()} names the refused request
     * @throws IllegalStateException    if the queue, the chain or a region an entry names is closed
     * @throws IllegalArgumentException if an entry names a region of another device context
     * @throws IndexOutOfBoundsException if {@code count} is not in 1..capacity
     * @throws WrongThreadException     if another thread has posted with {@code requests}
     */
    public int postRecv(RecvChain requests, int count) {
        requests.mark(this);
        try {
            if (requests.isReady(count, postStamp)) {
                return requests.postReady(postFunction, address);
            }
            ensureOpen();
            requests.checkRegions(context, count);
            return requests.post(postFunction, address, count, true);
        } finally {
            requests.exit();
        }
    }

    /**
     * {@link #postRecv} that throws {@link VerbsException} naming {@code ibv_post_srq_recv}.
     *
     * @param requests the receive requests, as for {@link #postRecv}
     * @param count    how many requests to post, from request 0, 1 to {@code requests.capacity()}
     * @throws VerbsException if the provider refused a request; the message says which (requests before it were
     *                        posted)
     */
    public void postRecvOrThrow(RecvChain requests, int count) {
        int rc = postRecv(requests, count);
        if (rc != 0) {
            throw new VerbsException("ibv_post_srq_recv", rc, requests.describeFailure(count) + " on " + this);
        }
    }

    /**
     * {@code ibv_modify_srq(srq, {srq_limit}, IBV_SRQ_LIMIT)}: arms a one-shot
     * {@link AsyncEventType#SRQ_LIMIT_REACHED} event for when fewer than {@code limit} receives remain.
     *
     * @param limit the low-water mark, in receive requests: the event fires once fewer than this many remain
     *              posted
     * @throws VerbsException naming {@code ibv_modify_srq} and the errno, for example EINVAL for a limit the
     *                        provider does not accept
     */
    public void modifyLimit(int limit) {
        synchronized (treeLock()) {
            ensureOpen();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment attr = arena.allocate(ibv_srq_attr.layout());
                ibv_srq_attr.srq_limit(attr, limit);
                int rc = ibverbs_h.ibv_modify_srq(handle, attr, ibverbs_h.IBV_SRQ_LIMIT());
                if (rc != 0) {
                    throw new VerbsException("ibv_modify_srq", rc, "limit " + limit + " on " + this);
                }
            }
        }
    }

    /**
     * {@code ibv_query_srq}.
     *
     * @return the queue's current capacity and armed limit
     * @throws VerbsException naming {@code ibv_query_srq} and the errno
     */
    public Attributes query() {
        synchronized (treeLock()) {
            ensureOpen();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment attr = arena.allocate(ibv_srq_attr.layout());
                int rc = ibverbs_h.ibv_query_srq(handle, attr);
                if (rc != 0) {
                    throw new VerbsException("ibv_query_srq", rc, toString());
                }
                return new Attributes(ibv_srq_attr.max_wr(attr), ibv_srq_attr.max_sge(attr), ibv_srq_attr.srq_limit(attr));
            }
        }
    }

    @Override
    public String toString() {
        return "SharedReceiveQueue[" + pd.context().name() + " 0x" + Long.toHexString(handle.address()) + "]";
    }
}
