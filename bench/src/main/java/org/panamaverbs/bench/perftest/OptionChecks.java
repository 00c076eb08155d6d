package org.panamaverbs.bench.perftest;

import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * The checks of the options every tool shares, before any device is opened: each value in its range, and the
 * combinations perftest refuses, in perftest's words where it has them. What one tool alone refuses stays with it.
 */
final class OptionChecks {
    private OptionChecks() {
    }

    /** Throws a {@link PerftestException} naming the first option that is out of range or badly combined. */
    static void check(PerftestOptions o, long defaultSize) {
        long s = o.size != null ? o.size : defaultSize;
        if (s < 1) {
            throw new PerftestException("-s must be at least 1 byte, not " + s);
        }
        if (o.iterations != null && o.iterations < 1) {
            throw new PerftestException("-n must be at least 1, not " + o.iterations);
        }
        if (o.txDepth != null && o.txDepth < 1) {
            throw new PerftestException("-t must be at least 1, not " + o.txDepth);
        }
        if (o.cqModerationOption != null && o.cqModerationOption < 1) {
            throw new PerftestException("-Q must be at least 1, not " + o.cqModerationOption);
        }
        if (o.queuePairs < 1) {
            throw new PerftestException("-q must be at least 1, not " + o.queuePairs);
        }
        if (o.dualPort && o.rdmaCm) {
            throw new PerftestException("Perftest still doesn't support Dual Port with rdma_cm (-O with -R; as perftest)");
        }
        if (o.dualPort && o.multicast) {
            throw new PerftestException("-O with -g: perftest refuses them together (its message: \"Perftest still"
                    + " doesn't support Multicast with rdma_cm\")");
        }
        if (o.reportPerPort && (o.duration == null || !o.dualPort)) {
            throw new PerftestException("report per port feature work only with Duration and Dualport (--report-per-port"
                    + " needs -D and -O; as perftest)");
        }
        if (o.postList < 1) {
            throw new PerftestException("-l must be at least 1, not " + o.postList);
        }
        if (o.inlineSize != null && o.inlineSize < 0) {
            throw new PerftestException("-I must not be negative, not " + o.inlineSize);
        }
        if (o.ibPort < 1) {
            throw new PerftestException("-i must be a port number from 1, not " + o.ibPort);
        }
        if (o.tcpPort < 1 || o.tcpPort > 65535) {
            throw new PerftestException("-p must be a TCP port (1-65535), not " + o.tcpPort);
        }
        if (o.timeoutSeconds < 1) {
            throw new PerftestException("--timeout must be at least 1 second, not " + o.timeoutSeconds);
        }
        if (o.mtu != null && o.mtu != 256 && o.mtu != 512 && o.mtu != 1024 && o.mtu != 2048 && o.mtu != 4096) {
            throw new PerftestException("-m must be 256, 512, 1024, 2048 or 4096, not " + o.mtu);
        }
        if (o.negotiationSize != null && o.negotiationSize != ParameterNegotiation.RECORD_SIZE
                && o.negotiationSize != ParameterNegotiation.RECORD_SIZE_WITHOUT_MLX5DV) {
            throw new PerftestException("--negotiation-size must be " + ParameterNegotiation.RECORD_SIZE + " or "
                    + ParameterNegotiation.RECORD_SIZE_WITHOUT_MLX5DV + ", not " + o.negotiationSize);
        }
        if (o.duration != null && o.duration < 1) {
            throw new PerftestException("-D must be at least 1 second, not " + o.duration);
        }
        if (o.margin != null && o.margin < 0) {
            throw new PerftestException("Margin must be non-negative int (-f " + o.margin + "; as perftest)");
        }
        // perftest's check, made whatever the tool and whether -D is given (its -D defaults to 5, its o.margin to -1)
        int checkedDuration = o.duration != null ? o.duration : ParameterNegotiation.DEFAULT_DURATION;
        int checkedMargin = o.margin != null ? o.margin : o.duration != null ? o.duration / 4 : -1;
        if (!(checkedDuration > 2 * checkedMargin)) {
            throw new PerftestException("please check that DURATION > 2*MARGIN (-D " + checkedDuration + ", -f "
                    + checkedMargin + "; as perftest)");
        }
        if (o.duration != null && o.allSizes) {
            throw new PerftestException("-D runs one size for a time: it cannot be combined with -a");
        }
        if (o.duration != null && o.events) {
            throw new PerftestException("Duration mode doesn't work with events (-D with -e; perftest refuses it too)");
        }
        if (o.runInfinitely && o.allSizes) {
            throw new PerftestException("--run_infinitely runs one size until it is stopped: it cannot be combined"
                    + " with -a");
        }
        if (o.runInfinitely && o.events) {
            throw new PerftestException("run_infinitely does not support events feature yet (--run_infinitely with"
                    + " -e; perftest refuses it too)");
        }
        if (o.limitBw != null && o.limitBw < 0) {
            throw new PerftestException("Invalid Minimum BW Limit (-w " + o.limitBw + "; as perftest)");
        }
        if (o.limitMsgRate != null && o.limitMsgRate < 0) {
            throw new PerftestException("Invalid Minimum msgRate Limit (-y " + o.limitMsgRate + "; as perftest)");
        }
        if (o.waitDestroySeconds < 0) {
            throw new PerftestException("--wait_destroy must not be negative, not " + o.waitDestroySeconds);
        }
        if (o.outJson && o.loopback) {
            throw new PerftestException("--out_json describes a run between two peers: it cannot be combined with"
                    + " --loopback (--json can)");
        }
        if (o.reversed && o.loopback) {
            throw new PerftestException("--reversed swaps the roles of two peers: it cannot be combined with"
                    + " --loopback");
        }
        if (o.qpTimeout < 0 || o.qpTimeout > 31) {
            throw new PerftestException("-u must be 0 to 31 (the queue pair's 5-bit timeout exponent), not " + o.qpTimeout);
        }
        if (o.retryCount < 0 || o.retryCount > 7) {
            throw new PerftestException("--retry_count must be 0 to 7 (rdma_cm's 3-bit retry count), not " + o.retryCount);
        }
        if (o.serviceLevel < 0 || o.serviceLevel > 15) {
            throw new PerftestException("-S must be a service level from 0 to 15, not " + o.serviceLevel);
        }
        if (o.trafficClass < 0 || o.trafficClass > 255) {
            throw new PerftestException("--tclass must be 0 to 255, not " + o.trafficClass);
        }
        if (o.completionVector != null && (o.completionVector < 0 || o.completionVector > 2048)) {
            throw new PerftestException("EQN should be between 0 and 2048 (-X " + o.completionVector + "; as perftest)");
        }
        if (o.completionVector != null && !o.events) {
            throw new PerftestException("Events must be enabled to select a completion vector (-X without -e; as"
                    + " perftest)");
        }
        if (o.typeOfService != null && (o.typeOfService < 0 || o.typeOfService > 255)) {
            throw new PerftestException("TOS should be between 0 and 255 (-T " + o.typeOfService + "; as perftest)");
        }
        if (o.typeOfService != null && !o.exchangesOverRdmaCm()) {
            throw new PerftestException("TOS only valid for rdma_cm based QP and RawEth QP (-T without -R or -z; as"
                    + " perftest)");
        }
        if (o.pkeyIndex < 0) {
            throw new PerftestException("--pkey_index must not be negative, not " + o.pkeyIndex);
        }
        o.flowLabelList();
        if (o.cqePoll != null && (o.cqePoll < 1 || o.cqePoll > 65535)) {
            throw new PerftestException("CQE Poll should be between 1 and 65535 (--cqe_poll " + o.cqePoll + "; as perftest)");
        }
        if (o.latencyGapMicros < 0) {
            throw new PerftestException("--latency_gap must not be negative, not " + o.latencyGapMicros);
        }
        if (o.output != null && !o.output.equals("bandwidth") && !o.output.equals("message_rate")
                && !o.output.equals("latency")) {
            throw new PerftestException("Invalid verbosity level output flag (--output " + o.output
                    + "). Please use bandwidth, latency, message_rate");
        }
        if (o.rdmaCm && o.loopback) {
            throw new PerftestException("-R connects to a peer: it cannot be combined with --loopback");
        }
        if (o.mmapOffset < 0) {
            throw new PerftestException("--mmap-offset must not be negative, not " + o.mmapOffset);
        }
        if (o.mmapFile != null && o.useHugepages) {
            throw new PerftestException("Can't use multiple memory types (--mmap with --use_hugepages; as perftest)");
        }
        if (o.commRdmaCm && o.loopback) {
            throw new PerftestException("-z exchanges with a peer: it cannot be combined with --loopback");
        }
        if (o.dlid != null && (o.dlid < 0 || o.dlid > 0xffff)) {
            throw new PerftestException("--dlid must be a LID from 0 to 65535, not " + o.dlid);
        }
        if (o.forceLink != null && PerftestOptions.linkLayerNamed(o.forceLink) == null) {
            throw new PerftestException("Invalid link layer value should be IB or ETHERNET (--force-link " + o.forceLink
                    + "; as perftest)");
        }
        if (o.bindSourceIp != null) {
            InetAddress source = o.sourceAddress();
            if (source instanceof Inet6Address && !o.ipv6Address) {
                throw new PerftestException("--bind_source_ip " + o.bindSourceIp + " is IPv6: it needs --ipv6-addr (as"
                        + " perftest)");
            }
        }
        if (o.allSizes && o.size != null) {
            throw new PerftestException("-a runs every size: it cannot be combined with -s");
        }
    }
}
