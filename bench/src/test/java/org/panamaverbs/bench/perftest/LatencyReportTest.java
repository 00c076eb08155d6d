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
}
