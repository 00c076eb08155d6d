package org.panamaverbs.bench.perftest;

import java.util.Arrays;

import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.OnDemandPaging;

/**
 * {@code --odp}: perftest's {@code check_odp_support} and {@code check_odp_transport_caps}, in their words, before
 * any peer waits (perftest checks when it creates its memory region, after the exchange has begun). The device must
 * report on-demand paging and, on RC, allow the test's operations on ODP memory; UD's mask is not checked, as
 * perftest does not (devices that page UD receives leave it empty). The buffers are then registered with
 * {@code IBV_ACCESS_ON_DEMAND}.
 */
final class OnDemandPagingCheck {
    /** perftest's {@code VerbType} as the check reads it ({@code WRITE_IMM} checks as WRITE). */
    enum Verb { SEND, WRITE, READ, ATOMIC }

    private OnDemandPagingCheck() {
    }

    /** Refuses the run as perftest would, naming the device; returns the access of the test's buffers. */
    static Access[] require(Context context, PerftestOptions options, Verb verb, Access... access) {
        String refusal = refusal(context.onDemandPaging(), options.isUd(), verb, options.isClient(), options.bidirectional);
        if (refusal != null) {
            throw new PerftestException(refusal + " (--odp on " + context.name() + ": ibv_query_device_ex's odp_caps;"
                    + " perftest says so, then \"failed to create mr\")");
        }
        Access[] withOnDemand = Arrays.copyOf(access, access.length + 1);
        withOnDemand[access.length] = Access.ON_DEMAND;
        return withOnDemand;
    }

    /** perftest's message for what {@code paging} lacks, or null when the run may use ODP memory. */
    static String refusal(OnDemandPaging paging, boolean ud, Verb verb, boolean client, boolean duplex) {
        if (!paging.supported()) {
            return "The device does not support On-Demand Paging.";
        }
        if (ud) {
            return null;
        }
        int caps = paging.rcCaps();
        int receives = OnDemandPaging.RECV | OnDemandPaging.SRQ_RECV;
        return switch (verb) {
            case SEND -> !duplex && client ? lacking(caps, OnDemandPaging.SEND, "ODP Send is not supported")
                    : !duplex ? lacking(caps, receives, "ODP Recv is not supported")
                    : (caps & OnDemandPaging.SEND) != 0 && (caps & receives) != 0 ? null
                    : "ODP bidirectional Send is not supported for RC transport.";
            case WRITE -> lacking(caps, OnDemandPaging.WRITE, "ODP Write is not supported");
            case READ -> lacking(caps, OnDemandPaging.READ, "ODP Read is not supported");
            case ATOMIC -> lacking(caps, OnDemandPaging.ATOMIC, "ODP Atomics are not supported");
        };
    }

    private static String lacking(int caps, int needed, String message) {
        return (caps & needed) != 0 ? null : message + " for RC transport.";
    }
}
