package org.panamaverbs.verbs;

/**
 * The capacities of a queue pair ({@code struct ibv_qp_cap}): what to ask for, in {@link QpConfig} and in
 * rdma_cm's {@code ConnectionOptions}, and what the device granted ({@link QueuePair#capabilities()}, from
 * {@code ibv_create_qp} or {@code ibv_query_qp}), which may exceed the request. A request starts from
 * {@link #defaults()} or {@link #of(int, int)} and changes one value at a time with the {@code with} methods;
 * nothing is checked until a queue pair is created, against the device's limits ({@link IllegalArgumentException}
 * naming each value outside them).
 *
 * @param maxSendWr     outstanding send requests ({@code max_send_wr})
 * @param maxRecvWr     outstanding receive requests ({@code max_recv_wr}; not used, and granted as 0, with a
 *                      shared receive queue)
 * @param maxSendSge    scatter-gather entries per send request ({@code max_send_sge})
 * @param maxRecvSge    scatter-gather entries per receive request ({@code max_recv_sge})
 * @param maxInlineData inline payload bytes per send request ({@code max_inline_data})
 */
public record QpCapabilities(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
    private static final QpCapabilities DEFAULTS = of(128, 512);

    /**
     * perftest's depths: 128 send and 512 receive requests, one scatter-gather entry each, no inline data.
     *
     * @return those capacities
     */
    public static QpCapabilities defaults() {
        return DEFAULTS;
    }

    /**
     * {@code maxSendWr} send and {@code maxRecvWr} receive requests of one scatter-gather entry each, no inline
     * data.
     *
     * @param maxSendWr outstanding send requests, 1 up to the device's {@code max_qp_wr}
     * @param maxRecvWr outstanding receive requests, 1 up to the device's {@code max_qp_wr}
     * @return those capacities
     */
    public static QpCapabilities of(int maxSendWr, int maxRecvWr) {
        return new QpCapabilities(maxSendWr, maxRecvWr, 1, 1, 0);
    }

    /**
     * These capacities with another send queue depth.
     *
     * @param value outstanding send requests, 1 up to the device's {@code max_qp_wr}
     * @return the new capacities
     */
    public QpCapabilities withMaxSendWr(int value) {
        return new QpCapabilities(value, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData);
    }

    /**
     * These capacities with another receive queue depth.
     *
     * @param value outstanding receive requests, 1 up to the device's {@code max_qp_wr}
     * @return the new capacities
     */
    public QpCapabilities withMaxRecvWr(int value) {
        return new QpCapabilities(maxSendWr, value, maxSendSge, maxRecvSge, maxInlineData);
    }

    /**
     * These capacities with another number of entries per send request.
     *
     * @param value 0 up to the device's {@code max_sge}
     * @return the new capacities
     */
    public QpCapabilities withMaxSendSge(int value) {
        return new QpCapabilities(maxSendWr, maxRecvWr, value, maxRecvSge, maxInlineData);
    }

    /**
     * These capacities with another number of entries per receive request.
     *
     * @param value 0 up to the device's {@code max_sge}
     * @return the new capacities
     */
    public QpCapabilities withMaxRecvSge(int value) {
        return new QpCapabilities(maxSendWr, maxRecvWr, maxSendSge, value, maxInlineData);
    }

    /**
     * These capacities with another inline payload size.
     *
     * @param value bytes a send request may carry inline ({@link SendFlags#INLINE}), 0 for none; a device may
     *              grant more, and QEMU's PVRDMA model refuses any
     * @return the new capacities
     */
    public QpCapabilities withMaxInlineData(int value) {
        return new QpCapabilities(maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, value);
    }
}
