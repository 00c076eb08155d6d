package org.panamaverbs.bench.jmh;

import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/** {@link DataPathBenchmark} with ordinary downcalls (thread-state transition on every call). */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED",
        "-Dpanamaverbs.critical.poll=false", "-Dpanamaverbs.critical.post=false"})
public class DataPathNonCritical extends DataPathBenchmark {
}
