package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Test;

class BandwidthReportTest {
    /** A run posting every {@code gap} ns, every 100th request signaled and completed {@code latency} ns later. */
    private record SteadyRun(long[] posted, long[] completed, boolean[] signaled) {
        static SteadyRun of(int n, long gap, long latency) {
            SteadyRun run = new SteadyRun(new long[n], new long[n], new boolean[n]);
            for (int i = 0; i < n; i++) {
                run.posted[i] = gap * i;
                run.signaled[i] = i % 100 == 99 || i == n - 1;
                run.completed[i] = run.signaled[i] ? run.posted[i] + latency : 0;
            }
            return run;
        }

        BandwidthReport report(boolean noPeak) {
            return BandwidthReport.of(1024, posted, completed, signaled, false, noPeak);
        }
    }

    @Test
    void peakMatchesPerftestsQuadraticLoopsOnRandomRuns() {
        Random random = new Random(0x5eed);
        for (int run = 0; run < 300; run++) {
            int n = 1 + random.nextInt(400);
            int cqMod = 1 + random.nextInt(20);
            long[] posted = new long[n];
            long[] completed = new long[n];
            boolean[] signaled = new boolean[n];
            long now = random.nextInt(1000);
            for (int i = 0; i < n; i++) {
                now += random.nextInt(50) + (random.nextInt(30) == 0 ? random.nextInt(5000) : 0);
                posted[i] = now;
                signaled[i] = i % cqMod == cqMod - 1 || i == n - 1;
            }
            long done = posted[0];
            for (int i = 0; i < n; i++) {
                done = Math.max(done, posted[i]) + random.nextInt(80) + (random.nextInt(40) == 0 ? random.nextInt(9000) : 0);
                completed[i] = signaled[i] ? done : 0;
            }
            double expected = BandwidthReport.bestNanosPerMessageQuadratic(posted, completed, signaled);
            double actual = BandwidthReport.bestNanosPerMessage(posted, completed, signaled);
            assertEquals(expected, actual, Math.abs(expected) * 1e-12, "run " + run + ", n " + n + ", cq_mod " + cqMod);
        }
    }

    @Test
    void peakOfAMillionIterationsIsFast() {
        int n = 1_000_000;
        SteadyRun run = SteadyRun.of(n, 100, 5000);
        long start = System.nanoTime();
        double best = BandwidthReport.bestNanosPerMessage(run.posted, run.completed, run.signaled);
        long millis = (System.nanoTime() - start) / 1_000_000;
        // the full window: (100 * (n - 1) + 5000) / n
        assertEquals((100.0 * (n - 1) + 5000) / n, best, 1e-9);
        System.out.println("peak of 10^6 iterations computed in " + millis + " ms");
    }

    /** perftest's noPeak: above 20000 iterations it reports a peak of 0, and the average over the whole run. */
    @Test
    void runsAbove20000IterationsReportNoPeak() {
        for (int n : new int[] {20000, 20001}) {
            BandwidthReport r = SteadyRun.of(n, 1000, 500).report(false);
            assertEquals(n, r.iterations());
            assertEquals(n > 20000, r.peak() == 0, "peak " + r.peak() + " for " + n);
            double seconds = (1000.0 * (n - 1) + 500) / 1e9;
            assertEquals(1024.0 * n / seconds / 0x100000, r.average(), 1e-6);
        }
    }

    /** {@code -N}: no peak at any length, the same average. */
    @Test
    void noPeakReportsAPeakOfZeroAndTheSameAverage() {
        SteadyRun run = SteadyRun.of(1000, 1000, 500);
        BandwidthReport measured = run.report(false);
        BandwidthReport unmeasured = run.report(true);
        assertTrue(measured.peak() > 0, "peak " + measured.peak());
        assertEquals(0, unmeasured.peak());
        assertEquals(measured.average(), unmeasured.average());
        assertEquals(measured.messageRate(), unmeasured.messageRate());
    }

    @Test
    void linesAreFormattedAsPerftestPrintsThem() {
        BandwidthReport r = new BandwidthReport(65536, 5000, 812.345, 790.5, 0.012648);
        assertEquals(" 65536      5000             812.35             790.50 \t\t   0.012648", r.line(false));
        // perftest 24.07 and later: two more spaces before the message rate, under "MiB/sec"
        assertEquals(" 65536      5000             812.35             790.50 \t\t     0.012648", r.line(false, true));
        assertEquals(" #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]",
                BandwidthReport.RESULT_FMT_MIB);
        BandwidthReport slow = new BandwidthReport(2, 1000, 0.012, 0.011, 0.68);
        assertEquals(" 2          1000           0.012000            0.011000            0.680000", slow.line(true));
    }
}
