package org.panamaverbs.verbs;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import org.panamaverbs.ffi.ibv_cq;
import org.panamaverbs.ffi.ibverbs_h;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.DataPath;
import org.panamaverbs.internal.Unchecked;

/**
 * {@code struct ibv_cq} from {@code ibv_create_cq}, destroyed with {@code ibv_destroy_cq}. Queue pairs
 * that use it are closed before it.
 *
 * <p>{@link #poll(WorkCompletions)} is {@code ibv_poll_cq}, which verbs.h defines inline; it calls the
 * provider's {@code ops.poll_cq} directly, allocates nothing, takes no lock and returns the provider's
 * code instead of throwing. It may be called from any one thread at a time per completion queue.
 *
 * <p>Errors: {@link VerbsException} naming {@code ibv_create_cq} or {@code ibv_destroy_cq}.
 */
public final class CompletionQueue extends VerbsResource {
    private final Context context;
    private final MemorySegment handle;
    private final MemorySegment pollFunction;
    private final int capacity;

    private static final class Native {
        static final MethodHandle CREATE_CQ = CallState.capturingErrno(
                ibverbs_h.ibv_create_cq$address(), ibverbs_h.ibv_create_cq$descriptor());
    }

    private CompletionQueue(Context context, MemorySegment handle) {
        super(context.treeLock(), context);
        this.context = context;
        this.handle = handle;
        this.pollFunction = context.pollCqFunction;
        this.capacity = ibv_cq.cqe(handle);
    }

    static CompletionQueue create(Context context, int minEntries) {
        try (CallState state = CallState.open()) {
            MemorySegment cq = (MemorySegment) Native.CREATE_CQ.invokeExact(state.segment(), context.handle(),
                    minEntries, MemorySegment.NULL, MemorySegment.NULL, 0);
            if (cq.equals(MemorySegment.NULL)) {
                throw new VerbsException("ibv_create_cq", state.errno(), minEntries + " entries on " + context.name()
                        + " (max_cqe " + context.attributes().maxCqe() + ", max_cq " + context.attributes().maxCq() + ")");
            }
            return new CompletionQueue(context, cq.reinterpret(ibv_cq.layout().byteSize()));
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /** The context this queue belongs to. */
    public Context context() {
        return context;
    }

    /** The number of entries the device actually gave ({@code cq->cqe}; at least what was asked). */
    public int capacity() {
        return capacity;
    }

    /** The native {@code struct ibv_cq *}; valid until closed. */
    public MemorySegment handle() {
        ensureOpen();
        return handle;
    }

    /**
     * {@code ibv_poll_cq(cq, completions.capacity(), wc)}: moves up to {@code completions.capacity()}
     * completions into {@code completions}, oldest first.
     *
     * @return the number polled (also in {@link WorkCompletions#count()}), 0 if none, or a negative
     *         value if the provider failed
     * @throws IllegalStateException if this queue or {@code completions} is closed
     */
    public int poll(WorkCompletions completions) {
        return poll(completions, completions.capacity());
    }

    /**
     * {@code ibv_poll_cq(cq, max, wc)}: as {@link #poll(WorkCompletions)}, at most {@code max}.
     *
     * @throws IndexOutOfBoundsException if {@code max} is negative or above the array's capacity
     */
    public int poll(WorkCompletions completions, int max) {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        if (max < 0 || max > completions.capacity()) {
            throw new IndexOutOfBoundsException("cannot poll " + max + " into " + completions.capacity() + " slots");
        }
        int polled = DataPath.pollCq(pollFunction, handle, max, completions.array());
        completions.setCount(polled);
        return polled;
    }

    @Override
    void destroy() {
        int rc = ibverbs_h.ibv_destroy_cq(handle);
        if (rc != 0) {
            throw new VerbsException("ibv_destroy_cq", rc, toString() + " (a queue pair created outside this"
                    + " library may still use it)");
        }
    }

    @Override
    public String toString() {
        return "CompletionQueue[" + context.name() + ", " + capacity + " entries]";
    }
}
