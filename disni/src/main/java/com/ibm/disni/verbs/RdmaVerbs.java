package com.ibm.disni.verbs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.RdmaVerbs}: the libibverbs calls of the DiSNI API,
 * one object per JVM ({@link #open()}), to which the methods of {@link IbvContext}, {@link IbvPd},
 * {@link IbvCQ}, {@link IbvCompChannel}, {@link IbvMr} and {@link IbvQP} delegate. This module implements
 * it on Panama Verbs ({@code org.panamaverbs.verbs}): no JNI library, no {@code LD_LIBRARY_PATH}; run with
 * {@code --enable-native-access=ALL-UNNAMED}.
 *
 * <p>Errors: every failing verb throws {@code IOException} whose message names the C call and its errno
 * ({@code ibv_reg_mr failed: EINVAL (Invalid argument): ...}), with Panama Verbs' exception as the cause.
 */
public abstract class RdmaVerbs {

    /** The version of DiSNI's native interface that DiSNI 2.1 required; this module speaks that API. */
    static final int VERSION = 32;

    /** For the implementation. */
    public RdmaVerbs() {
    }

    /**
     * Returns the verbs of this JVM.
     *
     * @return the single instance
     * @throws IOException never in this module (DiSNI threw it when its native library was outdated)
     */
    public static RdmaVerbs open() throws IOException {
        return PanamaVerbs.INSTANCE;
    }

    /**
     * Returns the version of DiSNI's native interface this API corresponds to.
     *
     * @return 32, the value DiSNI 2.1's own library reported
     */
    public static int getVersion() {
        return VERSION;
    }

    /**
     * {@code ibv_alloc_pd}.
     *
     * @param context the device
     * @return the protection domain
     * @throws IOException if the call fails
     */
    public abstract IbvPd allocPd(IbvContext context) throws IOException;

    /**
     * {@code ibv_create_comp_channel}.
     *
     * @param context the device
     * @return the channel
     * @throws IOException if the call fails
     */
    public abstract IbvCompChannel createCompChannel(IbvContext context) throws IOException;

    /**
     * {@code ibv_create_cq(context, ncqe, NULL, compChannel, compVector)}.
     *
     * @param context the device
     * @param compChannel the channel the queue signals when armed, or null
     * @param ncqe the least number of entries
     * @param compVector the completion vector; only 0 is supported here (see {@link IbvContext#getNumCompVectors()})
     * @return the queue
     * @throws IOException if the call fails or {@code compVector} is not 0
     */
    public abstract IbvCQ createCQ(IbvContext context, IbvCompChannel compChannel, int ncqe, int compVector)
            throws IOException;

    /**
     * {@code ibv_get_cq_event}: waits for an armed completion queue of {@code compChannel} to signal.
     *
     * @param compChannel the channel
     * @param cq the queue expected to signal (any queue of the channel ends the wait, as in DiSNI)
     * @param timeout milliseconds; negative waits without bound
     * @return true if an event arrived, false on timeout
     * @throws IOException if the call fails
     */
    public abstract boolean getCqEvent(IbvCompChannel compChannel, IbvCQ cq, int timeout) throws IOException;

    /**
     * Prepares the registration of a direct buffer's whole capacity ({@code ibv_reg_mr}).
     *
     * @param pd the protection domain
     * @param buffer a direct buffer
     * @param access {@code IbvMr.IBV_ACCESS_*} bits
     * @return the call; executing it registers the memory
     * @throws IOException if the buffer is not direct
     */
    public abstract SVCRegMr regMr(IbvPd pd, ByteBuffer buffer, int access) throws IOException;

    /**
     * Prepares the registration of {@code length} bytes at {@code address} ({@code ibv_reg_mr}).
     *
     * @param pd the protection domain
     * @param address the native address of the memory
     * @param length bytes
     * @param access {@code IbvMr.IBV_ACCESS_*} bits
     * @return the call; executing it registers the memory
     * @throws IOException if the arguments are refused
     */
    public abstract SVCRegMr regMr(IbvPd pd, long address, int length, int access) throws IOException;

    /**
     * Asks which on-demand-paging operations the device supports.
     *
     * @param context the device
     * @return -1: not supported here (as DiSNI 2.1 on upstream rdma-core, which lacks MLNX_OFED's query)
     * @throws IOException never
     */
    public abstract int queryOdpSupport(IbvContext context) throws IOException;

    /**
     * Prefetches on-demand-paging memory.
     *
     * @param mr the region
     * @param address the first byte
     * @param length bytes
     * @return -1: not supported here (as DiSNI 2.1 on upstream rdma-core)
     * @throws IOException never
     */
    public abstract int expPrefetchMr(IbvMr mr, long address, int length) throws IOException;

    /**
     * Prepares {@code ibv_dereg_mr}.
     *
     * @param mr the region
     * @return the call; executing it deregisters the region
     * @throws IOException if the region was not registered by this module
     */
    public abstract SVCDeregMr deregMr(IbvMr mr) throws IOException;

    /**
     * Prepares {@code ibv_post_send} of {@code wrList}, copied once.
     *
     * @param qp the queue pair
     * @param wrList the requests, in order
     * @param badWrList ignored, as in DiSNI 2.1
     * @return the call
     * @throws IOException if the requests are malformed or the queue pair was not made by this module
     */
    public abstract SVCPostSend postSend(IbvQP qp, List<IbvSendWR> wrList, List<IbvSendWR> badWrList)
            throws IOException;

    /**
     * Prepares {@code ibv_post_recv} of {@code wrList}, copied once.
     *
     * @param qp the queue pair
     * @param wrList the requests, in order
     * @param badWrList ignored, as in DiSNI 2.1
     * @return the call
     * @throws IOException if the requests are malformed or the queue pair was not made by this module
     */
    public abstract SVCPostRecv postRecv(IbvQP qp, List<IbvRecvWR> wrList, List<IbvRecvWR> badWrList)
            throws IOException;

    /**
     * Prepares {@code ibv_poll_cq} into {@code wcList}.
     *
     * @param cq the queue
     * @param wcList the completions to fill
     * @param ne the most completions one execution reads
     * @return the call
     * @throws IOException if {@code ne} is not in 1..{@code wcList.length}
     */
    public abstract SVCPollCq pollCQ(IbvCQ cq, IbvWC[] wcList, int ne) throws IOException;

    /**
     * Prepares {@code ibv_req_notify_cq}.
     *
     * @param cq the queue, which needs a completion channel
     * @param solicited_only whether only solicited completions signal
     * @return the call
     * @throws IOException if the queue has no channel
     */
    public abstract SVCReqNotify reqNotifyCQ(IbvCQ cq, boolean solicited_only) throws IOException;

    /**
     * {@code ibv_ack_cq_events}: acknowledges every completion event received on {@code cq} so far (Panama
     * Verbs counts them, so the count need not be right).
     *
     * @param cq the queue
     * @param nevents the number of events the caller took (not needed)
     * @return 0
     * @throws IOException if the queue is closed
     */
    public abstract int ackCqEvents(IbvCQ cq, int nevents) throws IOException;

    /**
     * {@code ibv_destroy_comp_channel}, after destroying the queues still attached to it (DiSNI destroyed the
     * channel first and leaked it with EBUSY).
     *
     * @param compChannel the channel
     * @return 0
     * @throws IOException if the call fails
     */
    public abstract int destroyCompChannel(IbvCompChannel compChannel) throws IOException;

    /**
     * {@code ibv_dealloc_pd}, after closing what was made in it.
     *
     * @param pd the protection domain
     * @return 0
     * @throws IOException if the call fails
     */
    public abstract int deallocPd(IbvPd pd) throws IOException;

    /**
     * {@code ibv_destroy_cq}, after closing the queue pairs using it.
     *
     * @param cq the queue
     * @return 0
     * @throws IOException if the call fails
     */
    public abstract int destroyCQ(IbvCQ cq) throws IOException;
}
