package org.panamaverbs.bench.perftest;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Every option of perftest 26.04's tools (and the spellings 4.5 used), what C perftest does with it per tool, and
 * what the Java tools do: implement it, accept it without effect for a stated reason, or refuse it in one line
 * saying why. The one place these facts live: the parser learns the options it does not implement from here
 * ({@link PerftestRefusals}), and the option table of docs/guide/tools.md is generated from here and the parser's
 * own definitions ({@code PerftestFlagsTableTest} keeps the two equal).
 */
final class PerftestFlags {
    /** perftest's tools, all of which the Java tools have. */
    enum Tool {
        WRITE_BW("ib_write_bw"), WRITE_LAT("ib_write_lat"), READ_BW("ib_read_bw"), READ_LAT("ib_read_lat"),
        SEND_BW("ib_send_bw"), SEND_LAT("ib_send_lat"), ATOMIC_BW("ib_atomic_bw"), ATOMIC_LAT("ib_atomic_lat");

        final String command;

        Tool(String command) {
            this.command = command;
        }

        /** The tool run as {@code command}, or null. */
        static Tool of(String command) {
            for (Tool tool : values()) {
                if (tool.command.equals(command)) {
                    return tool;
                }
            }
            return null;
        }
    }

    /** What the Java tools do with an option where they do not implement it. */
    enum State {
        /** Implemented on {@link Flag#javaTools}, refused elsewhere with the reason. */
        IMPLEMENTED,
        /** Parsed, without effect, for the reason given (it would change nothing in the Java tools). */
        ACCEPTED,
        /** Refused with the reason. */
        REFUSED
    }

    /**
     * One option.
     *
     * @param shortName     its one-letter name ("-p"), or null
     * @param longName      its long name ("--port")
     * @param takesValue    whether a value follows it
     * @param perftestTools the tools C perftest accepts it on (it refuses it elsewhere, or ignores it)
     * @param javaTools     the Java tools that implement it
     * @param state         what the Java tools do where they do not implement it
     * @param reason        why, in the words of the one-line refusal
     * @param note          how the Java tools implement it where that differs from perftest's means, or ""
     */
    record Flag(String shortName, String longName, boolean takesValue, Set<Tool> perftestTools, Set<Tool> javaTools,
            State state, String reason, String note) {
        /** The names a command line may use. */
        String[] names() {
            return shortName == null ? new String[] {longName} : new String[] {shortName, longName};
        }

        /** How the table and the refusal name it: "-p, --port". */
        String display() {
            return shortName == null ? longName : shortName + ", " + longName;
        }

        /** This option with the table's note on how the Java tools implement it. */
        Flag noted(String how) {
            return new Flag(shortName, longName, takesValue, perftestTools, javaTools, state, reason, how);
        }
    }

    private static final boolean VALUE = true;
    private static final boolean NONE = false;
    private static final Set<Tool> ALL = Collections.unmodifiableSet(EnumSet.allOf(Tool.class));
    private static final Set<Tool> SIX = set(Tool.WRITE_BW, Tool.WRITE_LAT, Tool.READ_BW, Tool.READ_LAT, Tool.SEND_BW,
            Tool.SEND_LAT);
    private static final Set<Tool> BW = set(Tool.WRITE_BW, Tool.READ_BW, Tool.SEND_BW, Tool.ATOMIC_BW);
    private static final Set<Tool> LAT = set(Tool.WRITE_LAT, Tool.READ_LAT, Tool.SEND_LAT, Tool.ATOMIC_LAT);
    private static final Set<Tool> SEND = set(Tool.SEND_BW, Tool.SEND_LAT);
    private static final Set<Tool> WRITE = set(Tool.WRITE_BW, Tool.WRITE_LAT);
    private static final Set<Tool> ATOMIC = set(Tool.ATOMIC_BW, Tool.ATOMIC_LAT);
    private static final Set<Tool> READ_ATOMIC = set(Tool.READ_BW, Tool.READ_LAT, Tool.ATOMIC_BW, Tool.ATOMIC_LAT);
    private static final Set<Tool> NOT_WRITE = set(Tool.READ_BW, Tool.READ_LAT, Tool.SEND_BW, Tool.SEND_LAT,
            Tool.ATOMIC_BW, Tool.ATOMIC_LAT);
    private static final Set<Tool> WRITE_SEND = set(Tool.WRITE_BW, Tool.WRITE_LAT, Tool.SEND_BW, Tool.SEND_LAT);
    private static final Set<Tool> WRITE_READ = set(Tool.WRITE_BW, Tool.WRITE_LAT, Tool.READ_BW, Tool.READ_LAT);
    private static final Set<Tool> WRITE_READ_BW = set(Tool.WRITE_BW, Tool.READ_BW);
    private static final Set<Tool> NOT_WRITE_LAT = set(Tool.WRITE_BW, Tool.READ_BW, Tool.READ_LAT, Tool.SEND_BW,
            Tool.SEND_LAT, Tool.ATOMIC_BW, Tool.ATOMIC_LAT);
    private static final Set<Tool> NONE_OF_THEM = Set.of();

    private static final String NOT_YET = "not implemented by the Java tools yet";
    private static final String RATE_LIMIT = "rate limits: the bandwidth tools only (perftest's too)";
    private static final String RAW_ETHERNET = "an option of perftest's raw_ethernet_* tools, which have no Java"
            + " counterpart";
    private static final String CUDA = "GPU memory (CUDA): the Java tools register host memory only";
    private static final String ROCM = "GPU memory (ROCm): the Java tools register host memory only";
    private static final String NEURON = "AWS Neuron memory: the Java tools register host memory only";
    private static final String MLU = "Cambricon MLU memory: the Java tools register host memory only";
    private static final String OPENCL = "OpenCL device memory: the Java tools register host memory only";
    private static final String DC = "mlx5 DC streams (mlx5dv's Dynamically Connected transport), which the Java tools"
            + " do not speak";
    private static final String CRYPTO = "mlx5 crypto offload (AES-XTS through mlx5dv), a ConnectX feature the Java"
            + " tools do not drive";
    private static final String TPH = "PCIe TLP processing hints (ibv_reg_mr_ex), which the Java tools do not set";

    private static final List<Flag> FLAGS = List.of(
            // the test and its transport
            implemented("-p", "--port", VALUE, ALL, ALL),
            implemented("-d", "--ib-dev", VALUE, ALL, ALL),
            implemented("-i", "--ib-port", VALUE, ALL, ALL),
            implemented("-m", "--mtu", VALUE, ALL, ALL),
            implemented("-s", "--size", VALUE, ALL, ALL),
            implemented("-n", "--iters", VALUE, ALL, ALL),
            implemented("-t", "--tx-depth", VALUE, ALL, BW,
                    "the Java latency tools post one request at a time (-t 1)"),
            implemented("-x", "--gid-index", VALUE, ALL, ALL),
            implemented("-a", "--all", NONE, SIX, SIX),
            implemented("-F", "--CPU-freq", NONE, ALL, ALL),
            implemented("-c", "--connection", VALUE, ALL, ALL),
            implemented("-q", "--qp", VALUE, BW, BW, "several queue pairs: perftest's bandwidth tools only"),
            implemented("-e", "--events", NONE, NOT_WRITE, NOT_WRITE,
                    "events are not available on the WRITE tools (perftest refuses them too)"),
            implemented("-I", "--inline_size", VALUE, WRITE_SEND, WRITE_SEND,
                    "RDMA READ and atomics carry no payload to inline (perftest refuses it too)"),
            implemented("-R", "--rdma_cm", NONE, ALL, ALL),
            implemented("-r", "--rx-depth", VALUE, SEND, SEND, "only a SEND test posts receives"),
            implemented("-b", "--bidirectional", NONE, BW, BW),
            implemented("-Q", "--cq-mod", VALUE, BW, BW, "the latency tools signal every request"),
            implemented("-H", "--report-histogrm", NONE, LAT, LAT,
                    "a latency histogram: the latency tools only (perftest refuses it too)"),
            implemented("-l", "--post_list", VALUE, BW, BW, "post lists: the bandwidth tools only"),
            implemented("-D", "--duration", VALUE, ALL, ALL),
            implemented(null, "--report_gbits", NONE, ALL, ALL),
            implemented("-u", "--qp-timeout", VALUE, ALL, ALL),
            implemented("-S", "--sl", VALUE, ALL, ALL),
            implemented("-X", "--vector", VALUE, NOT_WRITE, NOT_WRITE,
                    "events are not available on the WRITE tools (perftest refuses them too)"),
            implemented("-o", "--outs", VALUE, READ_ATOMIC, READ_ATOMIC, "reads outstanding: the READ and atomic tools"
                    + " only (perftest refuses it too)"),
            implemented("-g", "--mcg", NONE, SEND, SEND, "multicast: the SEND tools only"),
            implemented("-M", "--MGID", VALUE, SEND, SEND, "a multicast group: the SEND tools only"),
            implemented("-z", "--comm_rdma_cm", NONE, ALL, ALL),
            implemented("-T", "--tos", VALUE, ALL, ALL),
            implemented("-N", "--noPeak", NONE, BW, BW),
            implemented("-C", "--report-cycles", NONE, LAT, LAT, "a report in cycles: the latency tools only (perftest refuses it"
                    + " too)").noted("the Java tools time with System.nanoTime: the cycles are those nanoseconds"
                    + " converted at the CPU's MHz, read from /proc/cpuinfo as perftest's get_cpu_mhz reads it; -D's"
                    + " report stays in µs, as perftest's"),
            implemented("-U", "--report-unsorted", NONE, LAT, LAT),
            implemented("-A", "--atomic_type", VALUE, ATOMIC, ATOMIC, "the atomic operation: the atomic tools only"
                    + " (perftest refuses it too)"),
            implemented("-O", "--dualport", NONE, BW, BW, "Dual-port mode only supports BW tests").noted("the first"
                    + " half of the queue pairs on -i's port, the second on port 2, -q each; a device without an"
                    + " active port 2 is refused in perftest's words before any peer waits"),
            implemented(null, "--recv_post_list", VALUE, BW, set(Tool.SEND_BW), "only ib_send_bw posts receives"
                    + " (perftest's RDMA tools post none, so it changes nothing there)"),
            implemented("-f", "--margin", VALUE, ALL, ALL),
            implemented("-w", "--limit_bw", VALUE, BW, BW),
            implemented("-y", "--limit_msgrate", VALUE, BW, BW),
            implemented("-W", "--report-counters", VALUE, ALL, ALL),
            implemented(null, "--force-link", VALUE, ALL, ALL),
            implemented(null, "--run_infinitely", NONE, BW, BW),
            implemented(null, "--use-srq", NONE, SEND, SEND, "a shared receive queue: the SEND tools only (perftest"
                    + " refuses it too)"),
            implemented(null, "--report-both", NONE, BW, BW),
            implemented(null, "--reversed", NONE, BW, BW),
            implemented(null, "--pkey_index", VALUE, ALL, ALL),
            implemented(null, "--burst_size", VALUE, BW, BW, RATE_LIMIT),
            implemented(null, "--rate_limit", VALUE, BW, BW, RATE_LIMIT),
            implemented(null, "--rate_limit_type", VALUE, BW, BW, RATE_LIMIT),
            implemented(null, "--rate_units", VALUE, BW, BW, RATE_LIMIT),
            implemented(null, "--output", VALUE, ALL, ALL),
            implemented(null, "--cpu_util", NONE, ALL, ALL),
            implemented(null, "--out_json", NONE, ALL, ALL),
            implemented(null, "--out_json_file", VALUE, ALL, ALL),
            implemented(null, "--latency_gap", VALUE, LAT, LAT),
            implemented(null, "--flow_label", VALUE, ALL, ALL),
            implemented(null, "--retry_count", VALUE, ALL, ALL),
            refused(null, "--dont_xchg_versions", NONE, ALL, "it skips the version, cycle buffer and MTU exchanges,"
                    + " and perftest then takes its peer for a release before 5.1 (whose report exchange the Java"
                    + " tools do not speak; 26.04's ib_read_bw and atomic tools stop: \"not compatible with versions"
                    + " older than 5.70\")"),
            implemented(null, "--payload_file_path", VALUE, NOT_WRITE_LAT, NOT_WRITE_LAT, "ib_write_lat zeroes its buffers (as perftest)"),
            implemented(null, "--mmap", VALUE, ALL, ALL),
            implemented(null, "--mmap-offset", VALUE, ALL, ALL),
            implemented(null, "--ipv6", NONE, ALL, ALL),
            implemented(null, "--ipv6-addr", NONE, ALL, ALL),
            implemented(null, "--bind_source_ip", VALUE, ALL, ALL),
            implemented(null, "--report-per-port", NONE, BW, BW).noted("with -O and -D only, as perftest"),
            implemented(null, "--odp", NONE, ALL, ALL).noted("refused before any peer waits, in perftest's words, on a"
                    + " device whose ibv_query_device_ex reports no on-demand paging, or on RC none for the test's"
                    + " operations; rxe on Linux 6.1 has none"),
            implemented(null, "--use_hugepages", NONE, ALL, ALL),
            accepted(null, "--use_old_post_send", NONE, ALL, "the Java tools always post with ibv_post_send"),
            implemented(null, "--mr_per_qp", NONE, BW, BW),
            implemented(null, "--dlid", VALUE, ALL, ALL),
            implemented(null, "--tclass", VALUE, ALL, ALL),
            implemented(null, "--wait_destroy", VALUE, BW, BW),
            accepted(null, "--perform_warm_up", NONE, ALL, "only perftest's ib_atomic_bw acts on it; the"
                    + " Java tools always run unmeasured iterations first (--warmup, as many as -n by default)"),
            implemented(null, "--use-null-mr", NONE, WRITE_READ, WRITE_READ, "perftest supports using a null memory"
                    + " region with write/read verbs only").noted("perftest 24.01 and later; 4.5 lacks it. A device without"
                    + " null regions (rxe, PVRDMA: only mlx5 has them) is refused in perftest's words, \"Couldn't create"
                    + " null MR\", with the reason, when the resources are made (after the connection, as perftest)"),
            implemented(null, "--write_with_imm", NONE, WRITE, WRITE, "RDMA WRITE with immediate: the WRITE tools only"
                    + " (perftest refuses it too)").noted("perftest 25.01 and later; 4.5 lacks it"),
            implemented(null, "--send_with_imm", NONE, SEND, SEND).noted("perftest 26 and later; 4.5 and 25.01 lack it"),
            implemented(null, "--connectionless", NONE, set(Tool.SEND_BW), set(Tool.SEND_BW), "a multicast receiver with"
                    + " no peer: ib_send_bw's server only").noted("perftest 25.01 and later; 4.5 lacks it"),
            implemented(null, "--cqe_poll", VALUE, ALL, ALL),
            accepted(null, "--disable_dynamic_polling", NONE, BW, "the Java tools never adapt their poll batch (16, or"
                    + " --cqe_poll's): what the option asks of perftest 26"),
            implemented(null, "--data_validation", NONE, BW, WRITE_READ_BW, "perftest checks the bytes of WRITE and"
                    + " READ tests only").noted("perftest 26.04 and later on both sides (4.5 and 25.01 lack it): the"
                    + " same rings, markers, fetch-and-adds and patterns on the wire; the validators are Java threads"
                    + " comparing whole chunks; a failed validation exits 1 (perftest exits 0)"),
            implemented(null, "--data_validation_debug", NONE, BW, WRITE_READ_BW, "perftest checks the bytes of WRITE"
                    + " and READ tests only").noted("the layout's lines and each validator's counts; not perftest's"
                    + " internal trace of its threads"),
            // vendors' and builds' options
            refused(null, "--log_dci_streams", VALUE, ALL, DC),
            refused(null, "--log_active_dci_streams", VALUE, ALL, DC),
            refused(null, "--aes_xts", NONE, ALL, CRYPTO),
            refused(null, "--encrypt_on_tx", NONE, ALL, CRYPTO),
            refused(null, "--sig_before", NONE, ALL, CRYPTO),
            refused(null, "--aes_block_size", VALUE, ALL, CRYPTO),
            refused(null, "--data_enc_keys_number", VALUE, ALL, CRYPTO),
            refused(null, "--kek_path", VALUE, ALL, CRYPTO),
            refused(null, "--credentials_path", VALUE, ALL, CRYPTO),
            refused(null, "--data_enc_key_app_path", VALUE, ALL, CRYPTO),
            refused(null, "--sig_offload", NONE, ALL, "mlx5 signature offload (mlx5dv), which perftest 26.04's own"
                    + " build leaves out"),
            refused(null, "--no_enhanced_reorder", NONE, ALL, "mlx5 out-of-order receive requests (mlx5dv), which"
                    + " the Java tools do not enable, so there is nothing to turn off"),
            refused(null, "--no_ddp", NONE, ALL, "perftest 25.01's name of --no_enhanced_reorder: mlx5 out-of-order"
                    + " receive requests (mlx5dv), which the Java tools do not enable"),
            refused(null, "--use_ooo", NONE, ALL, "out-of-order data placement (IBV_OOO_RW_DATA_PLACEMENT), a"
                    + " ConnectX queue pair attribute the Java tools do not set"),
            accepted(null, "--disable_pcie_relaxed", NONE, BW, "the Java tools register no relaxed-ordering memory"),
            refused(null, "--no_lock", NONE, ALL, "thread domains (ibv_alloc_td), which the Java tools do not use"),
            refused(null, "--congest_type", VALUE, ALL, "HiSilicon hns congestion control (hnsdv)"),
            refused(null, "--unsolicited_write", NONE, WRITE, "EFA unsolicited write-with-immediate receive (efadv)"),
            refused(null, "--tph_mem", VALUE, ALL, TPH),
            refused(null, "--cpu_id", VALUE, ALL, TPH),
            refused(null, "--ph", VALUE, ALL, TPH),
            refused(null, "--use_cuda", VALUE, ALL, CUDA),
            refused(null, "--use_cuda_bus_id", VALUE, ALL, CUDA),
            refused(null, "--cuda_mem_type", VALUE, ALL, CUDA),
            refused(null, "--use_cuda_dmabuf", NONE, ALL, CUDA),
            refused(null, "--use_cuda_pcie_mapping", NONE, ALL, CUDA),
            refused(null, "--use_data_direct", NONE, ALL, CUDA + " (mlx5 Data Direct)"),
            refused(null, "--gpu_touch", VALUE, ALL, CUDA),
            refused(null, "--use_rocm", VALUE, ALL, ROCM),
            refused(null, "--use_rocm_dmabuf", NONE, ALL, ROCM),
            refused(null, "--use_neuron", VALUE, ALL, NEURON),
            refused(null, "--use_neuron_dmabuf", NONE, ALL, NEURON),
            refused(null, "--use_hl", VALUE, ALL, "Habana Gaudi memory: the Java tools register host memory only"),
            refused(null, "--use_mlu", VALUE, ALL, MLU),
            refused(null, "--use_mlu_dmabuf", NONE, ALL, MLU),
            refused(null, "--use_opencl", VALUE, ALL, OPENCL),
            refused(null, "--opencl_platform_id", VALUE, ALL, OPENCL),
            refused(null, "--use_ib_dm_dmabuf", VALUE, NOT_WRITE_LAT, "on-device memory exported as dma-buf, which"
                    + " the Java tools do not allocate"),
            // Raw Ethernet
            refused("-L", "--hop_limit", VALUE, ALL, RAW_ETHERNET),
            refused(null, "--typical_pkt_size", VALUE, BW, RAW_ETHERNET),
            refused("-B", "--source_mac", VALUE, ALL, RAW_ETHERNET),
            refused("-E", "--dest_mac", VALUE, ALL, RAW_ETHERNET),
            refused("-J", "--dest_ip", VALUE, ALL, RAW_ETHERNET),
            refused("-j", "--source_ip", VALUE, ALL, RAW_ETHERNET + " (perftest 4.5 also spelled --bind_source_ip"
                    + " so, but that spelling always meant this one)"),
            refused("-K", "--dest_port", VALUE, ALL, RAW_ETHERNET),
            refused("-k", "--source_port", VALUE, ALL, RAW_ETHERNET),
            refused("-Y", "--ethertype", VALUE, ALL, RAW_ETHERNET),
            refused("-Z", "--server", NONE, ALL, RAW_ETHERNET),
            refused("-P", "--client", NONE, ALL, RAW_ETHERNET),
            refused("-v", "--mac_fwd", NONE, ALL, RAW_ETHERNET),
            refused("-G", "--use_rss", NONE, ALL, RAW_ETHERNET),
            refused(null, "--remote_mac", VALUE, ALL, RAW_ETHERNET),
            refused(null, "--local_mac", VALUE, ALL, RAW_ETHERNET),
            refused(null, "--remote_ip", VALUE, ALL, RAW_ETHERNET),
            refused(null, "--local_ip", VALUE, ALL, RAW_ETHERNET),
            refused(null, "--remote_port", VALUE, ALL, RAW_ETHERNET),
            refused(null, "--local_port", VALUE, ALL, RAW_ETHERNET),
            refused(null, "--tcp", NONE, ALL, RAW_ETHERNET),
            refused(null, "--promiscuous", NONE, ALL, RAW_ETHERNET),
            refused(null, "--raw_mcast", NONE, ALL, RAW_ETHERNET),
            refused(null, "--flows", VALUE, ALL, RAW_ETHERNET),
            refused(null, "--flows_burst", VALUE, ALL, RAW_ETHERNET),
            refused(null, "--reply_every", VALUE, ALL, RAW_ETHERNET),
            refused(null, "--vlan_en", NONE, ALL, RAW_ETHERNET),
            refused(null, "--vlan_pcp", VALUE, ALL, RAW_ETHERNET),
            refused(null, "--raw_ipv6", NONE, ALL, RAW_ETHERNET),
            refused(null, "--sniffer", NONE, ALL, RAW_ETHERNET));

    private PerftestFlags() {
    }

    private static Set<Tool> set(Tool first, Tool... rest) {
        return Collections.unmodifiableSet(EnumSet.of(first, rest));
    }

    private static Flag implemented(String shortName, String longName, boolean takesValue, Set<Tool> perftestTools,
            Set<Tool> javaTools) {
        return implemented(shortName, longName, takesValue, perftestTools, javaTools, "");
    }

    private static Flag implemented(String shortName, String longName, boolean takesValue, Set<Tool> perftestTools,
            Set<Tool> javaTools, String elsewhere) {
        return new Flag(shortName, longName, takesValue, perftestTools, javaTools, State.IMPLEMENTED, elsewhere, "");
    }

    private static Flag refused(String shortName, String longName, boolean takesValue, Set<Tool> perftestTools,
            String reason) {
        return new Flag(shortName, longName, takesValue, perftestTools, NONE_OF_THEM, State.REFUSED, reason, "");
    }

    private static Flag accepted(String shortName, String longName, boolean takesValue, Set<Tool> perftestTools,
            String reason) {
        return new Flag(shortName, longName, takesValue, perftestTools, NONE_OF_THEM, State.ACCEPTED, reason, "");
    }

    /** Every option, in perftest's usage order within each group. */
    static List<Flag> all() {
        return FLAGS;
    }

    /** The option named {@code name} (short or long), or null. */
    static Flag named(String name) {
        for (Flag flag : FLAGS) {
            if (name.equals(flag.longName()) || name.equals(flag.shortName())) {
                return flag;
            }
        }
        return null;
    }

    // ------------------------------------------------------------------------------------------- the table

    /** The option table of docs/guide/tools.md, one row per option. */
    static String markdownTable() {
        StringBuilder table = new StringBuilder();
        table.append("| option | C perftest's tools | the Java tools |\n|---|---|---|\n");
        for (Flag flag : FLAGS) {
            table.append("| `").append(flag.display().replace(", ", "`, `")).append("` | ")
                    .append(describe(flag.perftestTools())).append(" | ").append(javaColumn(flag)).append(" |\n");
        }
        return table.toString();
    }

    private static String javaColumn(Flag flag) {
        return switch (flag.state()) {
            case ACCEPTED -> "accepted, no effect: " + flag.reason();
            case REFUSED -> "refused: " + flag.reason();
            case IMPLEMENTED -> {
                // "yes": on every tool C perftest has it on
                Set<Tool> missing = EnumSet.copyOf(flag.perftestTools());
                missing.removeAll(flag.javaTools());
                String where = flag.javaTools().containsAll(flag.perftestTools()) ? "yes" : describe(flag.javaTools());
                String column = missing.isEmpty() ? where
                        : where + "; refused on " + describe(missing) + ": " + flag.reason();
                yield flag.note().isEmpty() ? column : column + " (" + flag.note() + ")";
            }
        };
    }

    /** "all", "all but ib_write_lat", or the tools' names. */
    static String describe(Set<Tool> tools) {
        if (tools.equals(ALL)) {
            return "all";
        }
        if (tools.size() == ALL.size() - 1) {
            Set<Tool> left = EnumSet.allOf(Tool.class);
            left.removeAll(tools);
            return "all but " + left.iterator().next().command;
        }
        List<String> names = new ArrayList<>();
        for (Tool tool : tools) {
            names.add(tool.command);
        }
        return names.stream().collect(Collectors.joining(", "));
    }
}
