package org.panamaverbs.bench.perftest;

import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.Gid;
import org.panamaverbs.verbs.LinkLayer;
import org.panamaverbs.verbs.PortAttributes;
import org.panamaverbs.verbs.PortState;

/**
 * {@code -O}: perftest's dual-port mode, its second port (always port 2, perftest's {@code DEF_IB_PORT2}) with the GID
 * its queue pairs use, checked as perftest's {@code check_link} checks each port before any peer waits. The first half
 * of the run's queue pairs use {@code -i}'s port, the second half this one ({@code set_up_connection}).
 *
 * @param port     the port number, 2
 * @param gidIndex {@code -x} when given (perftest takes the same index on both ports), else the port's best GID
 * @param gid      that GID
 * @param lid      the port's LID, 0 on RoCE
 */
record DualPort(int port, int gidIndex, Gid gid, int lid) {
    /** perftest's {@code DEF_IB_PORT2}. */
    static final int SECOND_PORT = 2;
    /** perftest's {@code portStates}, by {@code enum ibv_port_state} code (ACTIVE is never printed). */
    private static final String[] PORT_STATES = {"Nop", "Down", "Init", "Armed", "", "Active Defer"};

    /** The second port of {@code -O}, or null without it; refuses a port perftest's {@code check_link} refuses. */
    static DualPort open(Context context, PerftestOptions options) {
        if (!options.dualPort) {
            return null;
        }
        if (context.attributes().physicalPortCount() < SECOND_PORT) {
            throw new PerftestException(" Unable to query port " + SECOND_PORT + " attributes (-O: " + context.name()
                    + " has " + context.attributes().physicalPortCount() + " port; as perftest)");
        }
        PortAttributes attributes = requireActive(context, SECOND_PORT);
        int gidIndex = options.gidIndex >= 0 ? options.gidIndex
                : BestGid.index(context.gidTable(SECOND_PORT), options.ipv6);
        int lid = attributes.linkLayer() == LinkLayer.INFINIBAND ? attributes.lid() : 0;
        return new DualPort(SECOND_PORT, gidIndex, context.gid(SECOND_PORT, gidIndex), lid);
    }

    /** perftest's {@code check_link} for {@code port}: active, and of a known link layer; its attributes. */
    static PortAttributes requireActive(Context context, int port) {
        PortAttributes attributes = context.queryPort(port);
        if (attributes.state() != PortState.ACTIVE) {
            int code = attributes.state().code();
            throw new PerftestException(" Port number " + port + " state is "
                    + (code >= 0 && code < PORT_STATES.length ? PORT_STATES[code] : attributes.state().name())
                    + " (as perftest)");
        }
        if (attributes.linkLayer() == LinkLayer.UNKNOWN) {
            throw new PerftestException("Link layer on port " + port + " is Unknown (as perftest)");
        }
        return attributes;
    }

    /** Whether queue pair {@code index} of {@code count} runs on the second port: the second half of them. */
    static boolean onSecondPort(int index, int count) {
        return index >= count / 2;
    }
}
