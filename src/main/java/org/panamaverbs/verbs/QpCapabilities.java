package org.panamaverbs.verbs;

/**
 * The capacities the device granted a queue pair ({@code ibv_qp_init_attr.cap} after {@code ibv_create_qp},
 * or {@code ibv_qp_attr.cap} from {@code ibv_query_qp}), which may exceed what was asked.
 *
 * @param maxSendWr     outstanding send requests
 * @param maxRecvWr     outstanding receive requests (0 with a shared receive queue)
 * @param maxSendSge    scatter-gather entries per send request
 * @param maxRecvSge    scatter-gather entries per receive request
 * @param maxInlineData inline payload bytes
 */
public record QpCapabilities(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
}
