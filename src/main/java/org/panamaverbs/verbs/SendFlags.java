package org.panamaverbs.verbs;

/**
 * {@code enum ibv_send_flags}, as int bits so a work request can take them without allocating:
 * {@code wr.flags(SendFlags.SIGNALED | SendFlags.SOLICITED)}.
 */
public final class SendFlags {
    /** {@code IBV_SEND_FENCE}: wait for earlier RDMA READs (and atomics) to complete first. */
    public static final int FENCE = 1;
    /** {@code IBV_SEND_SIGNALED}: generate a completion for this request. */
    public static final int SIGNALED = 1 << 1;
    /** {@code IBV_SEND_SOLICITED}: wake a receiver armed for solicited events. */
    public static final int SOLICITED = 1 << 2;
    /** {@code IBV_SEND_INLINE}: copy the payload into the request (the queue pair needs max_inline_data). */
    public static final int INLINE = 1 << 3;

    private SendFlags() {
    }
}
