package org.panamaverbs.bench.jmh;

import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/** {@link DataPathBenchmark} with poll_cq, post_send and post_recv linked {@code Linker.Option.critical(false)}. */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED",
        "-Dpanamaverbs.critical.poll=true", "-Dpanamaverbs.critical.post=true"})
public class DataPathCritical extends DataPathBenchmark {
}
