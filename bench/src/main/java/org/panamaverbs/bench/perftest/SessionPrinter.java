package org.panamaverbs.bench.perftest;

import java.io.PrintStream;

import org.panamaverbs.verbs.LinkLayer;
import org.panamaverbs.verbs.PortAttributes;

/**
 * What a perftest session prints before its run, as the C tools print it: the banner ({@code ctx_print_test_info}),
 * each queue pair's address lines ({@code ctx_print_pingpong_data}) and the result table's header.
 */
final class SessionPrinter {
    private final PerftestSession s;
    private final PrintStream out;

    SessionPrinter(PerftestSession session) {
        this.s = session;
        this.out = session.out;
    }

    /** perftest's {@code ctx_print_test_info}, for what the Java tools have; also the same facts for {@code --out_json}. */
    void banner(String testTitle, boolean bandwidth, PortAttributes port, int gidIndex, int txDepth, int rxDepth) {
        s.jsonTestInfo = PerftestJsonFile.testInfo(s, testTitle, bandwidth, linkType(port), gidIndex, txDepth, rxDepth);
        out.println(BandwidthReport.RESULT_LINE);
        out.println("                    " + testTitle + (s.options.multicast ? " Multicast" : "") + " Test");
        if (s.options.events) {
            out.println(" Test with events. Using " + s.context.name() + "_comp" + s.options.eventVector());
        }
        if (s.options.multicast) {
            out.println(" MultiCast runs on UD!");
        }
        out.println(" Dual-port       : " + (s.dualPort != null ? "ON" : "OFF") + "\t\tDevice         : " + s.context.name());
        out.println(" Number of qps   : " + s.qps.size() + "\t\tTransport type : IB");
        out.println(" Connection type : " + (s.datagram ? "UD" : "RC") + "\t\tUsing SRQ      : "
                + (s.options.sharedReceiveQueue ? "ON" : "OFF"));
        out.println(" PCIe relax order: Unsupported");
        out.println(" ibv_wr* API     : OFF");
        if (s.options.isClient() || s.options.bidirectional) {
            out.println(" TX depth        : " + txDepth);
        }
        if (s.options.postList > 1) {
            out.println(" Post List       : " + s.options.postList);
        }
        if (s.options.recvPostList > 1) {
            out.println(" Recv Post List  : " + s.options.recvPostList);
        }
        if (s.receives() && (!s.options.isClient() || s.options.bidirectional)) {
            out.println(" RX depth        : " + rxDepth);
        }
        if (bandwidth) {
            out.println(" CQ Moderation   : " + Math.min(s.options.cqModeration(), txDepth));
        }
        out.println(" Mtu             : " + s.pathMtu.bytes() + "[B]");
        out.println(" Link type       : " + linkType(port));
        out.println(" GID index       : " + gidIndex);
        if (s.dualPort != null) {
            out.println(" GID index2      : " + s.dualPort.gidIndex());
        }
        if (s.readTest) {
            out.println(" Outstand reads  : " + s.mine.outReads());
        } else {
            out.println(" Max inline data : " + s.options.inlineSize() + "[B]");
        }
        out.println(" rdma_cm QPs\t : " + (s.options.rdmaCm ? "ON" : "OFF"));
        out.print(" Data ex. method : " + (s.exchangesOverRdmaCm() ? "rdma_cm" : "Ethernet"));
        if (s.exchangesOverRdmaCm() && s.options.typeOfService != null) {
            out.print(" \tTOS    : " + s.options.typeOfService);
        }
        if (s.options.rdmaCm && !s.options.isClient()) {
            out.println();
            out.println(BandwidthReport.RESULT_LINE);
            out.println(" Waiting for client rdma_cm QP to connect");
            out.print(" Please run the same command with the IB/RoCE interface IP");
        }
        out.println();
        out.println(BandwidthReport.RESULT_LINE);
        out.flush();
    }

    private void address(String side, PeerAddress a) {
        // over rdma_cm perftest prints with its exchange's verb, SEND, and for ATOMIC and WRITE_IMM as for SEND (its
        // ctx_print_pingpong_data shows RKey and VAddr for WRITE and READ only): no OUT, RKey or VAddr
        boolean asSend = s.exchangesOverRdmaCm() || s.atomicType >= 0 || s.options.writeWithImm;
        // perftest labels the group's GID MGID: the server's own address, the client's peer
        boolean group = s.options.multicast && side.equals("local") != s.options.isClient();
        String label = group ? "MGID" : "GID";
        if (side.equals("remote")) { // perftest prints --dlid's LID there
            a = new PeerAddress(s.destinationLid(a), a.outReads(), a.qpn(), a.psn(), a.rkey(), a.vaddr(), a.gid(), a.srqn());
        }
        out.print(asSend ? a.lines(side, false, true, label) : a.lines(side, s.readTest, s.sendTest, label));
        out.flush();
    }

    /** Prints this side's address ({@code ctx_print_pingpong_data}, side "local"). */
    void local() {
        for (PeerAddress each : s.mines) {
            address("local", each);
        }
    }

    /** A handshake, then the peer's address as it came ({@code side = REMOTE}). */
    void handshakeAndRemote() {
        for (PeerAddress each : s.mines) {
            address("remote", s.wire.handshake("address record", each, s.options.timeout()));
        }
    }

    /** The bandwidth table's header. */
    void bandwidthHeader() {
        out.println(s.options.bandwidthRule());
        out.println(s.options.bandwidthHeader());
        out.flush();
    }

    /** The latency table's header. */
    void latencyHeader() {
        out.println(BandwidthReport.RESULT_LINE);
        out.println((s.options.duration != null ? TimedSample.RESULT_FMT_LAT_DUR : LatencyReport.RESULT_FMT_LAT)
                + (s.options.reportsCpuUtil() ? CpuUtilization.HEADER_COLUMN : ""));
        out.flush();
    }

    /** The link layer as perftest's banner names it. */
    static String linkType(PortAttributes port) {
        return port.linkLayer() == LinkLayer.ETHERNET ? "Ethernet" : "IB";
    }
}
