package org.panamaverbs.bench;

import java.util.Locale;
import java.util.concurrent.Callable;

import org.panamaverbs.bench.perftest.BandwidthReport;
import org.panamaverbs.bench.perftest.RdmaRun;
import org.panamaverbs.verbs.WrOpcode;
import org.panamaverbs.verbs.Mtu;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * An {@code ib_write_bw}-style RDMA WRITE bandwidth measurement from Java, on two RC queue pairs of one
 * device (loopback): the posting loop, CQ moderation, peak and average computations and the result table
 * are perftest 4.5's (see bench/README.md), shared with the client/server {@code ib_write_bw}
 * ({@link RdmaRun}, {@link BandwidthReport}).
 */
@Command(name = "write-bw", mixinStandardHelpOptions = true,
        description = "RDMA WRITE bandwidth between two RC queue pairs on one device, printed as ib_write_bw does.")
public final class WriteBw implements Callable<Integer> {
    static final String RESULT_LINE = BandwidthReport.RESULT_LINE;
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
        // perftest's buffer: the message (at least the cycle buffer) rounded to the cache line, twice
        long bufferSize = align(Math.max(size, CYCLE_BUFFER), CACHE_LINE) * 2;
        try (LoopbackRig rig = new LoopbackRig(device, port, gidIndex, pathMtu(), bufferSize, txDepth, 1, txDepth)) {
            printBanner(rig, moderation);
            try (RdmaRun run = new RdmaRun(rig.a, WrOpcode.RDMA_WRITE, rig.cqA, rig.mrA, 0, rig.mrB.address(), rig.mrB.rkey(), txDepth,
                    cqModeration, CYCLE_BUFFER, CACHE_LINE)) {
                int warmupIterations = warmup < 0 ? iterations : warmup;
                if (warmupIterations > 0) {
                    run.execute(warmupIterations, size);
                }
                BandwidthReport report = run.execute(iterations, size).report(size, reportGbits);
                System.out.println(RESULT_LINE);
                System.out.println(reportGbits ? BandwidthReport.RESULT_FMT_G : BandwidthReport.RESULT_FMT);
                System.out.println(report.line(reportGbits));
                System.out.println(RESULT_LINE);
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

    static long align(long value, long alignment) {
        return (value + alignment - 1) / alignment * alignment;
    }
}
