package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

/** {@code --cpu_util}: perftest's figure from /proc/stat, its column and header, and its note without {@code -D}. */
class CpuUtilizationTest {
    private static PerftestOptions parse(String... args) {
        PerftestOptions options = new PerftestOptions();
        new CommandLine(options).parseArgs(args);
        return options;
    }

    @Test
    void theFigureIsUserOverUserAndIdleAsPerftestReadsProcStat() {
        CpuUtilization.Ticks start = CpuUtilization.parse("cpu  100 7 50 900 3 0 1 0 0 0");
        assertEquals(new CpuUtilization.Ticks(100, 900), start);
        CpuUtilization.Ticks end = CpuUtilization.parse("cpu  130 9 80 990 3 0 1 0 0 0");
        // 30 user ticks, 90 idle: system and nice count in neither
        assertEquals(25.0f, CpuUtilization.percent(start, end));
        assertEquals(0.0f, CpuUtilization.percent(start, start));
        assertEquals(new CpuUtilization.Ticks(0, 0), CpuUtilization.parse("garbage"));
    }

    @Test
    void aSideThatNeverSampledReportsZero() {
        assertEquals("\t    0.00", new CpuUtilization().column());
        assertEquals(",\n\"CPU_util\": 0.00", new CpuUtilization().jsonField());
        CpuUtilization sampled = new CpuUtilization();
        sampled.sampleStarts();
        sampled.sampleEnds();
        assertTrue(sampled.percent() >= 0 && sampled.percent() <= 100);
    }

    @Test
    void onlyATimedRunReportsIt() {
        PerftestOptions timed = parse("--cpu_util", "-D", "4");
        assertTrue(timed.reportsCpuUtil());
        assertSame(timed.cpu, timed.cpuSampler());
        assertTrue(timed.bandwidthHeader().endsWith("MsgRate[Mpps]    CPU_Util[%]"));
        BandwidthReport report = new BandwidthReport(65536, 1000, 0, 790.5, 0.012648);
        assertEquals(report.line(false, true) + "\t    0.00", timed.bandwidthResult(report));
        assertTrue(PerftestJsonFile.bandwidthResults(report, timed).endsWith("\"MsgRate\": 0.012648,\n\"CPU_util\": 0.00\n}\n"));
        // --output prints the one figure without the column, as perftest
        assertEquals("790.500000", parse("--cpu_util", "-D", "4", "--output", "bandwidth").bandwidthResult(report));

        PerftestOptions counted = parse("--cpu_util", "--run_infinitely");
        assertFalse(counted.reportsCpuUtil());
        assertNull(counted.cpuSampler());
        assertEquals(report.line(false, true), counted.bandwidthResult(report)); // no peer yet: the newest table
    }

    @Test
    void withoutDurationPerftestsNoteGoesToStderrAndTheRunGoesOn() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        parse("--cpu_util").warnCpuUtilWithoutDuration(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(BandwidthReport.RESULT_LINE + "\n", out.toString(StandardCharsets.UTF_8));
        assertEquals(" CPU Utilization works only with Duration mode.\n", err.toString(StandardCharsets.UTF_8));
        ByteArrayOutputStream none = new ByteArrayOutputStream();
        PrintStream quiet = new PrintStream(none, true, StandardCharsets.UTF_8);
        parse("--cpu_util", "-D", "4").warnCpuUtilWithoutDuration(quiet, quiet);
        assertEquals(0, none.size());
    }
}
