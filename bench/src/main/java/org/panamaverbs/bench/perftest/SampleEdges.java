package org.panamaverbs.bench.perftest;

/**
 * Per queue pair, what a duration sample counted ({@code --report-per-port}'s {@code iters_per_port}): counters the
 * run keeps anyway, read at the sample's start and at its end ({@link ClockedRounds#sample}'s edge), outside the loop.
 */
final class SampleEdges implements Runnable {
    private final long[] live;
    private long[] atStart;
    private long[] inSample;

    /** @param live the run's counters per queue pair, which only grow during the sample */
    SampleEdges(long[] live) {
        this.live = live;
    }

    /** The first call marks the sample's start, the second its end. */
    @Override
    public void run() {
        if (atStart == null) {
            atStart = live.clone();
            return;
        }
        inSample = new long[live.length];
        for (int q = 0; q < live.length; q++) {
            inSample[q] = live[q] - atStart[q];
        }
    }

    /** Per queue pair, what completed between the edges (zeros before the sample ended). */
    long[] inSample() {
        return inSample != null ? inSample : new long[live.length];
    }
}
