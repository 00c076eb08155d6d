package org.panamaverbs.bench.jmh;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The control for the GC profiler's figures: a benchmark that allocates nothing and takes about as long
 * per operation as the data-path benchmarks. JMH counts the bytes allocated by every thread of the forked
 * VM (getTotalThreadAllocatedBytes), so the harness's own background allocation shows up here as a few
 * bytes per operation at slow operation rates; whatever {@link DataPathBenchmark} shows beyond this
 * baseline at the same time per operation would be the library's.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 8, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class HarnessBaseline {
    /** Blackhole.consumeCPU tokens per operation: about 250 ns and about 50 µs on the TCG guest. */
    @Param({"100", "20000"})
    public long tokens;

    @Benchmark
    public void spin(CallerThreadAllocation allocation) {
        allocation.operations++;
        Blackhole.consumeCPU(tokens);
    }
}
