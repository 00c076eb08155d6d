package org.panamaverbs.bench;

import java.util.Locale;
import java.util.concurrent.Callable;

import org.panamaverbs.verbs.Mtu;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendWorkRequest;
import org.panamaverbs.verbs.SendWorkRequests;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.WorkCompletions;
import org.panamaverbs.verbs.WrOpcode;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * An {@code ib_write_bw}-style RDMA WRITE bandwidth measurement from Java, on two RC queue pairs of one
 * device (loopback): the posting loop, CQ moderation, peak and average computations and the result table
 * are perftest 4.5's (see bench/README.md). Remote writes advance by the message size rounded up to the
 * cache line and wrap at the end of the buffer, as perftest's do.
 */
@Command(name = "write-bw", mixinStandardHelpOptions = true,
        description = "RDMA WRITE bandwidth between two RC queue pairs on one device, printed as ib_write_bw does.")
public final class WriteBw implements Callable<Integer> {
    static final String RESULT_LINE = "-".repeat(87);
    static final String RESULT_FMT_G = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]";
    static final String RESULT_FMT = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
    static final String REPORT_FMT = " %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f";
    static final double GBITS_FACTOR = 125_000_000.0;
    static final double MBYTES_FACTOR = 0x100000;
    static final int CACHE_LINE = 64;
    static final int CYCLE_BUFFER = 4096;

    @Option(names = {"-d", "--ib-dev"}, description = "RDMA device (default: the first)")
    String device;
    @Option(names = {"-i", "--ib-port"}, defaultValue = "1", description = "port (default: ${DEFAULT-VALUE})")
    int port;
    @Option(names = {"-x", "--gid-index"}, defaultValue = "-1", description = "source GID index (default: the library's choice)")
    int gidIndex;
    @Option(names = {"-s", "--size"}, defaultValue = "65536", description = "message size in bytes (default: ${DEFAULT-VALUE})")
    int size;
    @Option(names = {"-n", "--iters"}, defaultValue = "5000", description = "measured iterations (default: ${DEFAULT-VALUE})")
    int iterations;
    @Option(names = {"-t", "--tx-depth"}, defaultValue = "128", description = "send queue depth (default: ${DEFAULT-VALUE})")
    int txDepth;
    @Option(names = {"-Q", "--cq-mod"}, defaultValue = "100", description = "signal every Nth request (default: ${DEFAULT-VALUE})")
    int cqModeration;
    @Option(names = {"-m", "--mtu"}, description = "path MTU in bytes (default: the port's active MTU)")
    Integer mtu;
    @Option(names = "--warmup", defaultValue = "-1",
            description = "unmeasured iterations first, to let the JIT compile the loop (default: as many as -n)")
    int warmup;
    @Option(names = "--report_gbits", description = "report Gb/sec instead of MB/sec")
    boolean reportGbits;
    @Option(names = {"-F", "--CPU-freq"}, description = "accepted for perftest compatibility (nanoTime needs no CPU frequency)")
    boolean ignoredCpuFrequencyWarning;

    public static void main(String[] args) {
        System.exit(new CommandLine(new WriteBw()).execute(args));
    }

    @Override
    public Integer call() {
        if (size < 1 || iterations < 1 || txDepth < 1 || cqModeration < 1) {
            throw new CommandLine.ParameterException(new CommandLine(this), "size, iterations, tx depth and cq-mod must be positive");
        }
        int moderation = Math.min(cqModeration, txDepth);
        long stride = align(size, CACHE_LINE);
        long bufferSize = Math.max(align(size, CYCLE_BUFFER), CYCLE_BUFFER) * 2;
        try (LoopbackRig rig = new LoopbackRig(device, port, gidIndex, pathMtu(), bufferSize, txDepth, 1, txDepth)) {
            printBanner(rig, moderation);
            try (SendWorkRequests wrs = SendWorkRequests.allocate(1, 1);
                 WorkCompletions wcs = WorkCompletions.allocate(16)) {
                SendWorkRequest wr = wrs.get(0).opcode(WrOpcode.RDMA_WRITE).sge(rig.mrA, 0, size);
                Run run = new Run(rig, wrs, wr, wcs, stride, bufferSize, moderation);
                int warmupIterations = warmup < 0 ? iterations : warmup;
                if (warmupIterations > 0) {
                    run.execute(warmupIterations);
                }
                Timings timings = run.execute(iterations);
                printResult(timings);
            }
        }
        return 0;
    }

    private Mtu pathMtu() {
        if (mtu == null) {
            return null;
        }
        for (Mtu m : Mtu.values()) {
            if (m != Mtu.UNKNOWN && m.bytes() == mtu) {
                return m;
            }
        }
        throw new CommandLine.ParameterException(new CommandLine(this), "MTU must be 256, 512, 1024, 2048 or 4096, not " + mtu);
    }

    private void printBanner(LoopbackRig rig, int moderation) {
        Mtu active = rig.context.queryPort(port).activeMtu();
        System.out.println(RESULT_LINE);
        System.out.println("                    RDMA_Write BW Test (Panama Verbs, loopback)");
        System.out.println(" Dual-port       : OFF\t\tDevice         : " + rig.context.name());
        System.out.println(" Number of qps   : 1\t\tTransport type : IB");
        System.out.println(" Connection type : RC\t\tUsing SRQ      : OFF");
        System.out.println(" TX depth        : " + txDepth);
        System.out.println(" CQ Moderation   : " + moderation);
        System.out.println(" Mtu             : " + (mtu == null ? active.bytes() : Math.min(mtu, active.bytes())) + "[B]");
        System.out.println(" Link type       : " + rig.context.queryPort(port).linkLayer());
        System.out.println(" GID index       : " + rig.a.gidIndex());
        System.out.println(" Max inline data : 0[B]");
        System.out.println(" rdma_cm QPs\t : OFF");
        System.out.println(" Data ex. method : none (loopback on one device)");
        System.out.println(RESULT_LINE);
        printEndpoint("local", rig.a.localEndpoint(), rig.mrA);
        printEndpoint("remote", rig.b.localEndpoint(), rig.mrB);
    }

    private static void printEndpoint(String side, org.panamaverbs.verbs.QpEndpoint e,
            org.panamaverbs.verbs.MemoryRegion mr) {
        System.out.printf(Locale.ROOT, " %s address: LID %#06x QPN %#08x PSN %#08x RKey %#010x VAddr %#018x%n",
                side, e.lid(), e.qpNumber(), e.psn(), mr.rkey(), mr.address());
        System.out.println(" GID: " + e.gid());
    }

    private void printResult(Timings t) {
        double factor = reportGbits ? GBITS_FACTOR : MBYTES_FACTOR;
        double seconds = (t.completed[iterations - 1] - t.posted[0]) / 1e9;
        double average = (double) size * iterations / seconds / factor;
        double messageRate = iterations / seconds / 1e6;
        double peak = (double) size / (t.bestNanosPerMessage() / 1e9) / factor;
        System.out.println(RESULT_LINE);
        System.out.println(reportGbits ? RESULT_FMT_G : RESULT_FMT);
        System.out.println(String.format(Locale.ROOT, REPORT_FMT, size, iterations, peak, average, messageRate));
        System.out.println(RESULT_LINE);
    }

    static long align(long value, long alignment) {
        return (value + alignment - 1) / alignment * alignment;
    }

    /** perftest's tposted / tcompleted arrays (nanoseconds instead of cycles). */
    static final class Timings {
        final long[] posted;
        final long[] completed;

        Timings(int iterations) {
            posted = new long[iterations];
            completed = new long[iterations];
        }

        /**
         * perftest's peak: the smallest (tcompleted[j] - tposted[i]) / (j - i + 1) over i ≤ j, where only
         * the indices whose completion was observed (every cq-mod-th request and the last) have a time.
         */
        double bestNanosPerMessage() {
            double best = Double.MAX_VALUE;
            for (int j = 0; j < completed.length; j++) {
                if (completed[j] == 0) {
                    continue;
                }
                for (int i = 0; i <= j; i++) {
                    double perMessage = (double) (completed[j] - posted[i]) / (j - i + 1);
                    if (perMessage < best) {
                        best = perMessage;
                    }
                }
            }
            return best;
        }
    }

    /** The posting loop of perftest's run_iter_bw for one queue pair, with no allocation inside. */
    static final class Run {
        private final LoopbackRig rig;
        private final SendWorkRequests wrs;
        private final SendWorkRequest wr;
        private final WorkCompletions wcs;
        private final long stride;
        private final long bufferSize;
        private final int moderation;
        private final int txDepth;
        private final long remoteBase;
        private final int rkey;

        Run(LoopbackRig rig, SendWorkRequests wrs, SendWorkRequest wr, WorkCompletions wcs, long stride,
                long bufferSize, int moderation) {
            this.rig = rig;
            this.wrs = wrs;
            this.wr = wr;
            this.wcs = wcs;
            this.stride = stride;
            this.bufferSize = bufferSize;
            this.moderation = moderation;
            this.txDepth = rig.a.capabilities().maxSendWr();
            this.remoteBase = rig.mrB.address();
            this.rkey = rig.mrB.rkey();
        }

        Timings execute(int iterations) {
            Timings t = new Timings(iterations);
            int posted = 0;
            int completed = 0;
            long offset = 0;
            while (completed < iterations) {
                while (posted < iterations && posted - completed < txDepth) {
                    boolean signaled = (posted % moderation) == moderation - 1 || posted == iterations - 1;
                    wr.id(posted).flags(signaled ? SendFlags.SIGNALED : 0).remote(remoteBase + offset, rkey);
                    t.posted[posted] = System.nanoTime();
                    int rc = rig.a.postSend(wrs, 1);
                    if (rc != 0) {
                        throw new IllegalStateException("ibv_post_send failed with errno " + rc + " at iteration " + posted);
                    }
                    posted++;
                    offset += stride;
                    if (offset + stride > bufferSize) {
                        offset = 0;
                    }
                }
                int n = rig.cqA.poll(wcs);
                if (n < 0) {
                    throw new IllegalStateException("ibv_poll_cq failed: " + n);
                }
                for (int i = 0; i < n; i++) {
                    WorkCompletion wc = wcs.get(i);
                    if (!wc.isSuccess()) {
                        throw new IllegalStateException("completion with error: " + wc);
                    }
                    completed = (int) wc.wrId() + 1;
                    t.completed[completed - 1] = System.nanoTime();
                }
            }
            return t;
        }
    }
}
