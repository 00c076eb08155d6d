package org.panamaverbs.bench.jmh;

import java.lang.management.ManagementFactory;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A JMH secondary result next to the GC profiler's: bytes allocated per operation by the benchmark
 * thread alone. The GC profiler's gc.alloc.rate.norm sums every thread of the forked VM, so the
 * harness's own background allocation (see {@link HarnessBaseline}) appears as a fraction of a byte per
 * operation when operations are slow, as they are under TCG; this counter excludes it.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.EVENTS)
public class CallerThreadAllocation {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private long startBytes;
    long operations;

    /** Reported by JMH as {@code <benchmark>:callerThreadBytesPerOp}. */
    public double callerThreadBytesPerOp;

    @Setup(Level.Iteration)
    public void begin() {
        operations = 0;
        startBytes = THREADS.getCurrentThreadAllocatedBytes();
    }

    @TearDown(Level.Iteration)
    public void end() {
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - startBytes;
        callerThreadBytesPerOp = operations == 0 ? 0 : (double) allocated / operations;
    }
}
