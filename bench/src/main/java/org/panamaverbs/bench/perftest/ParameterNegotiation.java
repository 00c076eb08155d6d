package org.panamaverbs.bench.perftest;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.ToLongFunction;

import org.panamaverbs.verbs.DeviceAttributes;

/**
 * perftest 26.01's parameter negotiation ({@code negotiate_params} in {@code perftest_communication.c}): right after
 * the MTU exchange and before the queue pairs exist, both sides exchange one {@code struct
 * perftest_parameters_negotiate} in the usual order (the client writes first) and each refuses a peer whose test
 * differs; the peer's {@code ibv_device_attr} lowers this side's outstanding reads to the peer's
 * {@code max_qp_rd_atom}. perftest 26.04 negotiates only with a peer announcing 6.28 or later and added
 * {@code data_validation} to the record; where it sits (offset 76) was padding in 26.01, so both records have the
 * same size.
 *
 * <p>The record, x86_64 and aarch64 alike (docs/perftest-protocol.md): seven 4-byte fields (test_method,
 * connection_type, verb, tst, atomicType, test_type, report_fmt), 4 bytes of padding, size and iters (8 each), seven
 * 4-byte fields (aes_xts, num_of_qps, duration, use_rdma_cm, use_write_with_imm, no_enhanced_reorder, sig_offload),
 * data_validation (26.04; padding in 26.01), at 80 the 232-byte {@code struct ibv_device_attr} and, in a perftest
 * built with mlx5 direct verbs (every distribution's build), {@code mlx5dv_comp_mask} (8) at 312: 320 bytes, or
 * 312 without. The integers are in network order, the device attributes in the sender's own order (perftest does not
 * convert them).
 */
final class ParameterNegotiation {
    /** Which release's record: the two differ in {@code data_validation} only. */
    enum Layout {
        PERFTEST_26_01("26.01"), PERFTEST_26_04("26.04");

        final String release;

        Layout(String release) {
            this.release = release;
        }
    }

    /** The record of a perftest built with mlx5 direct verbs ({@code HAVE_MLX5DV}), as distributions build it. */
    static final int RECORD_SIZE = 320;
    /** The record of a perftest built without mlx5 direct verbs: no {@code mlx5dv_comp_mask}. */
    static final int RECORD_SIZE_WITHOUT_MLX5DV = 312;

    private static final int SIZE_OFFSET = 32;
    private static final int ITERS_OFFSET = 40;
    private static final int SECOND_INTS_OFFSET = 48;
    private static final int DATA_VALIDATION_OFFSET = 76;
    private static final int ATTR_OFFSET = 80;
    /** {@code offsetof(struct ibv_device_attr, max_qp_rd_atom)}. */
    private static final int MAX_QP_RD_ATOM_OFFSET = ATTR_OFFSET + 144;
    private static final int MLX5DV_COMP_MASK_OFFSET = 312;

    // perftest's enum values (perftest_parameters.h)
    static final int RUN_REGULAR = 0;
    static final int RUN_ALL = 1;
    static final int RUN_INFINITELY = 2;
    static final int RC = 0;
    static final int UD = 2;
    static final int SEND = 0;
    static final int SEND_IMM = 1;
    static final int WRITE = 2;
    static final int WRITE_IMM = 3;
    static final int READ = 4;
    static final int ATOMIC = 5;
    /** {@code CMP_AND_SWAP} and {@code FETCH_AND_ADD}: the atomic types, in perftest's order. */
    static final int CMP_AND_SWAP = 0;
    static final int FETCH_AND_ADD = 1;
    static final int LAT = 0;
    static final int BW = 1;
    static final int ITERATIONS = 0;
    static final int DURATION = 1;
    static final int GBS = 0;
    static final int MBS = 1;
    /** {@code DEF_DURATION}: what perftest sends as the duration when {@code -D} is not given. */
    static final int DEFAULT_DURATION = 5;

    /**
     * The negotiated fields of one side, as perftest fills them in; the device attributes travel beside them.
     *
     * @param testMethod         {@code RUN_REGULAR}, {@code RUN_ALL} ({@code -a}) or {@code RUN_INFINITELY}
     * @param connectionType     RC, UC, UD, RawEth, XRC, DC or SRD (0-6)
     * @param verb               SEND, SEND_IMM, WRITE, WRITE_IMM, READ or ATOMIC (0-5)
     * @param tst                LAT, BW, LAT_BY_BW or FS_RATE (0-3)
     * @param atomicType         CMP_AND_SWAP or FETCH_AND_ADD (0 unless an atomic test)
     * @param testType           ITERATIONS or DURATION ({@code -D})
     * @param reportFmt          GBS ({@code --report_gbits}) or MBS
     * @param size               the message size ({@code -s}; {@code -a}: 8 MiB, or the MTU for UD)
     * @param iterations         {@code -n} (0 with {@code -D})
     * @param aesXts             {@code --aes_xts} (0/1)
     * @param queuePairs         {@code -q}
     * @param duration           {@code -D} seconds (5 when not given)
     * @param rdmaCm             {@code -R} or {@code -z} (0/1)
     * @param writeWithImm       {@code --write_with_imm} (0/1)
     * @param noEnhancedReorder  {@code --no_enhanced_reorder} (0/1)
     * @param sigOffload         {@code --sig_offload} (0/1)
     * @param dataValidation     {@code --data_validation} (0/1; 26.04 only)
     * @param maxQpRdAtom        the sender's {@code ibv_device_attr.max_qp_rd_atom}
     */
    record Parameters(int testMethod, int connectionType, int verb, int tst, int atomicType, int testType,
            int reportFmt, long size, long iterations, int aesXts, int queuePairs, int duration, int rdmaCm,
            int writeWithImm, int noEnhancedReorder, int sigOffload, int dataValidation, int maxQpRdAtom) {
    }

    /** One compared field: its C name, how to read it, its values' names (null: a number) and what to tell the user. */
    private record Field(String name, ToLongFunction<Parameters> value, List<String> names, String flag, boolean layout2604) {
        String show(long v) {
            return names == null ? Long.toString(v) : v >= 0 && v < names.size() ? names.get((int) v) : Long.toString(v);
        }
    }

    private static final List<String> OFF_ON = List.of("OFF", "ON");
    /** negotiate_params' compare list, in its order: the first mismatch is the one perftest reports. */
    private static final List<Field> FIELDS = List.of(
            new Field("test_method", Parameters::testMethod, List.of("RUN_REGULAR", "RUN_ALL", "RUN_INFINITELY"),
                    "-a (or --run_infinitely, which the Java tools do not implement)", false),
            new Field("connection_type", Parameters::connectionType, List.of("RC", "UC", "UD", "RawEth", "XRC", "DC", "SRD"),
                    "-c (the Java tools run RC, and UD for the send tools)", false),
            new Field("verb", Parameters::verb, List.of("SEND", "SEND_IMM", "WRITE", "WRITE_IMM", "READ", "ATOMIC"),
                    "the tool: both sides must run the same test", false),
            new Field("tst", Parameters::tst, List.of("LAT", "BW", "LAT_BY_BW", "FS_RATE"),
                    "the tool: a latency tool against a bandwidth tool", false),
            new Field("atomicType", Parameters::atomicType, List.of("CMP_AND_SWAP", "FETCH_AND_ADD"),
                    "-A: both sides must run the same atomic operation", false),
            new Field("test_type", Parameters::testType, List.of("ITERATIONS", "DURATION"), "-D on one side only", false),
            new Field("report_fmt", Parameters::reportFmt, List.of("GBS", "MBS"), "--report_gbits on one side only", false),
            new Field("size", Parameters::size, null, "-s (or -a on one side only)", false),
            new Field("iters", Parameters::iterations, null, "-n", false),
            new Field("aes_xts", Parameters::aesXts, OFF_ON, "--aes_xts, which the Java tools do not implement", false),
            new Field("num_of_qps", Parameters::queuePairs, null, "-q", false),
            new Field("duration", Parameters::duration, null, "-D", false),
            new Field("use_rdma_cm", Parameters::rdmaCm, OFF_ON, "-R or -z on one side only", false),
            new Field("use_write_with_imm", Parameters::writeWithImm, OFF_ON,
                    "--write_with_imm, which the Java tools do not implement", false),
            new Field("no_enhanced_reorder", Parameters::noEnhancedReorder, OFF_ON,
                    "--no_enhanced_reorder, which the Java tools do not take: run the peer without it", false),
            new Field("sig_offload", Parameters::sigOffload, OFF_ON, "--sig_offload, which the Java tools do not implement", false),
            new Field("data_validation", Parameters::dataValidation, OFF_ON,
                    "--data_validation on one side only (both must give it)", true));

    private ParameterNegotiation() {
    }

    /**
     * The record this side sends: {@code recordSize} bytes ({@link #RECORD_SIZE} or
     * {@link #RECORD_SIZE_WITHOUT_MLX5DV}) in {@code layout}, with {@code attributes} as its {@code ibv_device_attr}.
     * The fields of {@code ibv_device_attr} the library does not report (the EE, RDD, MW, raw, multicast and FMR
     * limits, {@code max_res_rd_atom}, {@code local_ca_ack_delay}) are sent as 0: perftest reads only
     * {@code max_qp_rd_atom}. {@code mlx5dv_comp_mask} is 0, as perftest sends it from a device that is not mlx5.
     */
    static byte[] encode(Parameters p, DeviceAttributes attributes, Layout layout, int recordSize) {
        ByteBuffer b = ByteBuffer.allocate(recordSize); // big-endian: perftest's hton_int / hton_64
        b.putInt(p.testMethod()).putInt(p.connectionType()).putInt(p.verb()).putInt(p.tst()).putInt(p.atomicType())
                .putInt(p.testType()).putInt(p.reportFmt());
        b.putLong(SIZE_OFFSET, p.size()).putLong(ITERS_OFFSET, p.iterations());
        b.position(SECOND_INTS_OFFSET);
        b.putInt(p.aesXts()).putInt(p.queuePairs()).putInt(p.duration()).putInt(p.rdmaCm()).putInt(p.writeWithImm())
                .putInt(p.noEnhancedReorder()).putInt(p.sigOffload());
        if (layout == Layout.PERFTEST_26_04) {
            b.putInt(DATA_VALIDATION_OFFSET, p.dataValidation());
        }
        deviceAttributes(b.slice(ATTR_OFFSET, MLX5DV_COMP_MASK_OFFSET - ATTR_OFFSET), attributes);
        return b.array(); // mlx5dv_comp_mask, when there, stays 0
    }

    /** {@code struct ibv_device_attr} as x86_64 and aarch64 lay it out, in this machine's byte order. */
    private static void deviceAttributes(ByteBuffer attr, DeviceAttributes a) {
        byte[] firmware = a.firmwareVersion().getBytes(StandardCharsets.US_ASCII);
        attr.put(0, firmware, 0, Math.min(firmware.length, 63)); // char fw_ver[64], NUL-terminated
        attr.putLong(64, a.nodeGuid()).putLong(72, a.systemImageGuid()); // __be64: network order, as ibv_query_device
        attr.order(ByteOrder.nativeOrder());
        attr.putLong(80, a.maxMrSize()).putLong(88, a.pageSizeCap()).putInt(96, a.vendorId())
                .putInt(100, a.vendorPartId()).putInt(104, a.hardwareVersion()).putInt(108, a.maxQp())
                .putInt(112, a.maxQpWr()).putInt(116, a.deviceCapFlags()).putInt(120, a.maxSge())
                .putInt(124, a.maxSgeRd()).putInt(128, a.maxCq()).putInt(132, a.maxCqe()).putInt(136, a.maxMr())
                .putInt(140, a.maxPd()).putInt(144, a.maxQpRdAtom()).putInt(156, a.maxQpInitRdAtom())
                .putInt(164, Math.max(0, a.atomicCapability().code())).putInt(188, a.maxMcastGrp())
                .putInt(192, a.maxMcastQpAttach()).putInt(200, a.maxAh()).putInt(212, a.maxSrq())
                .putInt(216, a.maxSrqWr()).putInt(220, a.maxSrqSge()).putShort(224, (short) a.maxPkeys())
                .put(227, (byte) a.physicalPortCount());
    }

    /**
     * The peer's record, checked field by field so that garbage is refused, not compared: every enumerated field must
     * be one of its values, the queue pairs at least 1, the duration and {@code max_qp_rd_atom} not negative.
     *
     * @param release names the peer in the error
     * @throws PerftestException if {@code wire} is not a record of {@code layout}
     */
    static Parameters decode(byte[] wire, Layout layout, String release) {
        if (wire.length != RECORD_SIZE && wire.length != RECORD_SIZE_WITHOUT_MLX5DV) {
            throw new PerftestException("the parameter negotiation record of " + release + " is " + wire.length
                    + " bytes, not " + RECORD_SIZE_WITHOUT_MLX5DV + " or " + RECORD_SIZE);
        }
        ByteBuffer b = ByteBuffer.wrap(wire);
        int[] first = new int[7];
        for (int i = 0; i < first.length; i++) {
            first[i] = b.getInt(i * 4);
        }
        int[] second = new int[7];
        for (int i = 0; i < second.length; i++) {
            second[i] = b.getInt(SECOND_INTS_OFFSET + i * 4);
        }
        int dataValidation = layout == Layout.PERFTEST_26_04 ? b.getInt(DATA_VALIDATION_OFFSET) : 0;
        long size = b.getLong(SIZE_OFFSET);
        long iterations = b.getLong(ITERS_OFFSET);
        int maxQpRdAtom = b.order(ByteOrder.nativeOrder()).getInt(MAX_QP_RD_ATOM_OFFSET); // the sender's order
        Parameters p = new Parameters(first[0], first[1], first[2], first[3], first[4], first[5], first[6], size,
                iterations, second[0], second[1], second[2], second[3], second[4], second[5], second[6], dataValidation,
                maxQpRdAtom);
        for (Field f : FIELDS) {
            long v = f.value().applyAsLong(p);
            if (f.names() != null && (v < 0 || v >= f.names().size())) {
                throw malformed(release, f.name() + " is " + v + ", not one of " + String.join(", ", f.names()));
            }
        }
        if (p.queuePairs() < 1 || p.duration() < 0 || p.maxQpRdAtom() < 0) {
            throw malformed(release, "num_of_qps " + p.queuePairs() + ", duration " + p.duration() + ", max_qp_rd_atom "
                    + p.maxQpRdAtom());
        }
        return p;
    }

    private static PerftestException malformed(String release, String why) {
        return new PerftestException("the parameter negotiation record of " + release + " is malformed (" + why
                + "): is the peer out of step, or not perftest?");
    }

    /**
     * Compares as {@code negotiate_params} does, in its order, and refuses the first difference as perftest would (the
     * peer refuses it too, printing " NAME mismatch: local=..., remote=..." from its side); the message names the
     * peer's release, what it wants and the flag that differs.
     */
    static void check(Parameters mine, Parameters theirs, Layout layout, String release) {
        for (Field f : FIELDS) {
            if (f.layout2604() && layout != Layout.PERFTEST_26_04) {
                continue;
            }
            long local = f.value().applyAsLong(mine);
            long remote = f.value().applyAsLong(theirs);
            if (local != remote) {
                throw new PerftestException(release + " runs " + f.name() + "=" + f.show(remote) + " and this side "
                        + f.show(local) + " (" + f.name() + " mismatch, which perftest " + layout.release
                        + " refuses too): " + f.flag());
            }
        }
    }

    /**
     * {@code compare_ibv_device}: outstanding reads above the peer's {@code max_qp_rd_atom} come down to it, with
     * perftest's note on {@code out}.
     */
    static int outstandingReads(int mine, Parameters theirs, PrintStream out) {
        if (mine > theirs.maxQpRdAtom()) {
            out.println(" out_reads is greater than remote max_qp_rd_atom, using remote max_qp_rd_atom");
            return theirs.maxQpRdAtom();
        }
        return mine;
    }
}
