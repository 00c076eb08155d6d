package org.panamaverbs.bench.perftest;

import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * The uncounted runs of the bandwidth tools, driven by the clock: perftest's duration mode ({@code -D}: the first
 * margin unmeasured, a sample until the margin before the end, then on until the end; the START, SAMPLE and END
 * states its alarm sets) and {@code --run_infinitely} (a report per period until stopped). A round keeps the queues
 * busy and says how many messages completed in it.
 *
 * <p>Rounds run in slices of {@link #SLICE_NANOS}, each a call of its own. The JIT compiles a loop it has only seen go
 * round with a trap where it ends; a loop first left where the sample starts would be thrown away there and compiled
 * again on the tool's CPU, inside the sample (about 0.85 s of C2 in a 10 s sample under emulation, 8 % of the
 * message rate). A slice's end is seen a thousand times a second, so the end of a state recompiles nothing.
 */
final class ClockedRounds {
    static final long SLICE_NANOS = 1_000_000;

    private ClockedRounds() {
    }

    /** What a sample counted, over how long. */
    record Sample(long messages, long nanos) {
    }

    /** Hands over a period's figures ({@code --run_infinitely}). */
    interface PeriodReport {
        void period(long messages, long nanos);
    }

    /**
     * perftest's {@code -D}: runs {@code round} from {@code start} for {@code durationNanos}, counting what completes
     * between the margins (with no margin, from {@code start}); {@code cpu} (or null) reads /proc/stat where the
     * sample starts and ends, and {@code edge} (or null) runs there too.
     */
    static Sample sample(long start, long durationNanos, long marginNanos, CpuUtilization cpu, LongSupplier round,
            Runnable edge) {
        until(start + marginNanos, round);
        long sampleStart = marginNanos == 0 ? start : System.nanoTime();
        if (cpu != null) {
            cpu.sampleStarts();
        }
        if (edge != null) {
            edge.run();
        }
        long messages = until(start + durationNanos - marginNanos, round);
        long sampleEnd = System.nanoTime();
        if (cpu != null) {
            cpu.sampleEnds();
        }
        if (edge != null) {
            edge.run();
        }
        until(start + durationNanos, round);
        return new Sample(messages, sampleEnd - sampleStart);
    }

    /**
     * perftest's {@code --run_infinitely}: runs {@code round} until {@code stopped} says so (asked once a slice) and
     * hands {@code report} each period's figures, from this thread, so that the count and the clock are read together.
     */
    static void periods(long periodNanos, LongSupplier round, PeriodReport report, BooleanSupplier stopped) {
        long periodStart = System.nanoTime();
        long periodEnd = periodStart + periodNanos;
        long messages = 0;
        while (!stopped.getAsBoolean()) {
            messages += slice(sliceEnd(System.nanoTime(), periodEnd), round);
            long now = System.nanoTime();
            if (now - periodEnd >= 0) {
                report.period(messages, now - periodStart);
                periodStart = now;
                periodEnd = now + periodNanos;
                messages = 0;
            }
        }
    }

    /** Runs rounds until {@code deadline} (none if it has passed); what completed in them. */
    private static long until(long deadline, LongSupplier round) {
        long messages = 0;
        for (long now = System.nanoTime(); now - deadline < 0; now = System.nanoTime()) {
            messages += slice(sliceEnd(now, deadline), round);
        }
        return messages;
    }

    private static long sliceEnd(long now, long deadline) {
        return deadline - now > SLICE_NANOS ? now + SLICE_NANOS : deadline;
    }

    /** Runs rounds, at least one, until {@code end}; what completed in them. */
    private static long slice(long end, LongSupplier round) {
        long messages = 0;
        do {
            messages += round.getAsLong();
        } while (System.nanoTime() - end < 0);
        return messages;
    }
}
