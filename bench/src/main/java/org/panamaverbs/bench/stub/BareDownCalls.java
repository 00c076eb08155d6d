package org.panamaverbs.bench.stub;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The benchmark's evidence rows: {@code ctx->ops.post_send}, {@code post_recv} and {@code poll_cq} called with a bare
 * FFM downcall through the provider's function pointer, nothing around it, linked the way the library links its
 * own data path (critical unless {@code panamaverbs.critical.post} / {@code panamaverbs.critical.poll} say
 * {@code false}, as in {@code NativeDataPathNonCritical}'s fork). Two forms: segments (a scoped or shared one costs
 * an acquire and release per call) and raw addresses as {@code long}s (the floor for an FFM call).
 */
public final class BareDownCalls {
    private static final boolean CRITICAL_POLL = flag("panamaverbs.critical.poll");
    private static final boolean CRITICAL_POST = flag("panamaverbs.critical.post");
    private static final MethodHandle POLL_CQ = link(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS), CRITICAL_POLL);
    private static final MethodHandle POST = link(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), CRITICAL_POST);
    private static final MethodHandle POLL_CQ_RAW = link(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG),
            CRITICAL_POLL);
    private static final MethodHandle POST_RAW = link(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG),
            CRITICAL_POST);

    private BareDownCalls() {
    }

    private static boolean flag(String property) {
        String value = System.getProperty(property);
        return value == null || Boolean.parseBoolean(value);
    }

    private static MethodHandle link(FunctionDescriptor signature, boolean critical) {
        return critical ? Linker.nativeLinker().downcallHandle(signature, Linker.Option.critical(false))
                : Linker.nativeLinker().downcallHandle(signature);
    }

    /** {@code function(cq, n, wc)}: the number of completions written, or a negative value. */
    public static int pollCq(MemorySegment function, MemorySegment cq, int numEntries, MemorySegment wc) {
        try {
            return (int) POLL_CQ.invokeExact(function, cq, numEntries, wc);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@code function(qp, wr, bad_wr)}: 0 or an errno value. */
    public static int post(MemorySegment function, MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        try {
            return (int) POST.invokeExact(function, qp, wr, badWr);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@link #pollCq(MemorySegment, MemorySegment, int, MemorySegment)} with raw addresses the caller keeps alive. */
    public static int pollCq(MemorySegment function, long cq, int numEntries, long wc) {
        try {
            return (int) POLL_CQ_RAW.invokeExact(function, cq, numEntries, wc);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@link #post(MemorySegment, MemorySegment, MemorySegment, MemorySegment)} with raw addresses the caller keeps alive. */
    public static int post(MemorySegment function, long qp, long wr, long badWr) {
        try {
            return (int) POST_RAW.invokeExact(function, qp, wr, badWr);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
