package org.panamaverbs.bench.perftest;

import java.io.PrintStream;
import java.util.List;

import picocli.CommandLine.Option;

/**
 * perftest's rate limiter options of the bandwidth tools ({@code --rate_limit}, {@code --rate_units},
 * {@code --rate_limit_type}, {@code --burst_size}) and its software limiter ({@code run_iter_bw}): the sender posts
 * bursts of {@code --burst_size} requests (default {@code -t}), each burst no sooner than a gap after the previous
 * one began, the gap being what makes {@code --rate_limit}: {@code burst / rate} seconds, the rate in packets per
 * second from megabytes (2^20 bytes) or gigabits per second at the run's message size. perftest's HW limiter (a
 * static rate on the queue pair) is not set by the Java tools: as perftest where a queue pair does not take it, an
 * implicit HW limit becomes the software one with perftest's message, an explicit one is refused. Packet pacing is
 * perftest's raw Ethernet tests' only.
 */
final class RateLimit {
    /** The HW limiter's rates, perftest's {@code RATE_VALUES}: what {@code --rate_limit} must spell for HW. */
    private static final List<String> STATIC_RATES = List.of("2.5", "5", "10", "14", "20", "25", "28", "30", "40", "50",
            "56", "60", "80", "100", "112", "120", "168", "200", "300", "400", "600", "MAX");

    @Option(names = "--rate_limit", paramLabel = "RATE", description = "the most the sender sends, in --rate_units"
            + " (default: Gbps); software bursts, as perftest's limiter where no static rate is set")
    String rate;
    @Option(names = "--rate_units", paramLabel = "M|g|p", description = "--rate_limit's unit: MB/s (2^20 bytes),"
            + " Gbps or packets per second (default: g)")
    String units;
    @Option(names = "--rate_limit_type", paramLabel = "HW|SW|PP", description = "the limiter: SW (bursts), HW (a static"
            + " rate: not set by the Java tools, so refused) or PP (packet pacing: raw Ethernet only); default: HW,"
            + " which becomes SW as in perftest where the queue pair does not take it")
    String type;
    @Option(names = "--burst_size", paramLabel = "N", description = "requests per burst of the software limiter"
            + " (default: -t)")
    Integer burstSize;

    private double limit;
    private int burst;
    private long gapNanos;
    // one run's state: a burst is being sent, how much of it, and when the next may begin
    private boolean sending;
    private int sentInBurst;
    private long nextBurst;

    /**
     * perftest's checks of these options ({@code parser}, {@code force_dependecies}, {@code ctx_connect}'s fall back),
     * with its messages; returns this when the software limiter runs, else null (no limit asked). perftest applies it
     * in {@code run_iter_bw} only: not to {@code -b}'s runs. {@code err} gets perftest's notes (the burst size chosen,
     * the fall back from HW).
     */
    RateLimit resolve(PerftestOptions o, String tool, boolean atomic, boolean sendTool, int txDepth, PrintStream err) {
        boolean given = rate != null || type != null;
        if (rate != null) {
            try {
                limit = Double.parseDouble(rate);
            } catch (NumberFormatException e) {
                limit = 0; // as atof
            }
            if (!(limit > 0)) {
                throw new PerftestException("Rate limit must be non-negative floating point number (--rate_limit "
                        + rate + "; as perftest)");
            }
        }
        char unit = unit();
        if (unit != 'M' && unit != 'g' && unit != 'p') {
            throw new PerftestException("Invalid rate limit units. Please use M,g or p (--rate_units " + units
                    + "; as perftest)");
        }
        String kind = type != null ? type : rate != null ? "HW" : null;
        if (kind != null && !kind.equals("HW") && !kind.equals("SW") && !kind.equals("PP")) {
            throw new PerftestException("Invalid rate limit type flag. Please use HW, SW or PP. (--rate_limit_type "
                    + type + "; as perftest)");
        }
        if (given && o.runInfinitely) {
            throw new PerftestException("run_infinitely does not support rate limit feature yet (as perftest)");
        }
        if (burstSize != null && burstSize < 0) {
            throw new PerftestException("Burst size must not be negative, not " + burstSize);
        }
        if (burstSize != null && burstSize > 0 && !given) {
            throw new PerftestException("Can't enable burst mode when rate limiter is off (--burst_size without"
                    + " --rate_limit; as perftest)");
        }
        if (!given) {
            return null;
        }
        if (kind.equals("PP")) {
            throw new PerftestException("Packet Pacing is only supported for Raw Ethernet (--rate_limit_type PP; as"
                    + " perftest)");
        }
        if (kind.equals("HW")) {
            if (o.exchangesOverRdmaCm()) {
                throw new PerftestException("HW rate limit isn't supported yet with rdma_cm scenarios (as perftest)");
            }
            if (unit == 'p') {
                throw new PerftestException("Failed: pps rate limit units is not supported when setting HW rate limit"
                        + " (as perftest)");
            }
            if (!STATIC_RATES.contains(rate)) {
                throw new PerftestException("Failed: Unknown rate limit value (--rate_limit " + rate + "; perftest's HW"
                        + " limiter takes " + String.join(", ", STATIC_RATES) + " Gbps)");
            }
            if (type != null) {
                throw new PerftestException("The QP failed to accept HW rate limit (the Java tools set no static rate"
                        + " on the queue pair; --rate_limit_type SW limits in software)");
            }
            err.println("\u001b[31mThe QP failed to accept HW rate limit, providing SW rate limit \u001b[0m");
        }
        boolean explicitSoftware = "SW".equals(type);
        if (explicitSoftware && (atomic || sendTool && o.bidirectional)) {
            throw new PerftestException("SW Rate limiter cann't be executed on non-BW, ATOMIC or bidirectional SEND"
                    + " tests (as perftest)");
        }
        if (rate == null) {
            throw new PerftestException("--rate_limit_type SW needs --rate_limit (perftest would send one burst and"
                    + " then wait without end)");
        }
        // between bursts nothing may be outstanding: a wait for a completion event would not end (perftest's neither)
        PerftestOptions.refuse(tool, o.events, "-e with --rate_limit (a wait for a completion event between bursts,"
                + " with nothing outstanding, would not end)");
        boolean txDepthBurst = burstSize == null || burstSize == 0;
        burst = txDepthBurst ? txDepth : burstSize;
        if (explicitSoftware && txDepthBurst) {
            err.println(" Setting burst size to tx depth = " + txDepth);
        }
        return this;
    }

    /** {@code --rate_units}' letter (perftest's default g), or '?' for a value it does not know. */
    private char unit() {
        return units == null ? 'g' : units.length() == 1 ? units.charAt(0) : '?';
    }

    /** Starts a run of {@code size}-byte messages: the gap between bursts at that size. */
    void start(long size) {
        // perftest's int rate_limit_pps
        int pps = (int) switch (unit()) {
            case 'M' -> limit / size * 1048576;
            case 'g' -> limit / (size * 8.0) * 1e9;
            default -> limit;
        };
        if (pps <= 0) {
            throw new PerftestException("--rate_limit " + rate + " is below one " + size + "-byte message per second"
                    + " (perftest would wait without end)");
        }
        gapNanos = (long) (1e9 * burst / pps);
        sending = false;
        nextBurst = System.nanoTime();
    }

    /** Whether the sender may post now: inside a burst, or a new one begins because its gap is over. */
    boolean mayPost() {
        if (sending) {
            return true;
        }
        long now = System.nanoTime();
        if (now - nextBurst < 0) {
            return false;
        }
        nextBurst = now + gapNanos;
        sending = true;
        sentInBurst = 0;
        return true;
    }

    /** {@code requests} were posted; whether the burst is complete, so the sender stops until the next one. */
    boolean posted(int requests) {
        sentInBurst += requests;
        if (sentInBurst >= burst) {
            sending = false;
            return true;
        }
        return false;
    }
}
