package org.panamaverbs.bench.jmh;

import org.openjdk.jmh.annotations.Fork;

/**
 * {@link NativeDataPath} with the library's poll_cq, post_send and post_recv linked without
 * {@code Linker.Option.critical} (a thread-state transition per downcall, like JNI's). bench/native-datapath
 * runs only its Java benchmarks; the C loops and JNI do not depend on the flag.
 */
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED",
        "-Dpanamaverbs.critical.poll=false", "-Dpanamaverbs.critical.post=false"})
public class NativeDataPathNonCritical extends NativeDataPath {
}
