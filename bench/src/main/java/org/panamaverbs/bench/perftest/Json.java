package org.panamaverbs.bench.perftest;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import org.panamaverbs.bench.JsonText;

/** The {@code --json} line: the run's parameters and results as one JSON object (no dependency needed for this). */
final class Json {
    private Json() {
    }

    static String bandwidth(String tool, String role, String device, int mtu, PerftestOptions o,
            List<BandwidthReport> reports) {
        String unit = o.reportGbits ? "Gb/sec" : "MB/sec";
        String results = reports.stream().map(r -> String.format(Locale.ROOT,
                "{\"bytes\":%d,\"iterations\":%d,\"bw_peak\":%.6f,\"bw_average\":%.6f,\"msg_rate_mpps\":%.6f}",
                r.size(), r.iterations(), r.peak(), r.average(), r.messageRate())).collect(Collectors.joining(","));
        return String.format(Locale.ROOT, "{\"tool\":%s,\"role\":%s,\"device\":%s,\"mtu\":%d,\"unit\":%s,"
                + "\"results\":[%s]}", quote(tool), quote(role), quote(device), mtu, quote(unit), results);
    }

    static String latency(String tool, PerftestSession s, List<LatencyReport> reports) {
        String results = reports.stream().map(r -> String.format(Locale.ROOT,
                "{\"bytes\":%d,\"iterations\":%d,\"t_min\":%.3f,\"t_max\":%.3f,\"t_typical\":%.3f,"
                        + "\"t_avg\":%.3f,\"t_stdev\":%s,\"p99\":%.3f,\"p99_9\":%.3f,\"histogram\":%s}",
                r.size(), r.iterations(), r.min(), r.max(), r.typical(), r.average(),
                Double.isNaN(r.stdev()) ? "null" : String.format(Locale.ROOT, "%.3f", r.stdev()), r.p99(), r.p999(),
                r.percentilesJson())).collect(Collectors.joining(","));
        return String.format(Locale.ROOT, "{\"tool\":%s,\"role\":%s,\"device\":%s,\"mtu\":%d,\"unit\":%s,"
                + "\"results\":[%s]}", quote(tool), quote(s.wire != null && s.wire.isClient() ? "client" : "server"),
                quote(s.context.name()), s.pathMtu.bytes(),
                quote(reports.isEmpty() ? "usec" : reports.getFirst().units()), results);
    }

    static String quote(String text) {
        return JsonText.quote(text);
    }
}
