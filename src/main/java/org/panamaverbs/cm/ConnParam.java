package org.panamaverbs.cm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import org.panamaverbs.ffi.rdmacm.rdma_conn_param;
import org.panamaverbs.verbs.DeviceAttributes;

/**
 * {@code struct rdma_conn_param}: what {@code rdma_connect} and {@code rdma_accept} negotiate, and what a
 * connection request carries. Immutable.
 *
 * <p>Private data limits (rdma_cm on InfiniBand and RoCE; checked before the call): 56 bytes with
 * {@code rdma_connect}, 196 with {@code rdma_accept}, 148 with {@code rdma_reject}; with UD ids 180 for
 * the request and 136 for the reply; 255 on iWARP (MPA's 512 do not fit rdma_cm's one-byte length). A
 * receiver gets the transport's whole field, so what it reads is the sender's bytes followed by zeros.
 *
 * @param privateData        bytes for the peer (copied)
 * @param responderResources RDMA READs / atomics this side answers at once (0..255; capped at the
 *                           device's {@code max_qp_rd_atom} when connecting)
 * @param initiatorDepth     RDMA READs / atomics this side issues at once (0..255; capped at
 *                           {@code max_qp_init_rd_atom})
 * @param retryCount         transport retries (0..7)
 * @param rnrRetryCount      receiver-not-ready retries (0..7; 7 = forever)
 */
public record ConnParam(byte[] privateData, int responderResources, int initiatorDepth, int retryCount,
        int rnrRetryCount) {
    /** rdma_cm's limit for {@code rdma_connect} private data on InfiniBand/RoCE (a CM REQ's 92 bytes less rdma_cm's header). */
    public static final int MAX_CONNECT_PRIVATE_DATA = 56;
    /** The limit for {@code rdma_accept} on InfiniBand/RoCE (CM REP). */
    public static final int MAX_ACCEPT_PRIVATE_DATA = 196;
    /** The limit for {@code rdma_reject} on InfiniBand/RoCE (CM REJ). */
    public static final int MAX_REJECT_PRIVATE_DATA = 148;
    /** The limit for a UD id's request (SIDR REQ less rdma_cm's header). */
    public static final int MAX_UD_CONNECT_PRIVATE_DATA = 180;
    /** The limit for a UD id's reply (SIDR REP). */
    public static final int MAX_UD_ACCEPT_PRIVATE_DATA = 136;
    /**
     * The limit for every call on iWARP: MPA itself allows 512 bytes, but rdma_cm's {@code rdma_conn_param} (and
     * {@code rdma_reject}) carry the length in a {@code uint8_t}, so 255 is what can be sent through librdmacm.
     */
    public static final int MAX_IWARP_PRIVATE_DATA = 255;

    /**
     * Copies the private data (null becomes empty) and checks the ranges. The private data's length is
     * checked later, against the limit of the call that sends it.
     *
     * @throws IllegalArgumentException if a count is outside the range given for its component
     */
    public ConnParam {
        privateData = privateData == null ? new byte[0] : privateData.clone();
        check("responderResources", responderResources, 255);
        check("initiatorDepth", initiatorDepth, 255);
        check("retryCount", retryCount, 7);
        check("rnrRetryCount", rnrRetryCount, 7);
    }

    /**
     * No private data; 16 outstanding READs each way (capped by the device); retry 7; RNR retry 7 (forever).
     *
     * @return the default parameters that {@link ConnectionOptions#builder()} starts from
     */
    public static ConnParam defaults() {
        return new ConnParam(new byte[0], 16, 16, 7, 7);
    }

    /**
     * These parameters with {@code data} as private data.
     *
     * @param data the private data for the peer, or null for none; copied (the limits are in the class
     *             comment)
     * @return new parameters; this instance is unchanged
     */
    public ConnParam withPrivateData(byte[] data) {
        return new ConnParam(data, responderResources, initiatorDepth, retryCount, rnrRetryCount);
    }

    /**
     * These parameters with other retry counts.
     *
     * @param retries    transport retries after a timeout waiting for an acknowledgement, 0..7
     * @param rnrRetries retries after a receiver-not-ready NAK (the peer had no receive posted), 0..7; 7 means
     *                   retry forever
     * @return new parameters; this instance is unchanged
     * @throws IllegalArgumentException if a count is outside 0..7
     */
    public ConnParam withRetries(int retries, int rnrRetries) {
        return new ConnParam(privateData, responderResources, initiatorDepth, retries, rnrRetries);
    }

    /**
     * {@return a copy of the private data, empty if none}
     */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnParam p && Arrays.equals(privateData, p.privateData)
                && responderResources == p.responderResources && initiatorDepth == p.initiatorDepth
                && retryCount == p.retryCount && rnrRetryCount == p.rnrRetryCount;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(privateData) * 31 + responderResources * 7 + initiatorDepth * 5 + retryCount * 3 + rnrRetryCount;
    }

    @Override
    public String toString() {
        return "ConnParam[" + privateData.length + " bytes of private data, responderResources="
                + responderResources + ", initiatorDepth=" + initiatorDepth + ", retryCount=" + retryCount
                + ", rnrRetryCount=" + rnrRetryCount + "]";
    }

    private static void check(String name, int value, int max) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(name + " must be in 0.." + max + ", not " + value);
        }
    }

    /**
     * A {@code struct rdma_conn_param} in {@code arena} for {@code rdma_connect} / {@code rdma_accept}: {@code data}
     * (already checked against the call's limit) and the parameters, with responder resources and initiator depth
     * lowered to {@code device}'s limits (more fails the RTR/RTS transition inside rdma_cm with a bare EINVAL).
     */
    static MemorySegment write(ConnParam parameters, byte[] data,
            DeviceAttributes device, Arena arena) {
        MemorySegment param = arena.allocate(rdma_conn_param.layout());
        if (data.length > 0) {
            rdma_conn_param.private_data(param,
                    arena.allocateFrom(ValueLayout.JAVA_BYTE, data));
            rdma_conn_param.private_data_len(param, (byte) data.length);
        }
        rdma_conn_param.responder_resources(param,
                (byte) Math.min(parameters.responderResources(), device.maxQpRdAtom()));
        rdma_conn_param.initiator_depth(param,
                (byte) Math.min(parameters.initiatorDepth(), device.maxQpInitRdAtom()));
        rdma_conn_param.retry_count(param, (byte) parameters.retryCount());
        rdma_conn_param.rnr_retry_count(param, (byte) parameters.rnrRetryCount());
        return param;
    }
}
