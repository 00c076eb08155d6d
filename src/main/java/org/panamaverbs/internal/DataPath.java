package org.panamaverbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import org.panamaverbs.ffi.ibv_context;
import org.panamaverbs.ffi.ibv_context_ops;

/**
 * The three data-path verbs, which verbs.h defines {@code static inline} so jextract cannot bind them:
 * <pre>{@code
 * static inline int ibv_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
 * { return cq->context->ops.poll_cq(cq, num_entries, wc); }
 * static inline int ibv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
 * { return qp->context->ops.post_send(qp, wr, bad_wr); }
 * static inline int ibv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
 * { return qp->context->ops.post_recv(qp, wr, bad_wr); }
 * }</pre>
 * Each context's provider pointers are read once when it opens ({@link #opsPointer}); the calls go
 * through address-less downcall handles held in {@code static final} fields so the JIT can inline them.
 *
 * <p>The library's posts and polls use the {@code long} forms ({@link #post(MemorySegment, long, long, long)},
 * {@link #pollCq(MemorySegment, long, int, long)}): the object and array pointers cross as plain 64-bit
 * integers, so the downcall has no segment to check and no shared scope to acquire and release (two atomic
 * operations per scope). Keeping those pointers alive is then the caller's job ({@code InFlight} in the
 * verbs package). The segment forms remain for callers that want the FFM runtime to keep scoped
 * arguments alive, and as the benchmarks' evidence of what scopes cost.
 *
 * <p>{@code Linker.Option.critical} (no thread-state transition) is decided per call. All three are
 * short and never block (rxe's post_send makes one non-blocking write() to the kernel; PVRDMA's
 * writes a doorbell), so they qualify; the default is critical for all of them, chosen from the JMH
 * comparison recorded in docs/benchmarks/data-path.md (empty poll_cq 218 ns critical against 258 ns not, in the TCG
 * guest; the post round trips were equal within their noise). Override for measurement with the system properties
 * {@code panamaverbs.critical.poll} and {@code panamaverbs.critical.post} ({@code true}/{@code false}).
 */
public final class DataPath {
    /** Whether poll_cq is linked critical. */
    public static final boolean CRITICAL_POLL = flag("panamaverbs.critical.poll", true);
    /** Whether post_send and post_recv are linked critical. */
    public static final boolean CRITICAL_POST = flag("panamaverbs.critical.post", true);

    private static final FunctionDescriptor POLL_CQ_SIGNATURE = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS);
    private static final FunctionDescriptor POST_SIGNATURE = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS);

    private static final MethodHandle POLL_CQ = link(POLL_CQ_SIGNATURE, CRITICAL_POLL);
    private static final MethodHandle POST = link(POST_SIGNATURE, CRITICAL_POST);
    // pointers as JAVA_LONG: the ABI passes both in the same integer registers on the 64-bit platforms we support
    private static final MethodHandle POLL_CQ_RAW = link(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG), CRITICAL_POLL);
    private static final MethodHandle POST_RAW = link(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), CRITICAL_POST);
    private static final MethodHandle REQ_NOTIFY = link(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), CRITICAL_POLL);

    /** Offsets of the provider pointers inside {@code struct ibv_context}, from the generated layouts. */
    public static final long POLL_CQ_OFFSET = ibv_context.ops$offset() + ibv_context_ops.poll_cq$offset();
    public static final long POST_SEND_OFFSET = ibv_context.ops$offset() + ibv_context_ops.post_send$offset();
    public static final long POST_RECV_OFFSET = ibv_context.ops$offset() + ibv_context_ops.post_recv$offset();
    /** {@code ibv_post_srq_recv(srq, wr, bad_wr)} is {@code srq->context->ops.post_srq_recv(srq, wr, bad_wr)}. */
    public static final long POST_SRQ_RECV_OFFSET = ibv_context.ops$offset() + ibv_context_ops.post_srq_recv$offset();
    /** {@code ibv_req_notify_cq(cq, solicited_only)} is {@code cq->context->ops.req_notify_cq(cq, solicited_only)}. */
    public static final long REQ_NOTIFY_CQ_OFFSET = ibv_context.ops$offset() + ibv_context_ops.req_notify_cq$offset();

    private DataPath() {
    }

    private static boolean flag(String property, boolean defaultValue) {
        String value = System.getProperty(property);
        return value == null ? defaultValue : Boolean.parseBoolean(value);
    }

    private static MethodHandle link(FunctionDescriptor signature, boolean critical) {
        Linker linker = Linker.nativeLinker();
        return critical
                ? linker.downcallHandle(signature, Linker.Option.critical(false))
                : linker.downcallHandle(signature);
    }

    /**
     * Reads one provider function pointer from an open {@code struct ibv_context}.
     *
     * @param context the context, reinterpreted to at least {@code NativeLayouts.selected().ibvContext().byteSize()}
     * @param offset  one of the {@code *_OFFSET} constants
     * @return the pointer (NULL if the provider does not implement it)
     */
    public static MemorySegment opsPointer(MemorySegment context, long offset) {
        return context.get(ADDRESS, offset);
    }

    /** {@code ops.poll_cq(cq, n, wc)}: the number of completions written, or a negative value on error. */
    public static int pollCq(MemorySegment function, MemorySegment cq, int numEntries, MemorySegment wc) {
        try {
            return (int) POLL_CQ.invokeExact(function, cq, numEntries, wc);
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /** {@code ops.req_notify_cq(cq, solicited_only)}: 0 or an errno value. Linked like poll_cq. */
    public static int requestNotify(MemorySegment function, MemorySegment cq, int solicitedOnly) {
        try {
            return (int) REQ_NOTIFY.invokeExact(function, cq, solicitedOnly);
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /** {@code ops.post_send(qp, wr, bad_wr)} or {@code ops.post_recv(qp, wr, bad_wr)}: 0 or an errno value. */
    public static int post(MemorySegment function, MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        try {
            return (int) POST.invokeExact(function, qp, wr, badWr);
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /**
     * {@code ops.poll_cq(cq, n, wc)} with raw pointers: nothing keeps {@code cq} or {@code wc} alive, the
     * caller must.
     */
    public static int pollCq(MemorySegment function, long cq, int numEntries, long wc) {
        try {
            return (int) POLL_CQ_RAW.invokeExact(function, cq, numEntries, wc);
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /**
     * {@code ops.post_send(qp, wr, bad_wr)}, {@code ops.post_recv} or {@code ops.post_srq_recv} with raw
     * pointers: nothing keeps them alive, the caller must.
     */
    public static int post(MemorySegment function, long target, long wr, long badWr) {
        try {
            return (int) POST_RAW.invokeExact(function, target, wr, badWr);
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }
}
