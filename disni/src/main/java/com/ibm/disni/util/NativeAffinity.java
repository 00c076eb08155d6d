package com.ibm.disni.util;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.util.NativeAffinity}: the CPU affinity of the calling
 * thread as a 64-bit mask (bit n = CPU n), through libc's {@code sched_setaffinity(0, ...)} and
 * {@code sched_getaffinity(0, ...)} called with the Foreign Function and Memory API (DiSNI needed its JNI
 * library {@code libdisni} for this). Needs {@code --enable-native-access=ALL-UNNAMED} like the rest of
 * Panama Verbs (without it the JDK prints its restricted-method warning).
 *
 * <p>The mask applies to the OS thread that calls: for a virtual thread that is its current carrier, which
 * other virtual threads share, so pin platform threads only. CPUs 64 and above cannot be named (the mask is
 * a {@code long}, as in DiSNI). No memory outlives a call.
 */
public class NativeAffinity {

    /** Bytes of cpu_set_t passed to the kernel: 1024 CPUs, glibc's CPU_SETSIZE. */
    private static final long CPU_SET_BYTES = 128;

    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(
            java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle SET;
    private static final MethodHandle GET;

    static {
        Linker linker = Linker.nativeLinker();
        FunctionDescriptor fd = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                ValueLayout.JAVA_LONG, ValueLayout.ADDRESS);
        Linker.Option errno = Linker.Option.captureCallState("errno");
        SET = linker.downcallHandle(linker.defaultLookup().find("sched_setaffinity").orElseThrow(), fd, errno);
        GET = linker.downcallHandle(linker.defaultLookup().find("sched_getaffinity").orElseThrow(), fd, errno);
    }

    /** DiSNI 2.1 has this public constructor; every method is static. */
    public NativeAffinity() {
    }

    /**
     * Restricts the calling thread to the CPUs of {@code affinity}; a mask of 0 or less leaves the thread
     * as it is, as in DiSNI (which is why DiSNI's CQ threads, started with 0, are not pinned).
     *
     * @param affinity bit n set: the thread may run on CPU n
     * @throws IllegalArgumentException if the kernel refuses the mask ({@code sched_setaffinity} failed,
     *         for example {@code EINVAL (Invalid argument)} when no CPU of the mask is online); DiSNI ignored the failure
     */
    public static void setAffinity(long affinity) {
        if (affinity <= 0) {
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment set = arena.allocate(CPU_SET_BYTES, 8);
            set.set(ValueLayout.JAVA_LONG, 0, affinity);
            MemorySegment state = arena.allocate(CAPTURE);
            int rc = (int) SET.invokeExact(state, 0, CPU_SET_BYTES, set);
            if (rc != 0) {
                throw new IllegalArgumentException("sched_setaffinity(0x" + Long.toHexString(affinity)
                        + ") failed: " + org.panamaverbs.verbs.Errno.describe((int) ERRNO.get(state, 0L)));
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Returns the CPUs the calling thread may run on.
     *
     * @return bit n set: CPU n is allowed (CPUs 64 and above are not shown)
     * @throws IllegalStateException if {@code sched_getaffinity} fails (it does not for the calling thread)
     */
    public static long getAffinity() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment set = arena.allocate(CPU_SET_BYTES, 8);
            MemorySegment state = arena.allocate(CAPTURE);
            int rc = (int) GET.invokeExact(state, 0, CPU_SET_BYTES, set);
            if (rc < 0) {
                throw new IllegalStateException("sched_getaffinity failed: "
                        + org.panamaverbs.verbs.Errno.describe((int) ERRNO.get(state, 0L)));
            }
            return set.get(ValueLayout.JAVA_LONG, 0);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
