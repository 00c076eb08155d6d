package org.panamaverbs.bench.perftest;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;

/**
 * perftest 25.01's {@code --out_json} results file ({@code --out_json_file}, default {@code perftest_out.json} in
 * the working directory): rewritten each time a side prints a result line, so after {@code -a} it holds the last
 * size and with {@code --run_infinitely} the last period, as perftest's. Its text is perftest's key for key and
 * line for line: the banner's facts as {@code "test_info"} ({@code write_test_info_to_file}), the figures as
 * {@code "results"}, including perftest's trailing comma with {@code --output}.
 */
final class PerftestJsonFile {
    /** perftest's {@code DEFAULT_JSON_FILE_NAME}. */
    static final String DEFAULT_NAME = "perftest_out.json";

    private final Path path;
    private final String testInfo;
    private final PerftestOptions o;
    private final PrintStream stderr;

    private PerftestJsonFile(Path path, String testInfo, PerftestOptions o, PrintStream stderr) {
        this.path = path;
        this.testInfo = testInfo;
        this.o = o;
        this.stderr = stderr;
    }

    /** The file of {@code --out_json}, or null without it ({@code --out_json_file} alone names it, writes nothing). */
    static PerftestJsonFile of(PerftestOptions o, PerftestSession s) {
        return o.outJson ? new PerftestJsonFile(Path.of(o.outJsonFile), s.jsonTestInfo, o, System.err) : null;
    }

    /**
     * The {@code "test_info"} object: what the banner printed ({@link PerftestSession}'s {@code printBanner}), under
     * perftest's keys and in its order, with the same conditions.
     */
    static String testInfo(PerftestSession s, String testTitle, boolean bandwidth, String linkType, int gidIndex,
            int txDepth, int rxDepth) {
        PerftestOptions o = s.options;
        StringBuilder b = new StringBuilder("\"test_info\": {\n");
        b.append("\"test\": \"").append(testName(testTitle, bandwidth, o)).append("\",\n");
        if (o.events) {
            b.append("\"Test with events\": \"Using_").append(s.context.name()).append("_comp")
                    .append(s.options.eventVector()).append("\",\n");
        }
        b.append("\"Dual_port\": \"").append(s.dualPort != null ? "ON" : "OFF").append("\",\n\"Device\": \"")
                .append(s.context.name()).append("\",\n");
        b.append("\"Number_of_qps\": ").append(s.qps.size()).append(",\n\"Transport_type\": \"IB\",\n");
        b.append("\"Connection_type\": \"").append(s.datagram ? "UD" : "RC").append("\",\n\"Using_SRQ\": \"")
                .append(o.sharedReceiveQueue ? "ON" : "OFF").append("\",\n");
        b.append(" \"PCIe_relax_order\": \"Unsupported\",\n"); // the leading space is perftest's (a build without RO)
        b.append("\"ibv_wr_API\": \"OFF\",\n");
        if (o.isClient() || o.bidirectional) {
            b.append("\"TX_depth\": ").append(txDepth).append(",\n");
        }
        if (o.postList > 1) {
            b.append("\"Post_List\": ").append(o.postList).append(",\n");
        }
        if (o.recvPostList > 1) {
            b.append("\"Recv_Post_List\": ").append(o.recvPostList).append(",\n");
        }
        if (s.receives() && (!o.isClient() || o.bidirectional)) {
            b.append("\"RX_depth\": ").append(rxDepth).append(",\n");
        }
        if (bandwidth) {
            b.append("\"CQ_Moderation\": ").append(Math.min(o.cqModeration(), txDepth)).append(",\n");
        }
        b.append("\"Mtu\": ").append(s.pathMtu.bytes()).append(",\n");
        b.append("\"Link_type\": \"").append(linkType).append("\",\n");
        b.append("\"GID_index\": ").append(gidIndex).append(",\n");
        if (s.readTest) {
            b.append("\"Outstand_reads\": ").append(s.mine.outReads()).append(",\n");
        } else {
            b.append("\"Max_inline_data\": ").append(o.inlineSize()).append(",\n");
        }
        b.append("\"rdma_cm_QPs\": \"").append(o.rdmaCm ? "ON" : "OFF").append("\",\n");
        b.append("\"Use_ROCm_memory\": \"OFF\",\n");
        b.append("\"Data_ex_method\": \"").append(s.exchangesOverRdmaCm() ? "rdma_cm" : "Ethernet").append("\"");
        if (s.exchangesOverRdmaCm() && o.typeOfService != null) {
            b.append(",\n\"TOS\": ").append(o.typeOfService);
        }
        return b.append("\n},\n").toString();
    }

    /**
     * perftest's test name in the file: the banner's words joined by "_", with "Bidirectional" and "Post List" where
     * its banner has them ("RDMA_Write_Bidirectional_Post_List_BW_Test").
     */
    static String testName(String testTitle, boolean bandwidth, PerftestOptions o) {
        List<String> words = new ArrayList<>(List.of(testTitle.split(" ")));
        String kind = words.removeLast(); // "BW" or "Latency"
        if (bandwidth && o.bidirectional) {
            words.add("Bidirectional");
        }
        if (bandwidth && o.postList > 1) {
            words.addAll(List.of("Post", "List"));
        }
        words.add(kind);
        words.add("Test");
        return String.join("_", words);
    }

    /** {@code write_bw_report_to_file}: the figures of a bandwidth line, or with {@code --output} the one asked for. */
    static String bandwidthResults(BandwidthReport r, PerftestOptions o) {
        StringBuilder b = new StringBuilder("\"results\": {\n");
        if ("bandwidth".equals(o.output)) {
            b.append(String.format(Locale.ROOT, "\"bw_avg\": %f,\n", r.average()));
        } else if ("message_rate".equals(o.output)) {
            b.append(String.format(Locale.ROOT, "\"msgRate_avg\": %f,\n", r.messageRate()));
        } else {
            boolean moreAccuracy = r.average() < 0.1 && o.reportGbits; // as the line's REPORT_FMT_EXT
            String figure = moreAccuracy ? "%.6f" : "%.2f";
            b.append(String.format(Locale.ROOT, "\"MsgSize\": %d,\n\"n_iterations\": %d,\n\"BW_peak\": " + figure
                    + ",\n\"BW_average\": " + figure + ",\n\"MsgRate\": %.6f", r.size(), r.iterations(), r.peak(),
                    r.average(), r.messageRate()));
        }
        if (o.reportsCpuUtil()) { // after whatever --output left, as perftest's
            b.append(o.cpu.jsonField());
        }
        return b.append("\n}\n").toString();
    }

    /** {@code write_report_lat_to_file}: the figures of a latency line, or with {@code --output latency} the average. */
    static String latencyResults(LatencyReport r, PerftestOptions o) {
        if ("latency".equals(o.output)) {
            return String.format(Locale.ROOT, "\"results\": {\n\"avg_lat\": %f\n}\n", r.average());
        }
        return String.format(Locale.ROOT, "\"results\": {\n\"MsgSize\": %d,\n\"n_iterations\": %d,\n\"t_min\": %.2f,\n"
                + "\"t_max\": %.2f,\n\"t_typical\": %.2f,\n\"t_avg\": %.2f,\n\"t_stdev\": %s,\n"
                + "\"percentile_99\": %.2f,\n\"percentile_99.9\": %.2f\n}\n", r.size(), r.iterations(), r.min(),
                r.max(), r.typical(), r.average(), LatencyReport.cFixed(r.stdev(), 2), r.p99(), r.p999());
    }

    /** Rewrites the file with a bandwidth result. */
    void write(BandwidthReport r) {
        write(bandwidthResults(r, o));
    }

    /** Rewrites the file with a latency result. */
    void write(LatencyReport r) {
        write(latencyResults(r, o));
    }

    private void write(String results) {
        try {
            if (!Files.exists(path)) { // created as perftest creates it: S_IRUSR | S_IWUSR
                Files.createFile(path, PosixFilePermissions.asFileAttribute(
                        EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE)));
            }
            Files.writeString(path, "{\n" + testInfo + results + "}\n", StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            // as perftest: the run goes on, the file is missing, and stderr says so
            stderr.println("failed to open " + path + " (" + e.getMessage() + ")");
        }
    }
}
