package org.panamaverbs.bench.perftest;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

import org.panamaverbs.verbs.Access;

/**
 * {@code ib_write_bw} and {@code ib_read_bw} with perftest 26.04's {@code --data_validation}: the command line's checks
 * and the run of each side, in the order of 26.04's {@code write_bw.c} and {@code read_bw.c}. The side whose buffer is
 * written (WRITE's server, READ's client, both sides with {@code -b}) runs {@link Validators} while the other writes
 * ({@link ValidatedRun}), stops them after its result line and prints perftest's "VALIDATION: PASSED - N chunks, B
 * bytes". Unlike perftest, a run whose validation failed ends with exit code 1.
 */
final class ValidatedBandwidth {
    /** 26.04's client of a WRITE test sleeps this long before it writes, for the server's validators to start. */
    private static final Duration WRITER_PAUSE = Duration.ofSeconds(2);
    /** ... and with {@code -b} both sides wait this long after the run for their validators to catch up. */
    private static final Duration DRAIN_PAUSE = Duration.ofMillis(100);

    /** What a side's run printed last and how it ended. */
    record Outcome(BandwidthReport report, String failure) {
    }

    private ValidatedBandwidth() {
    }

    /**
     * perftest 26.04's checks of {@code --data_validation} ({@code force_dependecies}), in its order and words, then
     * what the Java tools do not combine with it.
     *
     * @param writeOrRead an RDMA WRITE or READ test (not an atomic one, not WRITE with immediate)
     * @param txDepth     the send queue's depth after perftest's cut to {@code -n}
     * @param rateLimited {@code --rate_limit} in software
     */
    static void check(PerftestOptions o, String tool, boolean writeOrRead, int txDepth, boolean rateLimited) {
        if (!writeOrRead) {
            throw new PerftestException("--data_validation is only supported with WRITE or READ verb (as perftest)");
        }
        refuse(o.postList > 1, "is incompatible with --post_list > 1");
        refuse(o.runInfinitely, "is incompatible with --run_infinitely");
        refuse(!o.isRc(), "requires RC connection type");
        refuse(o.mrPerQp, "is incompatible with --mr_per_qp");
        refuse(o.payloadFile != null, "is incompatible with payload modification");
        refuse(o.allSizes, "is incompatible with -a (run all sizes)");
        refuse(o.useNullMr, "is incompatible with --use-null-mr");
        refuse(txDepth < ValidationLayout.MIN_TX_DEPTH, "requires tx_depth >= " + ValidationLayout.MIN_TX_DEPTH + " (use -t)");
        PerftestOptions.refuse(tool, o.loopback, "--data_validation with --loopback");
        PerftestOptions.refuse(tool, rateLimited, "--data_validation with --rate_limit");
    }

    /**
     * The buffer's and queue pairs' access ({@code setup_mr_flags}): the fetch-and-adds on the markers need remote
     * atomics besides the test's own access, and WRITE adds remote reads as perftest does.
     */
    static Access[] access(boolean write) {
        return write ? new Access[] {Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC, Access.REMOTE_READ}
                : new Access[] {Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC};
    }

    private static void refuse(boolean given, String why) {
        if (given) {
            throw new PerftestException("--data_validation " + why + " (as perftest)");
        }
    }

    /**
     * Runs this side of the test after the header line; the result lines go through {@code result} ({@code both}
     * prints {@code --report-both}'s two lines).
     *
     * @param write an RDMA WRITE test, else READ
     */
    static Outcome run(PerftestSession s, int iterations, int txDepth, boolean write, Consumer<BandwidthReport> result,
            BiConsumer<BandwidthReport, BandwidthReport> both, PrintStream out) {
        PerftestOptions o = s.options;
        Duration timeout = o.timeout();
        boolean validates = o.bidirectional || (write ? !o.isClient() : o.isClient());
        boolean runs = o.bidirectional || o.isClient();
        String role = !o.bidirectional ? "" : o.isClient() ? " (CLIENT)" : " (SERVER)";
        try (Validators validators = validates
                ? new Validators(s.validation, s.buffer.segment(), o.dataValidationDebug) : null) {
            BandwidthReport shown;
            if (!runs) { // WRITE's server validates what the client writes until the client is done; READ's waits
                if (validators != null) {
                    validators.start();
                }
                s.handshake("end-of-run handshake", s.runTimeout());
                shown = RdmaBandwidth.exchangeReports(s, new BandwidthReport(0, 0, 0, 0, 0), timeout);
                result.accept(shown);
                s.wire.closeConnection(s.mine, timeout);
                out.println(o.bandwidthRule());
            } else {
                try (ValidatedRun run = new ValidatedRun(s.lanes(), s.validation, s.buffer, s.peer.tailMarkers(), !write,
                        s.cq, txDepth, o.cqModeration(), o.pollBatch(), o.events)) {
                    if (write) {
                        LockSupport.parkNanos(WRITER_PAUSE.toNanos()); // an interrupt only shortens it
                    }
                    if (validators != null) {
                        validators.start();
                    }
                    if (o.bidirectional) {
                        s.handshake("handshake before the bidirectional run", s.runTimeout());
                    }
                    long size = s.validation.payload();
                    BandwidthReport mine = o.duration != null
                            ? s.perPort(run.executeFor(Duration.ofSeconds(o.duration).toNanos(), o.marginNanos(),
                                    (int) size, o.reportGbits, o.cpuSampler()), run.sampledPerQueuePair())
                            : run.execute(iterations).report(size, o.reportGbits, o.noPeak);
                    shown = mine;
                    if (o.bidirectional) {
                        s.handshake("handshake before the validators stop", s.runTimeout());
                        LockSupport.parkNanos(DRAIN_PAUSE.toNanos());
                        BandwidthReport theirs = RdmaBandwidth.exchangeReports(s, mine, s.runTimeout());
                        shown = mine.plus(theirs);
                        result.accept(shown);
                        if (o.reportBoth) {
                            both.accept(mine, theirs);
                        }
                    } else {
                        result.accept(mine);
                    }
                    out.println(o.bandwidthRule());
                }
            }
            String failure = null;
            if (validators != null) {
                Validators.Result found = validators.stop();
                found.print(role, o.dataValidationDebug, System.out, System.err);
                if (!found.passed()) {
                    failure = found.errors() > 0 ? "--data_validation: " + found.errors() + " chunk(s) held other"
                            + " bytes than the peer sent (perftest reports it and exits 0)"
                            : "--data_validation: no chunk was completed, so nothing was validated (-n below a chunk's "
                            + s.validation.opsPerChunk() + " messages?)";
                }
            }
            if (runs && !o.bidirectional) {
                s.handshake("end-of-run handshake");
                RdmaBandwidth.exchangeReports(s, shown, timeout);
            }
            if (runs) {
                s.wire.closeConnection(s.mine, timeout);
            }
            return new Outcome(shown, failure);
        }
    }
}
