package org.panamaverbs.bench.perftest;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Turns bench/compare-perftest's CSV ({@code tool,size,pair,impl,value}: message rate in Mpps for the
 * bandwidth tools, typical latency in µs for the latency tools) into a Markdown table of medians with
 * the median of the per-pair Java/C ratios and their range, the run-to-run spread of C against C and of Java
 * against Java, and an SVG plot of the medians against size (one
 * panel for the bandwidth tools in MB/s, one for the latency tools in µs, both on log scales; Java solid, C dashed).
 *
 * <p>Usage: {@code java -cp panama-verbs-bench.jar org.panamaverbs.bench.perftest.ComparisonReport CSV MD SVG}
 */
public final class ComparisonReport {
    private ComparisonReport() {
    }

    /** One point: a tool at a size, the C and Java values by pair number (a failed run has none). */
    record Point(String tool, long size, Map<Integer, Double> c, Map<Integer, Double> java) {
        double cMedian() {
            return median(List.copyOf(c.values()));
        }

        double javaMedian() {
            return median(List.copyOf(java.values()));
        }

        /** Run-to-run spread of C against C: (largest - smallest) / median of the C runs. */
        double cSpread() {
            return spread(List.copyOf(c.values()));
        }

        /** Run-to-run spread of Java against Java, as {@link #cSpread()}. */
        double javaSpread() {
            return spread(List.copyOf(java.values()));
        }

        /** The Java/C ratio of every pair where both ran. */
        List<Double> ratios() {
            List<Double> r = new ArrayList<>();
            for (Map.Entry<Integer, Double> e : c.entrySet()) {
                Double j = java.get(e.getKey());
                if (j != null) {
                    r.add(j / e.getValue());
                }
            }
            return r;
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: ComparisonReport CSV MD SVG");
            System.exit(2);
        }
        List<Point> points = read(Path.of(args[0]));
        Files.writeString(Path.of(args[1]), markdown(points));
        Files.writeString(Path.of(args[2]), svg(points));
    }

    static List<Point> read(Path csv) throws IOException {
        Map<String, Point> byKey = new TreeMap<>();
        for (String line : Files.readAllLines(csv)) {
            String[] f = line.split(",");
            if (f.length < 5 || f[0].equals("tool") || f[4].isBlank()) {
                continue;
            }
            long size = Long.parseLong(f[1]);
            Point p = byKey.computeIfAbsent(f[0] + String.format(Locale.ROOT, "%012d", size),
                    k -> new Point(f[0], size, new TreeMap<>(), new TreeMap<>()));
            (f[3].equals("java") ? p.java() : p.c()).put(Integer.parseInt(f[2]), Double.parseDouble(f[4]));
        }
        return new ArrayList<>(byKey.values());
    }

    static boolean latency(String tool) {
        return tool.endsWith("_lat");
    }

    static String markdown(List<Point> points) {
        StringBuilder b = new StringBuilder();
        b.append("| tool | bytes | C (median) | Java (median) | Java/C (median of pairs) | Java/C range | pairs "
                + "| C run-to-run spread | Java run-to-run spread |\n");
        b.append("|---|---|---|---|---|---|---|---|---|\n");
        for (Point p : points) {
            List<Double> ratios = p.ratios();
            String unit = latency(p.tool()) ? " µs" : " Mpps";
            b.append(String.format(Locale.ROOT, "| %s | %d | %.4g%s | %.4g%s | %.2f | %.2f-%.2f | %d | %.0f%% | %.0f%% |%n",
                    p.tool(), p.size(), p.cMedian(), unit, p.javaMedian(), unit, median(ratios),
                    ratios.stream().mapToDouble(d -> d).min().orElse(Double.NaN),
                    ratios.stream().mapToDouble(d -> d).max().orElse(Double.NaN), ratios.size(),
                    100 * p.cSpread(), 100 * p.javaSpread()));
        }
        return b.toString();
    }

    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

    static String svg(List<Point> points) {
        int width = 960;
        int height = 420;
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"12\">%n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n",
                width, height));
        // bandwidth as MB/s (message rate x size) so every size shares one axis; both panels logarithmic in y,
        // since values span three decades between 2 B and 64 KiB
        panel(b, points.stream().filter(p -> !latency(p.tool())).toList(), 60, "bandwidth [MB/s], log scale",
                (p, median) -> median * p.size());
        panel(b, points.stream().filter(p -> latency(p.tool())).toList(), 540, "latency, t_typical [µs], log scale",
                (p, median) -> median);
        b.append("</svg>\n");
        return b.toString();
    }

    /** One panel at x offset {@code left}: log2 sizes on x, {@code plotted} values on a log10 y axis. */
    private static void panel(StringBuilder b, List<Point> points, int left, String title,
            java.util.function.ToDoubleBiFunction<Point, Double> plotted) {
        int top = 40;
        int w = 380;
        int h = 300;
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>%n", left, top - 15,
                title));
        b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                + "stroke=\"#999\"/>%n", left, top, w, h));
        if (points.isEmpty()) {
            return;
        }
        double minX = points.stream().mapToDouble(p -> log2(p.size())).min().orElse(0);
        double maxX = Math.max(minX + 1, points.stream().mapToDouble(p -> log2(p.size())).max().orElse(1));
        double lowest = points.stream().flatMapToDouble(p -> java.util.stream.DoubleStream.of(
                plotted.applyAsDouble(p, p.cMedian()), plotted.applyAsDouble(p, p.javaMedian())))
                .filter(v -> v > 0).min().orElse(1);
        double highest = points.stream().flatMapToDouble(p -> java.util.stream.DoubleStream.of(
                plotted.applyAsDouble(p, p.cMedian()), plotted.applyAsDouble(p, p.javaMedian())))
                .filter(v -> v > 0).max().orElse(10);
        double minY = Math.floor(Math.log10(lowest));
        double maxY = Math.max(minY + 1, Math.ceil(Math.log10(highest)));
        for (int decade = (int) minY; decade <= maxY; decade++) {
            int y = top + h - (int) (h * (decade - minY) / (maxY - minY));
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n", left - 4,
                    y + 4, BigDecimal.ONE.scaleByPowerOfTen(decade).toPlainString()));
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#eee\"/>%n",
                    left, y, left + w, y));
        }
        for (Point p : points) {
            int x = left + (int) (w * (log2(p.size()) - minX) / (maxX - minX));
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>%n", x,
                    top + h + 15, p.size()));
        }
        Map<String, List<Point>> byTool = points.stream()
                .collect(Collectors.groupingBy(Point::tool, TreeMap::new, Collectors.toList()));
        int color = 0;
        int legend = top + 10;
        for (Map.Entry<String, List<Point>> e : byTool.entrySet()) {
            String c = COLORS[color++ % COLORS.length];
            for (boolean java : new boolean[] {true, false}) {
                StringBuilder path = new StringBuilder();
                for (Point p : e.getValue()) {
                    double value = plotted.applyAsDouble(p, java ? p.javaMedian() : p.cMedian());
                    if (!(value > 0)) {
                        continue; // a point with no run (or 0) has no place on a log axis
                    }
                    int x = left + (int) (w * (log2(p.size()) - minX) / (maxX - minX));
                    int y = top + h - (int) (h * (Math.log10(value) - minY) / (maxY - minY));
                    path.append(path.isEmpty() ? "M" : " L").append(x).append(' ').append(y);
                }
                b.append(String.format(Locale.ROOT, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>%n",
                        path, c, java ? "" : " stroke-dasharray=\"6 4\""));
            }
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s (Java solid, C dashed)</text>%n",
                    left + 8, legend += 15, c, e.getKey()));
        }
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">message size [bytes]</text>%n",
                left + w / 2, top + h + 32));
    }

    private static double log2(long v) {
        return Math.log(v) / Math.log(2);
    }

    /** (largest - smallest) / median; NaN without values. */
    static double spread(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        double min = values.stream().mapToDouble(d -> d).min().orElseThrow();
        double max = values.stream().mapToDouble(d -> d).max().orElseThrow();
        return (max - min) / median(values);
    }

    static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
