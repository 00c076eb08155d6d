package org.panamaverbs.bench.perftest;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

/**
 * perftest 4.5's latency figures ({@code print_report_lat}) from the post timestamps of a ping-pong run: the
 * samples are the gaps between consecutive posts divided by the round-trip factor (2 for write and send, whose
 * gap is a round trip; 1 for read), sorted; the two largest ({@code LAT_MEASURE_TAIL}) are dropped; typical is
 * the median; the standard deviation is computed as perftest computes it (each deviation truncated to an int
 * before squaring, so sub-microsecond spreads read as 0); t_max, 99% and 99.9% are the samples at perftest's
 * indices. The distribution for {@code --json} and {@code -H} is kept in an HdrHistogram (nanosecond values, 3
 * significant digits). With {@code -C} ({@link #of(long, long[], int, double)}) the figures are CPU cycles, as
 * perftest's: the nanoseconds converted at the CPU's MHz ({@link CpuMhz}), whole cycles as its counter reads them.
 *
 * @param size       message size
 * @param iterations iterations run
 * @param min        t_min, µs (or cycles: see {@code units})
 * @param max        t_max, µs
 * @param typical    median, µs
 * @param average    µs
 * @param stdev      µs, perftest's way
 * @param p99        99% percentile, µs
 * @param p999       99.9% percentile, µs
 * @param sortedMicros the samples kept, sorted, µs
 * @param histogram  the same samples in thousandths of the unit (nanoseconds for µs)
 * @param unsortedMicros every sample in the order measured, the tail included, µs ({@code -U})
 * @param units      "usec", or "cycles" with {@code -C} (then every figure above is in cycles)
 */
public record LatencyReport(long size, long iterations, double min, double max, double typical, double average,
        double stdev, double p99, double p999, double[] sortedMicros, Histogram histogram, double[] unsortedMicros,
        String units) {
    public static final String RESULT_FMT_LAT = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";
    /** perftest's, with the deviation's {@code %-7.2f} as {@code %-7s} of {@link #cFixed}. */
    static final String REPORT_FMT_LAT = " %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7s\t\t%-7.2f \t\t%-7.2f";
    /** perftest drops this many of the largest samples. */
    static final int LAT_MEASURE_TAIL = 2;

    /**
     * @param posted     post time of every iteration, ns
     * @param roundTrips 2 when a gap between posts is a round trip that the latency is half of, else 1
     * @throws PerftestException with fewer than 4 iterations (perftest needs iterations - 1 - 2 samples)
     */
    public static LatencyReport of(long size, long[] posted, int roundTrips) {
        return of(size, posted, roundTrips, 0);
    }

    /**
     * The report in CPU cycles ({@code -C}) when {@code cyclesMhz} is positive: each post time converted to whole
     * cycles at that many per microsecond, then perftest's arithmetic on cycles (its median of two middle samples
     * an integer division, as of its {@code cycles_t}); in µs when it is 0.
     */
    static LatencyReport of(long size, long[] posted, int roundTrips, double cyclesMhz) {
        int count = posted.length - 1;
        if (count - LAT_MEASURE_TAIL < 1) {
            throw new PerftestException("a latency test needs at least 4 iterations (-n), not " + posted.length);
        }
        boolean cycles = cyclesMhz > 0;
        long[] ticks = new long[count];
        double[] delta = new double[count];
        for (int i = 0; i < count; i++) {
            if (cycles) { // as a cycle counter read at each post
                ticks[i] = Math.round((posted[i + 1] - posted[0]) * cyclesMhz / 1000)
                        - Math.round((posted[i] - posted[0]) * cyclesMhz / 1000);
                delta[i] = ticks[i] / (double) roundTrips;
            } else {
                delta[i] = (posted[i + 1] - posted[i]) / 1000.0 / roundTrips;
            }
        }
        double[] unsorted = delta.clone();
        Arrays.sort(delta);
        Arrays.sort(ticks);
        int kept = count - LAT_MEASURE_TAIL;
        double median = !cycles ? (kept - 1) % 2 != 0 ? (delta[kept / 2] + delta[kept / 2 - 1]) / 2 : delta[kept / 2]
                : ((kept - 1) % 2 != 0 ? (ticks[kept / 2] + ticks[kept / 2 - 1]) / 2 : ticks[kept / 2])
                        / (double) roundTrips;
        double sum = 0;
        for (int i = 0; i < kept; i++) {
            sum += delta[i];
        }
        double average = sum / kept;
        double stdevSum = 0;
        for (int i = 0; i < kept; i++) {
            int deviation = cInt(average - delta[i]); // perftest's int temp_var and int pow_var
            stdevSum += cInt(Math.pow(deviation, 2));
        }
        int i99 = (int) Math.ceil(kept * 0.99);
        int i999 = (int) Math.ceil(kept * 0.999);
        Histogram histogram = new Histogram(3);
        for (int i = 0; i < kept; i++) {
            histogram.recordValue(Math.max(0, Math.round(delta[i] * 1000)));
        }
        return new LatencyReport(size, posted.length, delta[0], delta[kept], median, average,
                Math.sqrt(stdevSum / kept), delta[Math.min(i99, count - 1)], delta[Math.min(i999, count - 1)],
                Arrays.copyOf(delta, kept), histogram, unsorted, cycles ? "cycles" : "usec");
    }

    /** perftest's result line. */
    public String line() {
        return String.format(Locale.ROOT, REPORT_FMT_LAT, size, iterations, min, max, typical, average,
                cFixed(stdev, 2), p99, p999);
    }

    /**
     * C's conversion of a double to int as x86-64 does it (cvttsd2si): truncated, or INT_MIN when out of range. A
     * report in cycles ({@code -C}) meets it: a deviation above 46340 cycles squares past INT_MAX, the sum turns
     * negative and perftest prints the deviation as "-nan".
     */
    static int cInt(double value) {
        return value >= Integer.MIN_VALUE && value < 2147483648.0 ? (int) value : Integer.MIN_VALUE;
    }

    /** C's {@code %.Nf}: glibc prints x86's NaN (a square root of a negative, sign bit set) as "-nan". */
    static String cFixed(double value, int precision) {
        return Double.isNaN(value) ? "-nan" : String.format(Locale.ROOT, "%." + precision + "f", value);
    }

    /** perftest's {@code -H} output: "#, usec" (or cycles) and every kept sample in order, as {@code %d, %g}. */
    public String histogramLines() {
        return sampleLines(sortedMicros, units);
    }

    /** perftest's {@code -U} output: "#, usec" (or cycles) and every sample as measured, the dropped ones included. */
    public String unsortedLines() {
        return sampleLines(unsortedMicros, units);
    }

    private static String sampleLines(double[] micros, String units) {
        StringBuilder b = new StringBuilder("#, ").append(units).append('\n');
        for (int i = 0; i < micros.length; i++) {
            b.append(i + 1).append(", ").append(cG(micros[i])).append('\n');
        }
        return b.toString();
    }

    /** C's {@code %g}: six significant digits, trailing zeros dropped. */
    static String cG(double value) {
        if (value == 0) {
            return "0";
        }
        int exponent = (int) Math.floor(Math.log10(Math.abs(value)));
        if (exponent < -4 || exponent >= 6) {
            String s = String.format(Locale.ROOT, "%.5e", value);
            String[] parts = s.split("e");
            String mantissa = parts[0].contains(".") ? parts[0].replaceAll("0+$", "").replaceAll("\\.$", "") : parts[0];
            int e = Integer.parseInt(parts[1]);
            return mantissa + "e" + (e < 0 ? "-" : "+") + String.format(Locale.ROOT, "%02d", Math.abs(e));
        }
        String s = String.format(Locale.ROOT, "%." + Math.max(0, 5 - exponent) + "f", value);
        return s.contains(".") ? s.replaceAll("0+$", "").replaceAll("\\.$", "") : s;
    }

    /** Percentiles of the HdrHistogram in the report's unit (µs, or cycles), for {@code --json}. */
    String percentilesJson() {
        return String.format(Locale.ROOT, "{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"p99_9\":%.3f,\"max\":%.3f}",
                micros(histogram.getValueAtPercentile(50)), micros(histogram.getValueAtPercentile(90)),
                micros(histogram.getValueAtPercentile(99)), micros(histogram.getValueAtPercentile(99.9)),
                micros(histogram.getMaxValue()));
    }

    private static double micros(long nanos) {
        return nanos / (double) TimeUnit.MICROSECONDS.toNanos(1);
    }
}
