package org.panamaverbs.bench.perftest;

import org.panamaverbs.verbs.Gid;

import picocli.CommandLine.Option;

/**
 * perftest's multicast options of the SEND tools, {@code -g/--mcg} and {@code -M/--MGID} ({@code send_bw.c},
 * {@code send_lat.c}, {@code multicast_resources.c}): over UD, the receiving side attaches its queue pair to a group
 * ({@code ibv_attach_mcast}) and sends the group's GID, LID 0 and QPN 0xFFFFFF as its address, so the peer's
 * datagrams go to the group. {@code ib_send_bw}'s server receives; in {@code ib_send_lat} both sides do, the client
 * on the next group (the default group's last byte plus one) unless {@code -M} names one. RoCE only: on InfiniBand
 * perftest first asks the subnet manager to create the group (an SA join through libibumad), which the Java tools
 * do not send.
 */
final class Multicast {
    /** The address record's QPN for a group: the multicast QPN every member receives on. */
    static final int GROUP_QPN = 0xffffff;
    /** perftest's {@code MCG_GID}: ff01:0:2:c985::, an interface-local IPv6 group. */
    private static final byte[] DEFAULT_GROUP = {(byte) 255, 1, 0, 0, 0, 2, (byte) 201, (byte) 133, 0, 0, 0, 0, 0, 0,
        0, 0};

    @Option(names = {"-g", "--mcg"}, description = "send to a multicast group over UD: the receiving side's queue pair"
            + " joins it (RoCE; as perftest)")
    boolean enabled;

    @Option(names = {"-M", "--MGID"}, paramLabel = "MGID", description = "with -g, the group's GID in perftest's form:"
            + " 16 numbers separated by ':' (for example 255:1:0:0:0:2:201:133:0:0:0:0:0:0:0:7); default: perftest's"
            + " 255:1:0:0:0:2:201:133:0:0:0:0:0:0:0:0")
    String mgid;

    /**
     * The group this side attaches to: {@code -M}'s, or perftest's default, whose last byte a client raises by one
     * (perftest's {@code set_multicast_gid}; only {@code ib_send_lat}'s client attaches).
     */
    Gid group(boolean client) {
        byte[] raw = mgid != null ? parse(mgid) : DEFAULT_GROUP.clone();
        if (client && mgid == null) {
            raw[15]++;
        }
        return Gid.of(raw);
    }

    /**
     * perftest's parser on {@code -g} (UD whatever {@code -c} says, no {@code -b}, one queue pair, no {@code -R}, and
     * the combinations the Java tools refuse), then the options' {@code multicast} and, on a side that receives
     * ({@code receives}), the group its queue pair attaches to.
     */
    void applyTo(PerftestOptions o, String tool, boolean receives) {
        validate(o, tool);
        o.multicast = enabled;
        o.multicastGroup = enabled && receives ? group(o.isClient()) : null;
    }

    private void validate(PerftestOptions o, String tool) {
        if (mgid != null) {
            parse(mgid); // a malformed -M is refused even without -g, before any peer waits
        }
        if (!enabled) {
            return;
        }
        o.connection = "UD";
        if (o.rdmaCm) {
            throw new PerftestException("Perftest still doesn't support Multicast with rdma_cm (-g with -R; as"
                    + " perftest)");
        }
        if (o.bidirectional) {
            throw new PerftestException("Bidirectional mode not supported in multicast (-g with -b; as perftest)");
        }
        if (o.queuePairs > 1) {
            throw new PerftestException("Only 1 QP supported in multicast (-g with -q " + o.queuePairs
                    + "; as perftest)");
        }
        PerftestOptions.refuse(tool, o.reversed, "-g with --reversed (perftest attaches the server's queue pair, which"
                + " --reversed makes the sender)");
    }

    /** perftest's {@code -M} form: 16 numbers, each as C's {@code strtoll(s, NULL, 0)} reads it (0x.. hex, 0.. octal). */
    static byte[] parse(String text) {
        String[] parts = text.split(":", -1);
        if (parts.length != 16) {
            throw malformed(text, parts.length + " numbers");
        }
        byte[] raw = new byte[16];
        for (int i = 0; i < 16; i++) {
            String p = parts[i].strip();
            int value;
            try {
                value = p.startsWith("0x") || p.startsWith("0X") ? Integer.parseInt(p.substring(2), 16)
                        : p.length() > 1 && p.startsWith("0") ? Integer.parseInt(p.substring(1), 8) : Integer.parseInt(p);
            } catch (NumberFormatException e) {
                throw malformed(text, "'" + p + "' at position " + (i + 1));
            }
            if (value < 0 || value > 255) {
                throw malformed(text, value + " at position " + (i + 1) + " is not a byte");
            }
            raw[i] = (byte) value;
        }
        return raw;
    }

    private static PerftestException malformed(String text, String why) {
        return new PerftestException("-M " + text + ": perftest's MGID is 16 numbers from 0 to 255 separated by ':'"
                + " (for example 255:1:0:0:0:2:201:133:0:0:0:0:0:0:0:7), not " + why);
    }
}
