package org.panamaverbs.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * The stream benchmarks' uncounted warm-up (NettyBench, NioBench): one round, or with the system property
 * {@code settle} rounds until the JIT compiled for at most 1% of one (at most {@value #MAX_SETTLE_ROUNDS}), and the
 * JIT's compiling time a measured run reports beside its figures (docs/benchmarks/netty.md says why).
 */
public final class JitWarmUp {
    /** The most warm-up rounds {@code settle} runs. */
    public static final int MAX_SETTLE_ROUNDS = 30;

    private JitWarmUp() {
    }

    /** One uncounted warm-up round: an exchange on a connection of its own. */
    @FunctionalInterface
    public interface Round {
        void run() throws Exception;
    }

    /**
     * Runs {@code round} once; with {@code settle}, again until the JIT compiled for at most 1% of it; prints what the
     * last round took on standard error.
     *
     * @throws Exception what a round threw
     */
    public static void warmUp(Round round) throws Exception {
        for (int rounds = 1; ; rounds++) {
            long start = System.nanoTime();
            long compiledBefore = compilationMillis();
            round.run();
            long wallMillis = (System.nanoTime() - start) / 1_000_000;
            long compiled = compilationMillis() - compiledBefore;
            // on one emulated CPU the JIT's threads take the exchange's CPU for minutes; "settle" waits them out
            if (!Boolean.getBoolean("settle") || compiled * 100 <= wallMillis || rounds == MAX_SETTLE_ROUNDS) {
                System.err.printf(Locale.ROOT, "warm-up: %d round(s), the last %d ms with %d ms of compiling%n",
                        rounds, wallMillis, compiled);
                return;
            }
        }
    }

    /**
     * The JIT's compiling time so far (all compiler threads).
     *
     * @return milliseconds, or 0 where the JVM does not say
     */
    public static long compilationMillis() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }
}
