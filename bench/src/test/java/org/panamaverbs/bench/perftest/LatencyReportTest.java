package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LatencyReportTest {
    /** Posts 10 µs apart (a round trip), except two slow gaps perftest drops as its tail. */
    @Test
    void followsPerftestsArithmetic() {
        long[] gapsNanos = {20_000, 22_000, 18_000, 20_000, 24_000, 500_000, 20_000, 16_000, 900_000};
        long[] posted = new long[gapsNanos.length + 1];
        for (int i = 0; i < gapsNanos.length; i++) {
            posted[i + 1] = posted[i] + gapsNanos[i];
        }
        LatencyReport r = LatencyReport.of(2, posted, 2);
        // samples (µs, halved): 10 11 9 10 12 250 10 8 450 -> sorted 8 9 10 10 10 11 12 | 250 450 dropped
        assertEquals(8.0, r.min());
        assertEquals(250.0, r.max()); // perftest prints delta[measure_cnt], the first dropped sample
        assertEquals(10.0, r.typical()); // 7 kept: odd count, the middle one
        assertEquals(70.0 / 7, r.average(), 1e-12);
        // int deviations: 2, 1, 0, 0, 0, -1, -2 -> squares 4 1 0 0 0 1 4 = 10 -> sqrt(10/7)
        assertEquals(Math.sqrt(10.0 / 7), r.stdev(), 1e-12);
        assertEquals(250.0, r.p99()); // ceil(7 * 0.99) = 7
        assertEquals(10, r.iterations());
        assertEquals(" 2       10          8.00           250.00       10.00    \t       10.00       \t1.20   \t\t250.00  \t\t250.00 ",
                r.line());
        assertEquals(10_000, r.histogram().getValueAtPercentile(50), 10);
    }

    /** {@code -U}: every sample in the order measured, the two largest that the figures drop included. */
    @Test
    void unsortedLinesAreEverySampleAsMeasured() {
        long[] gapsNanos = {20_000, 500_000, 18_000, 900_000, 24_000};
        long[] posted = new long[gapsNanos.length + 1];
        for (int i = 0; i < gapsNanos.length; i++) {
            posted[i + 1] = posted[i] + gapsNanos[i];
        }
        LatencyReport r = LatencyReport.of(2, posted, 2);
        assertEquals("#, usec\n1, 10\n2, 250\n3, 9\n4, 450\n5, 12\n", r.unsortedLines());
        assertEquals("#, usec\n1, 9\n2, 10\n3, 12\n", r.histogramLines());
    }

    @Test
    void evenCountTakesTheMeanOfTheMiddleTwo() {
        long[] posted = {0, 2000, 6000, 12000, 20000, 30000, 42000, 56000, 72000};
        // gaps 2,4,6,8,10,12,14,16 µs, read factor 1; kept 2..12 (6 samples), median (6 + 8) / 2
        LatencyReport r = LatencyReport.of(64, posted, 1);
        assertEquals(7.0, r.typical());
    }

    @Test
    void tooFewIterationsAreRefused() {
        assertThrows(PerftestException.class, () -> LatencyReport.of(2, new long[] {0, 1, 2}, 2));
    }

    @Test
    void histogramLinesUseCsPercentG() {
        assertEquals("12.3457", LatencyReport.cG(12.34567));
        assertEquals("10", LatencyReport.cG(10.0));
        assertEquals("0.5", LatencyReport.cG(0.5));
        assertEquals("1.23457e+06", LatencyReport.cG(1234567.0));
        LatencyReport r = LatencyReport.of(2, new long[] {0, 2000, 4000, 6000, 8000, 10000}, 2);
        assertTrue(r.histogramLines().startsWith("#, usec\n1, 1\n2, 1\n3, 1\n"), r.histogramLines());
    }

    /**
     * {@code -C}: the same arithmetic on whole cycles (here 2.5 per ns), the median of the middle two an integer
     * division as perftest's cycles_t, and the samples' header "#, cycles".
     */
    @Test
    void reportCyclesConvertsNanosecondsAtTheCpuMhz() {
        long[] gapsNanos = {2_000, 2_002, 2_004, 2_006, 90_000, 80_000};
        long[] posted = new long[gapsNanos.length + 1];
        for (int i = 0; i < gapsNanos.length; i++) {
            posted[i + 1] = posted[i] + gapsNanos[i];
        }
        LatencyReport r = LatencyReport.of(2, posted, 2, 2500);
        // cycles 5000 5005 5010 5015 | 200000 225000 dropped; halved 2500 2502.5 2505 2507.5
        assertEquals("cycles", r.units());
        assertEquals(2500.0, r.min());
        assertEquals(100000.0, r.max());
        assertEquals((5005 + 5010) / 2 / 2.0, r.typical()); // (10015 / 2 = 5007) / 2
        assertEquals(2503.75, r.average(), 1e-9);
        assertEquals("#, cycles\n1, 2500\n2, 2502.5\n3, 2505\n4, 2507.5\n", r.histogramLines());
        assertTrue(r.unsortedLines().startsWith("#, cycles\n1, 2500\n"), r.unsortedLines());
        assertTrue(r.line().startsWith(" 2       7          2500.00        100000.00      2503.50  "), r.line());
        assertEquals("usec", LatencyReport.of(2, posted, 2).units());
    }

    /**
     * perftest's int deviations in cycles: one above 46340 squares past INT_MAX, which x86 converts to INT_MIN, so
     * the sum turns negative and perftest prints "-nan" for the deviation (as it does on x86).
     */
    @Test
    void aDeviationPastIntRangeIsPrintedAsPerftestPrintsIt() {
        assertEquals(Integer.MIN_VALUE, LatencyReport.cInt(3e9));
        assertEquals(Integer.MIN_VALUE, LatencyReport.cInt(Double.NaN));
        assertEquals(-7, LatencyReport.cInt(-7.9));
        long[] gapsNanos = {20_000, 400_000, 20_000, 400_000, 900_000, 900_000};
        long[] posted = new long[gapsNanos.length + 1];
        for (int i = 0; i < gapsNanos.length; i++) {
            posted[i + 1] = posted[i] + gapsNanos[i];
        }
        // 1 cycle per ns, halved: 10000 10000 200000 200000 kept; average 105000; every deviation 95000, squared
        // past INT_MAX: INT_MIN four times
        LatencyReport r = LatencyReport.of(2, posted, 2, 1000);
        assertTrue(Double.isNaN(r.stdev()));
        assertTrue(r.line().contains("\t-nan   \t\t"), r.line());
    }
}
