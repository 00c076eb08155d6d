package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

/**
 * perftest 25.01's {@code --out_json} text, as its {@code write_bw_report_to_file} and {@code write_report_lat_to_file}
 * print it (perftest_parameters.c, {@code REPORT_FMT_JSON}, {@code REPORT_FMT_LAT_JSON}); the {@code test_info} part
 * is the banner's and is compared with C perftest's file in the guest.
 */
class PerftestJsonFileTest {
    private static PerftestOptions parse(String... args) {
        PerftestOptions options = new PerftestOptions();
        new CommandLine(options).parseArgs(args);
        return options;
    }

    @Test
    void theFileIsNamedAsPerftestsUnlessToldOtherwise() {
        assertEquals("perftest_out.json", parse("--out_json").outJsonFile);
        assertEquals("/tmp/x.json", parse("--out_json", "--out_json_file", "/tmp/x.json").outJsonFile);
    }

    @Test
    void theTestIsNamedAsPerftestsBannerWithUnderscores() {
        assertEquals("RDMA_Write_BW_Test", PerftestJsonFile.testName("RDMA_Write BW", true, parse()));
        assertEquals("RDMA_Write_Bidirectional_Post_List_BW_Test",
                PerftestJsonFile.testName("RDMA_Write BW", true, parse("-b", "-l", "4")));
        assertEquals("Atomic_FETCH_AND_ADD_BW_Test", PerftestJsonFile.testName("Atomic FETCH_AND_ADD BW", true, parse()));
        assertEquals("Send_Latency_Test", PerftestJsonFile.testName("Send Latency", false, parse("-l", "4")));
    }

    @Test
    void bandwidthResultsAreTheLinesFigures() {
        BandwidthReport r = new BandwidthReport(65536, 5000, 1234.5678, 1200.004, 0.0192);
        assertEquals("\"results\": {\n\"MsgSize\": 65536,\n\"n_iterations\": 5000,\n\"BW_peak\": 1234.57,\n"
                + "\"BW_average\": 1200.00,\n\"MsgRate\": 0.019200\n}\n", PerftestJsonFile.bandwidthResults(r, parse()));
        // below 0.1 Gb/s perftest prints six decimals, in the file as on the line
        BandwidthReport slow = new BandwidthReport(64, 100, 0.05, 0.0412341, 0.08);
        assertEquals("\"results\": {\n\"MsgSize\": 64,\n\"n_iterations\": 100,\n\"BW_peak\": 0.050000,\n"
                + "\"BW_average\": 0.041234,\n\"MsgRate\": 0.080000\n}\n",
                PerftestJsonFile.bandwidthResults(slow, parse("--report_gbits")));
        // --output: the one figure, with perftest's comma and empty line after it
        assertEquals("\"results\": {\n\"bw_avg\": 1200.004000,\n\n}\n",
                PerftestJsonFile.bandwidthResults(r, parse("--output", "bandwidth")));
        assertEquals("\"results\": {\n\"msgRate_avg\": 0.019200,\n\n}\n",
                PerftestJsonFile.bandwidthResults(r, parse("--output", "message_rate")));
    }

    @Test
    void latencyResultsAreTheLinesFigures() {
        long[] posted = new long[12];
        for (int i = 0; i < posted.length; i++) {
            posted[i] = i * 10_000L; // a round trip every 10 us: 5 us each way
        }
        LatencyReport r = LatencyReport.of(2, posted, 2);
        assertEquals(String.format(java.util.Locale.ROOT, "\"results\": {\n\"MsgSize\": 2,\n\"n_iterations\": 12,\n"
                + "\"t_min\": %.2f,\n\"t_max\": %.2f,\n\"t_typical\": %.2f,\n\"t_avg\": %.2f,\n\"t_stdev\": %.2f,\n"
                + "\"percentile_99\": %.2f,\n\"percentile_99.9\": %.2f\n}\n", r.min(), r.max(), r.typical(),
                r.average(), r.stdev(), r.p99(), r.p999()), PerftestJsonFile.latencyResults(r, parse()));
        assertEquals("5.00", String.format(java.util.Locale.ROOT, "%.2f", r.typical()));
        assertEquals(String.format(java.util.Locale.ROOT, "\"results\": {\n\"avg_lat\": %f\n}\n", r.average()),
                PerftestJsonFile.latencyResults(r, parse("--output", "latency")));
    }
}
