package org.panamaverbs.bench.perftest;

import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Consumer;

import org.panamaverbs.verbs.Gid;
import org.panamaverbs.verbs.LinkLayer;
import org.panamaverbs.verbs.WrOpcode;

import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The command line perftest 4.5's tools share, with perftest's names and defaults. Flags a tool does not
 * implement yet are accepted by the parser and then refused with a one-line message ({@link #refuse}), never
 * silently ignored; perftest's options no tool declares here come from {@link PerftestFlags}.
 */
public final class PerftestOptions {
    @Parameters(index = "0", arity = "0..1", paramLabel = "SERVER",
            description = "the server's address: run as the client (without it, run as the server)")
    String server;
    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "RDMA device (default: the first)")
    String device;
    @Option(names = {"-i", "--ib-port"}, defaultValue = "1", paramLabel = "PORT", description = "device port (default: ${DEFAULT-VALUE})")
    int ibPort;
    @Option(names = {"-x", "--gid-index"}, defaultValue = "-1", paramLabel = "INDEX",
            description = "source GID index (default: the first RoCE v2 IPv4 entry)")
    int gidIndex;
    @Option(names = {"-s", "--size"}, paramLabel = "BYTES", description = "message size (default: 65536 for BW tests, 2 for latency tests; atomic tests: 8 only)")
    Long size;
    @Option(names = {"-n", "--iters"}, paramLabel = "N", description = "iterations (default: 5000 for ib_write_bw, 1000 for the other tools, as perftest)")
    Integer iterations;
    @Option(names = {"-D", "--duration"}, paramLabel = "SECONDS", description = "run for this long instead of -n iterations")
    Integer duration;
    @Option(names = {"-f", "--margin"}, paramLabel = "SECONDS",
            description = "with -D, the unmeasured seconds before and after the sample (default: a quarter of -D);"
                    + " -D (default 5) must exceed twice it, as perftest checks even without -D")
    Integer margin;
    @Option(names = {"-a", "--all"}, description = "run every size from 2 to 2^23 bytes")
    boolean allSizes;
    @Option(names = {"-q", "--qp"}, defaultValue = "1", paramLabel = "N", description = "queue pairs (default: ${DEFAULT-VALUE})")
    int queuePairs;
    @Option(names = {"-O", "--dualport"}, description = "run on two ports of the device: -q queue pairs on -i's port"
            + " and -q more on port 2")
    boolean dualPort;
    @Option(names = "--report-per-port", description = "with -O and -D, each port's bandwidth and message rate besides"
            + " the total")
    boolean reportPerPort;
    @Option(names = {"-t", "--tx-depth"}, paramLabel = "N", description = "send queue depth (default: 128 for BW tests, 1 for latency tests)")
    Integer txDepth;
    @Option(names = {"-r", "--rx-depth"}, defaultValue = "512", paramLabel = "N", description = "receive queue depth (default: ${DEFAULT-VALUE})")
    int rxDepth;
    @Option(names = {"-l", "--post_list"}, defaultValue = "1", paramLabel = "N", description = "requests per post call (default: ${DEFAULT-VALUE})")
    int postList;
    @Option(names = {"-Q", "--cq-mod"}, paramLabel = "N", description = "signal every Nth request (default: 100; with -l, the post list size)")
    Integer cqModerationOption;
    @Option(names = {"-I", "--inline_size"}, paramLabel = "BYTES", description = "inline size (default: 0)")
    Integer inlineSize;
    @Option(names = {"-m", "--mtu"}, paramLabel = "BYTES", description = "path MTU: 256, 512, 1024, 2048 or 4096 (default: the port's active MTU)")
    Integer mtu;
    @Option(names = {"-p", "--port"}, defaultValue = "18515", paramLabel = "TCP_PORT", description = "TCP port of the exchange (default: ${DEFAULT-VALUE})")
    int tcpPort;
    @Option(names = {"-c", "--connection"}, defaultValue = "RC", paramLabel = "TYPE", description = "transport: RC (UD for the send tools) (default: ${DEFAULT-VALUE})")
    String connection;
    @Option(names = {"-b", "--bidirectional"}, description = "traffic in both directions")
    boolean bidirectional;
    @Option(names = "--report-both", description = "with -b, also this side's and the peer's figures apart")
    boolean reportBoth;
    @Option(names = "--run_infinitely",
            description = "run until a signal ends it, printing the bandwidth of each -D seconds (default: 5) as it"
                    + " ends (bandwidth tests; no peak, as perftest)")
    boolean runInfinitely;
    @Option(names = "--reversed",
            description = "swap the roles, not the connection: the side given the address receives, the other sends"
                    + " (bandwidth tests; perftest's fan-in)")
    boolean reversed;
    @Option(names = {"-e", "--events"}, description = "wait for completion events instead of polling")
    boolean events;
    @Option(names = {"-X", "--vector"}, paramLabel = "N", description = "with -e, the completion vector whose"
            + " interrupts signal the events, 0 to the device's num_comp_vectors - 1 (default: 0)")
    Integer completionVector;
    @Option(names = {"-T", "--tos"}, paramLabel = "TOS", description = "with -R or -z, the type of service of the"
            + " rdma_cm connections, 0-255 (on RoCE the IP header's DS field, as perftest)")
    Integer typeOfService;
    @Option(names = "--pkey_index", defaultValue = "0", paramLabel = "INDEX", description = "the queue pairs' P_Key"
            + " index (not with -R, where rdma_cm picks it; an index past the device's max_pkeys becomes 0, as in"
            + " perftest; default: ${DEFAULT-VALUE})")
    int pkeyIndex;
    @Option(names = "--cqe_poll", paramLabel = "N", description = "completions taken per poll by the bandwidth"
            + " loops, 1-65535 (default: 16, perftest's batch; the latency tools poll one at a time, as perftest's)")
    Integer cqePoll;
    @Option(names = "--flow_label", paramLabel = "FL0,FL1,...", description = "GRH flow labels, 0-0xFFFFF, given to"
            + " the queue pairs (or UD address handles) in turn, as perftest 25.01 and later")
    String flowLabels;
    @Option(names = {"-R", "--rdma_cm"}, description = "connect the queue pairs with rdma_cm")
    boolean rdmaCm;
    @Option(names = {"-z", "--comm_rdma_cm"}, description = "exchange the parameters over rdma_cm, as -R does, but"
            + " connect the test's own queue pairs with ibv_modify_qp (as perftest)")
    boolean commRdmaCm;
    @Option(names = "--ipv6", description = "the default GID prefers IPv6 to IPv4-mapped (perftest's GID scoring)")
    boolean ipv6;
    @Option(names = "--ipv6-addr", description = "the TCP exchange over IPv6: the server listens on ::, the client"
            + " reaches the server's IPv6 address")
    boolean ipv6Address;
    @Option(names = "--bind_source_ip", paramLabel = "IP", description = "the client's exchange connection from this"
            + " local address (an IPv6 one needs --ipv6-addr, as perftest)")
    String bindSourceIp;
    @Option(names = "--dlid", paramLabel = "LID", description = "InfiniBand: send to this LID instead of the one the"
            + " peer sent (the remote address line shows it)")
    Integer dlid;
    @Option(names = "--force-link", paramLabel = "IB|Ethernet", description = "the link type perftest should assume;"
            + " the Java tools check that it is the port's own")
    String forceLink;
    @Option(names = {"-F", "--CPU-freq"}, description = "accepted for compatibility (no CPU-frequency warning: time comes from System.nanoTime)")
    boolean ignoredCpuFrequencyWarning;
    @Option(names = {"-o", "--outs"}, defaultValue = "0", paramLabel = "N",
            description = "RDMA READs (or atomics) outstanding per queue pair (READ and atomic tests; default: the"
                    + " device's maximum)")
    int outs;
    @Option(names = {"-u", "--qp-timeout"}, defaultValue = "14", paramLabel = "N",
            description = "an RC queue pair waits 4.096 us * 2^N for an acknowledgment before it retries, 0-31"
                    + " (default: ${DEFAULT-VALUE}; with -R given to rdma_cm, as perftest 25.01 and later)")
    int qpTimeout;
    @Option(names = "--retry_count", defaultValue = "7", paramLabel = "N",
            description = "retries of an unacknowledged request with -R, 0-7 (rdma_cm's retry_count; default:"
                    + " ${DEFAULT-VALUE}, which is also what an RC queue pair gets without -R, as in perftest)")
    int retryCount;
    @Option(names = {"-S", "--sl"}, defaultValue = "0", paramLabel = "SL",
            description = "service level of the queue pairs' path, 0-15 (default: ${DEFAULT-VALUE})")
    int serviceLevel;
    @Option(names = "--tclass", defaultValue = "0", paramLabel = "TC",
            description = "traffic class of the GRH, 0-255 (on RoCE the IP header's DS field; default: ${DEFAULT-VALUE})")
    int trafficClass;
    @Option(names = {"-N", "--noPeak"}, description = "measure no peak bandwidth (the report says 0)")
    boolean noPeak;
    @Option(names = "--report_gbits", description = "report Gb/sec instead of MB/sec")
    boolean reportGbits;
    @Option(names = {"-H", "--report-histogrm", "--report-histogram"},
            description = "print the latency histogram (latency tests; --report-histogrm is perftest's own spelling)")
    boolean histogram;
    @Option(names = "--output", paramLabel = "WHAT",
            description = "print only the average figure, one number per size: bandwidth or message_rate (bandwidth"
                    + " tests), latency (latency tests)")
    String output;
    @Option(names = "--latency_gap", defaultValue = "0", paramLabel = "USEC",
            description = "spin this long before each post, counted in the latency as perftest counts it (latency"
                    + " tests; default: ${DEFAULT-VALUE})")
    int latencyGapMicros;
    @Option(names = {"-U", "--report-unsorted"},
            description = "print every sample in the order measured before the report (latency tests)")
    boolean unsorted;
    /** {@code -g}, which only the SEND tools declare ({@link Multicast}; set by them before their session opens). */
    boolean multicast;
    /** With {@code -g}, the group this side's queue pair attaches to; null on a side that only sends. */
    Gid multicastGroup;
    /** {@code --use-srq}, which only {@code ib_send_bw} declares (set by it before its session opens). */
    boolean sharedReceiveQueue;
    /** {@code --recv_post_list}, which only {@code ib_send_bw} declares (set by it before its session opens). */
    int recvPostList = 1;
    /**
     * {@code --write_with_imm}, which only {@code ib_write_bw} declares (set by it before its session opens): RDMA
     * WRITE with immediate, each consuming a receive at the peer.
     */
    boolean writeWithImm;
    /**
     * {@code --send_with_imm}, which only the SEND tools declare (set by them before their session opens): SEND with
     * immediate, each receive checked for the immediate.
     */
    boolean sendWithImm;
    /**
     * {@code --connectionless}, which only {@code ib_send_bw} declares (set by it before its session opens): a
     * multicast receiver with no peer, so the session exchanges nothing.
     */
    boolean connectionless;
    @Option(names = "--odp", description = "register the buffers with on-demand paging (IBV_ACCESS_ON_DEMAND): not"
            + " pinned, the device faults their pages in; a device without it, or without it for the test's operations,"
            + " is refused as perftest refuses it")
    boolean odp;
    @Option(names = "--use-null-mr", description = "send from and offer a null memory region (ibv_alloc_null_mr): the"
            + " device discards what is written and reads zeros, so the run measures the network without memory; a"
            + " device without null regions is refused as perftest refuses it")
    boolean useNullMr;
    /**
     * {@code --data_validation} and {@code --data_validation_debug}, which only the WRITE and READ bandwidth tools
     * declare (set by them before their session opens).
     */
    boolean dataValidation;
    boolean dataValidationDebug;
    /**
     * The bandwidth table as perftest 24.07 and later print it ("MiB/sec", the message rate two spaces further on) or
     * as the releases before: the peer's release's, set by the session once it is known; without a peer the newest.
     */
    boolean tablesSince2407 = true;
    @Option(names = "--use_hugepages",
            description = "take the buffers from hugepage-backed memory (System V shared memory with SHM_HUGETLB, as"
                    + " perftest); a machine without hugepages configured stops the tool, as perftest's")
    boolean useHugepages;
    @Option(names = {"-W", "--report-counters"}, paramLabel = "NAMES", description = "after each result, the change of"
            + " these port counters, comma-separated paths under /sys/class/infiniband/DEV/ports/PORT (for example"
            + " hw_counters/rcvd_pkts; as perftest)")
    String reportCounters;
    /** {@code -W}'s counters, opened by the session; null without {@code -W}. */
    PortCounters counters;
    @Option(names = "--payload_file_path", paramLabel = "FILE", description = "the buffers repeat this file's"
            + " pattern, 32-bit words such as 0xaaaaaaaa,0xbbbbbbbb written little-endian (as perftest)")
    Path payloadFile;
    @Option(names = "--mmap", paramLabel = "FILE", description = "the buffers are this file, mapped shared and"
            + " read-write (as perftest: memory a driver exposes as a file, for peer-to-peer transfers)")
    Path mmapFile;
    @Option(names = "--mmap-offset", defaultValue = "0", paramLabel = "BYTES",
            description = "with --mmap, where in the file the buffers start (default: ${DEFAULT-VALUE})")
    long mmapOffset;
    @Option(names = "--mr_per_qp",
            description = "a buffer and memory region per queue pair, each offering the peer its own rkey and address"
                    + " (bandwidth tests, as perftest; with -q 1 no change)")
    boolean mrPerQp;
    @Option(names = {"-w", "--limit_bw"}, paramLabel = "BW",
            description = "fail (exit 1) unless a result line's average bandwidth reaches BW, in the report's unit"
                    + " (bandwidth tests; perftest's verifier limit)")
    Float limitBw;
    @Option(names = {"-y", "--limit_msgrate"}, paramLabel = "MPPS",
            description = "with -w, also fail unless a result line's message rate reaches MPPS (as perftest checks it)")
    Float limitMsgRate;
    @Option(names = "--wait_destroy", defaultValue = "0", paramLabel = "SECONDS",
            description = "wait this long before releasing the resources at the end (bandwidth tests; default:"
                    + " ${DEFAULT-VALUE})")
    int waitDestroySeconds;
    @Option(names = "--out_json", description = "write perftest's JSON results file (--out_json_file) at each result line")
    boolean outJson;
    @Option(names = "--out_json_file", defaultValue = PerftestJsonFile.DEFAULT_NAME, paramLabel = "FILE",
            description = "the file of --out_json (default: ${DEFAULT-VALUE} in the working directory)")
    String outJsonFile;
    @Option(names = "--cpu_util",
            description = "with -D, add the machine's CPU utilization over the sample to each result line (user time"
                    + " over user and idle time in /proc/stat, as perftest)")
    boolean cpuUtil;
    /** {@code --cpu_util}'s readings of the run (taken by the timed loops when {@link #reportsCpuUtil}) */
    final CpuUtilization cpu = new CpuUtilization();
    @Option(names = "--json", description = "print the results as one JSON object on stdout after the table")
    boolean json;
    @Option(names = "--warmup", defaultValue = "-1", paramLabel = "N",
            description = "unmeasured iterations before the run, so the JIT compiles the loop (default: as many as -n);"
                    + " latency tools run them between two local queue pairs before the peer is contacted")
    int warmup;
    @Option(names = "--loopback", description = "no peer: two queue pairs of this process on one device (bandwidth tests)")
    boolean loopback;
    @Option(names = "--negotiation-size", paramLabel = "BYTES",
            description = "the parameter negotiation record's size with perftest 26.01 and later: 320 (a perftest built"
                    + " with mlx5 direct verbs, as distributions build it) or 312 (built without); default: a client"
                    + " sends 320, a server answers with the client's size")
    Integer negotiationSize;
    @Option(names = "--timeout", defaultValue = "60", paramLabel = "SECONDS",
            description = "how long to wait for the peer at each step of the exchange (default: ${DEFAULT-VALUE})")
    int timeoutSeconds;

    private static final PrintStream DISCARD = new PrintStream(OutputStream.nullOutputStream());

    /**
     * The largest size {@code -a} runs: perftest's {@code MAX_SIZE}, also the size perftest 26.01 and later negotiate
     * with {@code -a} (a UD test's path MTU lowers it).
     */
    static final long MAX_ALL_SIZE = 1L << 23;
    /** perftest's {@code DEF_ITERS}: {@code -n} when not given, on every tool but {@code ib_write_bw}. */
    static final int DEFAULT_ITERATIONS = 1000;
    /** perftest's {@code DEF_ITERS_WB}: {@code ib_write_bw}'s {@code -n} when not given. */
    static final int DEFAULT_WRITE_BW_ITERATIONS = 5000;

    /**
     * Whether this side runs the test's traffic as perftest's client (its {@code machine}): the side given the
     * server's address, or with {@code --reversed} the other one.
     */
    boolean isClient() {
        return (server != null) != reversed;
    }

    /** Whether this side connects to the peer (it was given the address); {@code --reversed} does not change it. */
    boolean connects() {
        return server != null;
    }

    /**
     * {@code --run_infinitely}'s sending side, as perftest's {@code run_iter_bw_infinitely}: keeps the send queues
     * full, handing {@code print} a report at the end of each period, until SIGINT, after which perftest 25.01's
     * words (4.5 just died); the caller then does its end of the run.
     */
    void sendForever(RdmaRun run, int size, Consumer<BandwidthReport> print, PrintStream stdout) {
        run.executeForever(reportPeriodNanos(), size, reportGbits, print, Interrupt.onSigint());
        stdout.println();
        stdout.println(" User stopped traffic");
    }

    /** The period of {@code --run_infinitely}'s reports in nanoseconds: {@code -D}, or perftest's 5 seconds. */
    long reportPeriodNanos() {
        return Duration.ofSeconds(duration != null ? duration : ParameterNegotiation.DEFAULT_DURATION).toNanos();
    }

    Duration timeout() {
        return Duration.ofSeconds(timeoutSeconds);
    }

    /** The message size: {@code -s}, or {@code defaultSize}; with {@code -a} the largest size, for the buffer. */
    long bufferMessageSize(long defaultSize) {
        return allSizes ? MAX_ALL_SIZE : size != null ? size : defaultSize;
    }

    /** The queue pairs of the run: {@code -q}, twice that with {@code -O} (one set per port), as perftest counts them. */
    int queuePairCount() {
        return dualPort ? 2 * queuePairs : queuePairs;
    }

    /** Checks what every tool needs (picocli names the tool in front of the message): {@link OptionChecks}. */
    void validate(long defaultSize) {
        OptionChecks.check(this, defaultSize);
    }

    /**
     * {@code --flow_label}'s labels, perftest's {@code parse_flow_label_from_str} (each a C integer: decimal, 0x hex or
     * 0 octal), or an empty array without the option.
     */
    int[] flowLabelList() {
        if (flowLabels == null) {
            return new int[0];
        }
        String[] parts = flowLabels.split(",", -1);
        int[] labels = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                labels[i] = Integer.decode(parts[i].strip());
            } catch (NumberFormatException e) {
                throw new PerftestException("--flow_label " + flowLabels + ": \"" + parts[i] + "\" is not a number");
            }
            if (labels[i] < 0 || labels[i] > 0xFFFFF) { // C would truncate it to the GRH's 20 bits
                throw new PerftestException("--flow_label " + flowLabels + ": each label must be 0 to 0xFFFFF (20 bits),"
                        + " not " + parts[i]);
            }
        }
        return labels;
    }

    /** perftest's {@code CTX_POLL_BATCH}: completions taken per poll by a bandwidth loop without {@code --cqe_poll}. */
    static final int POLL_BATCH = 16;

    /** {@code --cqe_poll}'s completions per poll of the bandwidth loops, or perftest's default batch. */
    int pollBatch() {
        return cqePoll == null ? POLL_BATCH : cqePoll;
    }

    /** A SEND test's opcode: SEND, or with {@code --send_with_imm} SEND with immediate. */
    WrOpcode sendOpcode() {
        return sendWithImm ? WrOpcode.SEND_WITH_IMM : WrOpcode.SEND;
    }

    /** Whether every receive must carry an immediate: WRITE or SEND with immediate, as perftest 26 checks. */
    boolean receivesImmediates() {
        return writeWithImm || sendWithImm;
    }

    /** {@code -X}'s completion vector, 0 when not given. */
    int eventVector() {
        return completionVector == null ? 0 : completionVector;
    }

    /** Whether the parameters are exchanged over rdma_cm: {@code -R}, or {@code -z} with the queue pairs of ibverbs. */
    boolean exchangesOverRdmaCm() {
        return rdmaCm || commRdmaCm;
    }

    /** perftest's {@code str_link_layer}: "IB" or "Ethernet" by their first letters, any case; null for others. */
    static LinkLayer linkLayerNamed(String name) {
        if (name.regionMatches(true, 0, "IB", 0, 2)) {
            return LinkLayer.INFINIBAND;
        }
        return name.regionMatches(true, 0, "Ethernet", 0, 8) ? LinkLayer.ETHERNET : null;
    }

    /** {@code --bind_source_ip} as an address, or null: a literal, as perftest passes it to inet_addr / inet_pton. */
    InetAddress sourceAddress() {
        if (bindSourceIp == null) {
            return null;
        }
        try {
            return InetAddress.ofLiteral(bindSourceIp);
        } catch (IllegalArgumentException e) {
            throw new PerftestException("Invalid source address (--bind_source_ip " + bindSourceIp + "; as perftest)");
        }
    }

    /**
     * Where a tool prints its banner, addresses and tables: {@code stdout}, or nowhere with {@code --output}, which
     * leaves only the figure of each result ({@link #bandwidthResult}, {@link #latencyResult}).
     */
    PrintStream verbose(PrintStream stdout) {
        return output == null ? stdout : DISCARD;
    }

    /** A bandwidth test's {@code --output}: bandwidth or message_rate only, as perftest. */
    void checkBandwidthOutput() {
        if (output != null && !output.equals("bandwidth") && !output.equals("message_rate")) {
            throw new PerftestException("Output verbosity level for BW can be: bandwidth, message_rate (not " + output + ")");
        }
    }

    /** A latency test's {@code --output}: latency only, as perftest. */
    void checkLatencyOutput() {
        if (output != null && !output.equals("latency")) {
            throw new PerftestException("Output verbosity level for LAT can be: latency (not " + output + ")");
        }
    }

    /**
     * Whether the result lines carry {@code --cpu_util}'s column: only with {@code -D}, as perftest decides it while
     * it parses (before {@code --run_infinitely} makes its run a timed one).
     */
    boolean reportsCpuUtil() {
        return cpuUtil && duration != null;
    }

    /** What the timed loops read /proc/stat into: {@link #cpu} with {@code --cpu_util}, else null. */
    CpuUtilization cpuSampler() {
        return reportsCpuUtil() ? cpu : null;
    }

    /**
     * perftest's note that {@code --cpu_util} needs {@code -D}: a line of dashes on stdout, the note on stderr; the
     * run goes on without the column, as perftest's.
     */
    void warnCpuUtilWithoutDuration(PrintStream stdout, PrintStream stderr) {
        if (cpuUtil && duration == null) {
            stdout.println(BandwidthReport.RESULT_LINE);
            stdout.flush();
            stderr.println(" CPU Utilization works only with Duration mode.");
        }
    }

    /** A bandwidth table's header: perftest's columns, and {@code --cpu_util}'s. */
    String bandwidthHeader() {
        return (reportGbits ? BandwidthReport.RESULT_FMT_G : tablesSince2407 ? BandwidthReport.RESULT_FMT_MIB
                : BandwidthReport.RESULT_FMT)
                + (reportPerPort ? reportGbits ? BandwidthReport.PORT_COLUMNS_G
                        : tablesSince2407 ? BandwidthReport.PORT_COLUMNS_MIB : BandwidthReport.PORT_COLUMNS : "")
                + (reportsCpuUtil() ? CpuUtilization.HEADER_COLUMN : "");
    }

    /** The rule around a bandwidth table: perftest's longer one with {@code --report-per-port}'s columns. */
    String bandwidthRule() {
        return reportPerPort ? BandwidthReport.RESULT_LINE_PER_PORT : BandwidthReport.RESULT_LINE;
    }

    /**
     * A bandwidth result as perftest prints it: its line (with {@code --cpu_util}'s figure), or with {@code --output}
     * the average asked for ({@code %lf}).
     */
    String bandwidthResult(BandwidthReport report) {
        if (output == null) {
            return report.line(reportGbits, tablesSince2407) + (reportsCpuUtil() ? cpu.column() : "") + counterDeltas();
        }
        return String.format(Locale.ROOT, "%f", output.equals("bandwidth") ? report.average() : report.messageRate())
                + counterDeltas();
    }

    /** {@code -W}: the counters' changes since the last result (read now), as perftest prints them after it; or "". */
    String counterDeltas() {
        return counters == null ? "" : counters.deltas();
    }

    /** A latency result as perftest prints it: its line, or with {@code --output latency} the average ({@code %lf}). */
    String latencyResult(LatencyReport report) {
        return (output == null ? report.line() : String.format(Locale.ROOT, "%f", report.average())) + counterDeltas();
    }

    /** Requests signaled: every {@code -Q}th; perftest's default 100, or the post list's size with {@code -l}. */
    int cqModeration() {
        return cqModerationOption != null ? cqModerationOption : postList > 1 ? postList : 100;
    }

    /** {@code -c RC} (the default). */
    boolean isRc() {
        return connection.equalsIgnoreCase("RC");
    }

    /** {@code -c UD}: unreliable datagrams (the send tools). */
    boolean isUd() {
        return connection.equalsIgnoreCase("UD");
    }

    /**
     * perftest's margin of {@code -D}, before and after the sample: {@code -f}, or a quarter of the duration in
     * whole seconds.
     */
    long marginNanos() {
        return Duration.ofSeconds(margin != null ? margin : duration / 4).toNanos();
    }

    /** {@code -I}: the largest message sent inline (0: none). */
    int inlineSize() {
        return inlineSize == null ? 0 : inlineSize;
    }

    /**
     * perftest's checks of {@code -l} for a bandwidth test run of {@code iterations}: whole lists, a moderation
     * that divides the list, and room for a list in the send queue. Prints perftest's note when the moderation
     * follows the list.
     */
    void checkPostList(int iterations, int txDepth, PrintStream out) {
        if (postList == 1) {
            return;
        }
        if (duration == null && !runInfinitely && iterations % postList != 0) { // -D ignores -n, as perftest
            throw new PerftestException("Number of iterations must be a multiple of post list size (-n " + iterations
                    + ", -l " + postList + ")");
        }
        if (cqModerationOption == null) {
            out.print(BandwidthReport.RESULT_LINE + "\n");
            out.println("Post List requested - CQ moderation will be the size of the post list");
        } else if (postList % cqModerationOption != 0) {
            throw new PerftestException("Post list size must be a multiple of CQ moderation (-l " + postList + ", -Q "
                    + cqModerationOption + ")");
        }
        if (txDepth < postList) {
            throw new PerftestException("-t " + txDepth + " leaves no room for a post list of " + postList
                    + " (the send queue must hold a whole list)");
        }
    }

    /** perftest's receive depth of a SEND test: no deeper than the run is long, and even (its work-around). */
    static int sendRxDepth(int requested, int iterations) {
        int depth = Math.max(1, Math.min(requested, iterations));
        return depth % 2 == 1 ? depth + 1 : depth;
    }

    /**
     * {@code --wait_destroy}: perftest's {@code destroy_ctx} says so and sleeps before it releases anything (the
     * queue pairs stay in their state meanwhile, for whoever inspects them).
     */
    void waitBeforeDestroy(PrintStream stdout) {
        if (waitDestroySeconds == 0) {
            return;
        }
        stdout.println(" Waiting " + waitDestroySeconds + " seconds before releasing resources...");
        stdout.flush();
        try {
            Thread.sleep(Duration.ofSeconds(waitDestroySeconds));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Refuses the flags no tool implements yet (perftest's -c UC; -q with -R, or with UD on ib_send_lat). */
    void refuseUnimplemented(String tool) {
        refuse(tool, queuePairs != 1 && rdmaCm, "-q with -R");
        refuse(tool, queuePairs != 1 && isUd() && !tool.equals("ib_send_bw"), "-q with -c UD");
        boolean sendTool = tool.startsWith("ib_send");
        refuse(tool, !isRc() && !(sendTool && isUd()), "-c " + connection + (sendTool ? " (RC or UD)" : " (only RC)"));
        refuse(tool, isUd() && rdmaCm, "-R with -c UD");
        refuse(tool, reversed && rdmaCm, "--reversed with -R");
        refuse(tool, isUd() && loopback, "--loopback with -c UD");
    }

    /** Refuses a flag this tool does not implement (yet): one line, non-zero exit. */
    static void refuse(String tool, boolean given, String flag) {
        if (given) {
            throw new PerftestException(flag + " is not implemented by this " + tool + " (yet); run without it");
        }
    }
}
