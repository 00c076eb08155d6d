package org.panamaverbs.bench.perftest;

/**
 * perftest's verifier limits of the bandwidth tools, {@code -w}/{@code --limit_bw} and {@code -y}/{@code --limit_msgrate}:
 * no rate limiter, but a pass mark. Each result line that counts (perftest's {@code print_full_bw_report} of this
 * side's run, or of the sum with {@code -b}; not {@code --report-both}'s two halves) passes if its average reaches
 * the limit, in the report's unit; the tool fails at its end, after the connection is closed, if none passed. As
 * perftest: the message rate is checked only when {@code -w} is given too, and the server of a one-way RDMA test
 * (ib_write_bw, ib_read_bw, ib_atomic_bw), which prints the client's report, checks nothing.
 */
final class VerifierLimits {
    private final Float bandwidth;
    private final Float messageRate;
    private boolean bandwidthPassed;
    private boolean messageRatePassed;

    VerifierLimits(PerftestOptions o) {
        this.bandwidth = o.limitBw;
        this.messageRate = o.limitMsgRate;
    }

    /** A result line that counts; perftest compares its float limit with the double figure. */
    void count(BandwidthReport report) {
        bandwidthPassed |= bandwidth == null || !(bandwidth > report.average());
        messageRatePassed |= messageRate == null || !(messageRate > report.messageRate());
    }

    /**
     * At the tool's end: perftest's one-line errors (the message rate's with its two spaces).
     *
     * @throws PerftestException if a limit given was never reached
     */
    void check() {
        String failure = failure();
        if (failure != null) {
            throw new PerftestException(failure);
        }
    }

    /** perftest's error for a limit never reached, or null. */
    String failure() {
        if (bandwidth != null && !bandwidthPassed) {
            return "Error: BW result is below bw limit";
        }
        if (bandwidth != null && !messageRatePassed) { // perftest tests is_limit_bw here too, not is_limit_msgrate
            return "Error: Msg rate  is below msg_rate limit";
        }
        return null;
    }
}
