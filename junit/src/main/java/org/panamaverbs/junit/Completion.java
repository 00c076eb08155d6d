package org.panamaverbs.junit;

import org.panamaverbs.verbs.WcOpcode;
import org.panamaverbs.verbs.WcStatus;
import org.panamaverbs.verbs.WorkCompletion;

/**
 * One work completion copied out of the library's {@link WorkCompletion} flyweight (which the next poll
 * overwrites), so a test can keep it and compare it. Made by {@link Completions#await}.
 *
 * @param wrId            the work request id the test posted ({@code ibv_wc.wr_id})
 * @param status          the completion status ({@code ibv_wc.status})
 * @param opcode          what completed ({@code ibv_wc.opcode})
 * @param byteLength      bytes received, for receive completions ({@code ibv_wc.byte_len})
 * @param qpNumber        the local queue pair ({@code ibv_wc.qp_num})
 * @param hasImmediate    whether immediate data arrived ({@code IBV_WC_WITH_IMM})
 * @param immediateData   the immediate data in host order, meaningful when {@code hasImmediate}
 */
public record Completion(long wrId, WcStatus status, WcOpcode opcode, int byteLength, int qpNumber,
                         boolean hasImmediate, int immediateData) {

    /**
     * A copy of {@code wc}'s fields, taken at once.
     *
     * @param wc a completion of a {@code CompletionArray} array, read before the next poll overwrites it
     * @return a new record that no later poll changes
     */
    public static Completion of(WorkCompletion wc) {
        return new Completion(wc.wrId(), wc.status(), wc.opcode(), wc.byteLength(), wc.qpNumber(),
                wc.hasImmediateData(), wc.immediateData());
    }

    /** {@return whether the status is {@link WcStatus#SUCCESS} ({@code IBV_WC_SUCCESS})} */
    public boolean isSuccess() {
        return status == WcStatus.SUCCESS;
    }
}
