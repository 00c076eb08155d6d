package org.panamaverbs.bench.perftest;

import java.util.Locale;

/**
 * perftest 4.5's bandwidth figures ({@code print_report_bw}) from the post and completion timestamps of one run,
 * and its result line ({@code REPORT_FMT}).
 *
 * <p>The peak is perftest's: the best time per message over every window that starts at a posted request {@code i}
 * and ends at a signaled completion {@code j >= i}, {@code (completed[j] - posted[i]) / (j - i + 1)}. perftest
 * tries every pair (O(n²/cq_mod)); here each window's best start is found on the upper convex hull of the points
 * {@code (i, posted[i])}, built as the run's indices grow, by binary search (O(n log n)): for a fixed end
 * {@code (j + 1, completed[j])} the slope to a start point is smallest at the hull's tangent point.
 *
 * @param size        message size in bytes
 * @param iterations  messages measured
 * @param peak        peak bandwidth in the report's unit
 * @param average     average bandwidth in the report's unit
 * @param messageRate million messages per second
 */
public record BandwidthReport(long size, long iterations, double peak, double average, double messageRate,
        PortShares ports) {
    public static final String RESULT_LINE = "-".repeat(87);
    /** perftest's {@code RESULT_LINE_PER_PORT}, the rule around a table with {@code --report-per-port}'s columns. */
    public static final String RESULT_LINE_PER_PORT = "-".repeat(163);
    static final String PORT_COLUMNS = "   BW Port1[MB/sec]   MsgRate Port1[Mpps]   BW Port2[MB/sec]   MsgRate Port2[Mpps]";
    /** perftest 24.07 and later name the unit of the same figures MiB/sec (they always were 2^20 bytes a second). */
    static final String PORT_COLUMNS_MIB = PORT_COLUMNS.replace("[MB/sec]", "[MiB/sec]");
    static final String PORT_COLUMNS_G = "   BW Port1[Gb/sec]   MsgRate Port1[Mpps]   BW Port2[Gb/sec]   MsgRate Port2[Mpps]";
    static final String REPORT_FMT_PER_PORT = " %-7d    %-10d     %-7.2f            %-7.2f\t\t   %-7.6f        %-7.2f"
            + "            %-7.6f              %-7.2f            %-7.6f";
    public static final String RESULT_FMT_G = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]";
    public static final String RESULT_FMT = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
    static final String RESULT_FMT_MIB = RESULT_FMT.replace("[MB/sec]", "[MiB/sec]");
    static final String REPORT_FMT = " %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f";
    /** perftest 24.07's result line: two more spaces before the message rate, under the longer header. */
    static final String REPORT_FMT_MIB = " %-7d    %-10d       %-7.2f            %-7.2f\t\t     %-7.6f";
    static final String REPORT_FMT_EXT = " %-7d    %d           %-7.6f            %-7.6f            %-7.6f";
    public static final double GBITS_FACTOR = 125_000_000.0;
    public static final double MBYTES_FACTOR = 0x100000;
    /** perftest reports no peak for runs of more iterations than this. */
    static final int NO_PEAK_ABOVE = 20000;

    /**
     * {@code --report-per-port}'s figures: each port's share of the average bandwidth and message rate, perftest's
     * {@code bw_avg_p1}, {@code msgRate_avg_p1}, {@code bw_avg_p2} and {@code msgRate_avg_p2}.
     */
    public record PortShares(double average1, double messageRate1, double average2, double messageRate2) {
        PortShares plus(PortShares peer) {
            return new PortShares(average1 + peer.average1, messageRate1 + peer.messageRate1,
                    average2 + peer.average2, messageRate2 + peer.messageRate2);
        }
    }

    /** A report without per-port figures. */
    public BandwidthReport(long size, long iterations, double peak, double average, double messageRate) {
        this(size, iterations, peak, average, messageRate, null);
    }

    /**
     * This report with each port's share, from the messages of the sample that went through each: perftest's
     * {@code iters_per_port} over the same time as the total, whose count is theirs summed.
     */
    public BandwidthReport withPorts(long firstPortMessages, long secondPortMessages) {
        long all = firstPortMessages + secondPortMessages;
        double first = all == 0 ? 0 : (double) firstPortMessages / all;
        double second = all == 0 ? 0 : (double) secondPortMessages / all;
        return new BandwidthReport(size, iterations, peak, average, messageRate, new PortShares(average * first,
                messageRate * first, average * second, messageRate * second));
    }

    /**
     * The report of a run.
     *
     * @param posted    post time of every request, in nanoseconds
     * @param completed completion time of every signaled request (others 0), in nanoseconds
     * @param signaled  whether request {@code i} was signaled (perftest: {@code i % cqMod == cqMod - 1} or the last)
     * @param noPeak    {@code -N}: no peak (reported as 0)
     */
    public static BandwidthReport of(long size, long[] posted, long[] completed, boolean[] signaled, boolean gbits,
            boolean noPeak) {
        int n = posted.length;
        double factor = gbits ? GBITS_FACTOR : MBYTES_FACTOR;
        double seconds = (completed[n - 1] - posted[0]) / 1e9;
        double average = (double) size * n / seconds / factor;
        double messageRate = n / seconds / 1e6;
        // perftest measures no peak with -N or above 20000 iterations (its noPeak), and reports 0
        double peak = noPeak || n > NO_PEAK_ABOVE ? 0
                : size / (bestNanosPerMessage(posted, completed, signaled) / 1e9) / factor;
        return new BandwidthReport(size, n, peak, average, messageRate);
    }

    /**
     * One period of {@code --run_infinitely} as perftest's {@code print_report_bw} figures it: {@code messages}
     * completed over {@code nanos}, no peak (perftest measures none in that mode).
     */
    public static BandwidthReport ofPeriod(long size, long messages, long nanos, boolean gbits) {
        double seconds = nanos / 1e9;
        double factor = gbits ? GBITS_FACTOR : MBYTES_FACTOR;
        return new BandwidthReport(size, messages, 0, size * (double) messages / seconds / factor,
                messages / seconds / 1e6);
    }

    /** perftest's bidirectional line ({@code print_full_bw_report} with the peer's report): this size and count, both sides' rates summed. */
    public BandwidthReport plus(BandwidthReport peer) {
        return new BandwidthReport(size, iterations, peak + peer.peak, average + peer.average, messageRate + peer.messageRate,
                ports == null || peer.ports == null ? ports : ports.plus(peer.ports));
    }

    /** The smallest {@code (completed[j] - posted[i]) / (j - i + 1)} over {@code i <= j} with {@code j} signaled. */
    static double bestNanosPerMessage(long[] posted, long[] completed, boolean[] signaled) {
        int n = posted.length;
        int[] hull = new int[n]; // indices i of the upper hull of (i, posted[i]), x increasing
        int size = 0;
        double best = Double.MAX_VALUE;
        for (int j = 0; j < n; j++) {
            // add start point j (windows may start at j itself)
            while (size >= 2 && !turnsRight(hull[size - 2], hull[size - 1], j, posted)) {
                size--;
            }
            hull[size++] = j;
            if (!signaled[j]) {
                continue;
            }
            // tangent from the end point (j + 1, completed[j]): slope to hull point k is unimodal along the hull
            double endX = j + 1;
            double endY = completed[j];
            int lo = 0;
            int hi = size - 1;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (slope(hull[mid], posted, endX, endY) <= slope(hull[mid + 1], posted, endX, endY)) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            best = Math.min(best, slope(hull[lo], posted, endX, endY));
        }
        return best;
    }

    /** Time per message of the window starting at {@code i} and ending at the end point. */
    private static double slope(int i, long[] posted, double endX, double endY) {
        return (endY - posted[i]) / (endX - i);
    }

    /** Whether a → b → c turns clockwise (b stays on the upper hull). */
    private static boolean turnsRight(int a, int b, int c, long[] y) {
        double cross = (double) (b - a) * ((double) y[c] - y[a]) - (double) (c - a) * ((double) y[b] - y[a]);
        return cross < 0;
    }

    /** The brute-force peak, perftest's own loops; for tests. */
    static double bestNanosPerMessageQuadratic(long[] posted, long[] completed, boolean[] signaled) {
        double best = Double.MAX_VALUE;
        for (int j = 0; j < posted.length; j++) {
            if (!signaled[j]) {
                continue;
            }
            for (int i = 0; i <= j; i++) {
                best = Math.min(best, (double) (completed[j] - posted[i]) / (j - i + 1));
            }
        }
        return best;
    }

    /** perftest 4.5's result line ({@link #line(boolean, boolean)}). */
    public String line(boolean gbits) {
        return line(gbits, false);
    }

    /**
     * perftest's result line: more decimals when the average is below 0.1 Gb/s, as perftest prints it;
     * {@code since2407}: as perftest 24.07 and later space it.
     */
    public String line(boolean gbits, boolean since2407) {
        if (ports != null) { // perftest's REPORT_FMT_PER_PORT, which has no more-accuracy variant
            return String.format(Locale.ROOT, REPORT_FMT_PER_PORT, size, iterations, peak, average, messageRate,
                    ports.average1, ports.messageRate1, ports.average2, ports.messageRate2);
        }
        boolean moreAccuracy = average < 0.1 && gbits;
        return String.format(Locale.ROOT, moreAccuracy ? REPORT_FMT_EXT : since2407 ? REPORT_FMT_MIB : REPORT_FMT, size,
                iterations, peak, average, messageRate);
    }
}
