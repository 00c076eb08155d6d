package org.panamaverbs.bench.perftest;

import java.util.Locale;

/**
 * perftest's duration mode for the latency tools ({@code -D}): from its start the run spends the margin unmeasured,
 * samples until the margin before the end, and ends after the duration (perftest's alarm-driven states, read here
 * from the clock by the loop). The messages counted while sampling over the sample's time give perftest's
 * {@code print_report_lat_duration}: the average latency and the transactions per second.
 */
final class TimedSample {
    /** The duration report's header ({@code RESULT_FMT_LAT_DUR}). */
    static final String RESULT_FMT_LAT_DUR = " #bytes        #iterations       t_avg[usec]    tps average";
    private static final String REPORT_FMT_LAT_DUR = " %-7d       %d            %-7.2f        %-7.2f";

    private final long durationNanos;
    private final long marginNanos;
    /** --cpu_util's readings, or null */
    private final CpuUtilization cpu;
    /** when the run started (System.nanoTime), 0 until {@link #start} */
    private long start;
    private long sampleStart;
    private long sampleEnd;
    private boolean over;
    /** the messages counted while sampling */
    private long counted;

    TimedSample(long durationNanos, long marginNanos, CpuUtilization cpu) {
        this.durationNanos = durationNanos;
        this.marginNanos = marginNanos;
        this.cpu = cpu;
    }

    /** Starts the clock (the loop's start, or with SEND the first receive, as perftest). */
    void start() {
        start = System.nanoTime();
        tick(start);
    }

    boolean started() {
        return start != 0;
    }

    /** Whether the duration has passed; moves the sample's start and end as the clock passes them. */
    boolean over() {
        if (start != 0 && !over) {
            tick(System.nanoTime());
        }
        return over;
    }

    private void tick(long now) {
        if (sampleStart == 0 && now - (start + marginNanos) >= 0) {
            sampleStart = now;
            if (cpu != null) {
                cpu.sampleStarts();
            }
        }
        if (sampleEnd == 0 && now - (start + durationNanos - marginNanos) >= 0) {
            sampleEnd = now;
            if (cpu != null) {
                cpu.sampleEnds();
            }
        }
        over = now - (start + durationNanos) >= 0;
    }

    /** Counts a message completed now if the sample is being taken. */
    void count() {
        if (!over()) {
            if (sampleStart != 0 && sampleEnd == 0) {
                counted++;
            }
        }
    }

    long counted() {
        return counted;
    }

    /**
     * perftest's average latency: the sample's time over the messages, halved for the tools whose message is a
     * round trip's half ({@code roundTrips} 2: WRITE and SEND; 1: READ and atomics), in microseconds.
     */
    double latencyMicros(int roundTrips) {
        return (sampleEnd - sampleStart) / 1e3 / roundTrips / counted;
    }

    /** perftest's transactions per second. */
    double transactionsPerSecond() {
        return counted / ((sampleEnd - sampleStart) / 1e9);
    }

    /** perftest's result line ({@code REPORT_FMT_LAT_DUR}), without {@code --cpu_util}'s column. */
    String line(long size, int roundTrips) {
        return String.format(Locale.ROOT, REPORT_FMT_LAT_DUR, size, counted, latencyMicros(roundTrips),
                transactionsPerSecond());
    }
}
