package com.ibm.disni.verbs;

import java.io.IOException;
import org.panamaverbs.verbs.CompletionCopy;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.CompletionArray;

/**
 * {@link SVCPollCq}: {@code ibv_poll_cq} through {@code CompletionQueue.poll} into a preallocated
 * {@link CompletionArray} array, then copied into the caller's {@link IbvWC} objects. Panama Verbs binds a
 * completion array to the thread that polls it, so each polling thread gets its own array on its first
 * execution; after that an execution allocates nothing.
 *
 * <p>Every field of each completion is refreshed (DiSNI 2.1 left all but the identifier, status and opcode
 * stale for error completions, so an error was routed by a previous completion's queue pair number). A
 * null element of the caller's array is filled with a new {@link IbvWC} once.
 */
final class PollCqCall extends SVCPollCq implements PerThreadChains.FirstThread<PollCqCall.Completions> {

    private static final boolean LITTLE_ENDIAN = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN;

    private final CompletionQueue queue;
    private final IbvWC[] wcList;
    private final PerThreadChains<Completions> arrays;
    private volatile boolean valid = true;
    private int polls;

    PollCqCall(IbvCQ cq, IbvWC[] wcList, int ne) throws IOException {
        if (wcList == null || ne < 1 || ne > wcList.length) {
            throw new IOException("ibv_poll_cq: ne " + ne + " is outside 1.." + (wcList == null ? 0 : wcList.length)
                    + " (the length of the completion array)");
        }
        this.queue = cq.pv;
        this.wcList = wcList;
        this.arrays = new PerThreadChains<>(() -> new Completions(CompletionArray.allocate(ne), new CompletionCopy()), this);
    }

    /**
     * A thread's native completion array (Panama Verbs binds one to the thread that polls into it) and the heap
     * copy each completion passes through on its way to an {@link IbvWC}.
     */
    record Completions(CompletionArray array, CompletionCopy copy) implements PerThreadChains.Chain {
        @Override
        public void close() {
            array.close();
        }
    }

    /** The first thread to poll, written last: that thread then finds its arrays without a lookup. */
    private volatile Thread first;
    private CompletionArray firstArray;
    private CompletionCopy firstCopy;

    @Override
    public void remember(Completions part) {
        firstArray = part.array();
        firstCopy = part.copy();
        first = Thread.currentThread();
    }

    @Override
    public void forget() {
        first = null;
    }

    /** How many threads' completion arrays this call holds. */
    int chainsHeld() {
        return arrays.held();
    }

    @Override
    public SVCPollCq execute() throws IOException {
        CompletionArray array;
        CompletionCopy copy;
        if (Thread.currentThread() == first) {
            array = firstArray;
            copy = firstCopy;
        } else {
            Completions mine = arrays.require("ibv_poll_cq");
            array = mine.array();
            copy = mine.copy();
        }
        int n;
        try {
            n = queue.poll(array); // each thread's array has ne slots: all are offered
        } catch (RuntimeException e) {
            throw Failures.io("ibv_poll_cq", e);
        }
        if (n < 0) {
            throw new IOException("Polling CQ failed: ibv_poll_cq returned " + n);
        }
        for (int i = 0; i < n; i++) {
            IbvWC wc = wcList[i];
            if (wc == null) {
                wc = new IbvWC();
                wcList[i] = wc;
            }
            copy(array.get(i).copyTo(copy), wc);
        }
        polls = n;
        return this;
    }

    /**
     * Every field, from a heap copy of the completion: one bulk copy out of native memory instead of a native read
     * per field, which also keeps the compiled poll small (the JIT compiles it sooner, on the thread's CPU).
     */
    static void copy(CompletionCopy from, IbvWC to) {
        to.wr_id = from.wrId();
        to.status = from.statusCode();
        to.opcode = from.opcodeCode(); // the provider's number as it is, as DiSNI passed it on
        to.vendor_err = from.vendorError();
        to.byte_len = from.byteLength();
        // DiSNI read imm_data in host order from the C struct, where it is in network order
        int imm = from.immediateData();
        to.imm_data = LITTLE_ENDIAN ? Integer.reverseBytes(imm) : imm;
        to.qp_num = from.qpNumber();
        to.src_qp = from.sourceQp();
        to.wc_flags = from.flags();
        to.pkey_index = (short) from.pkeyIndex();
        to.slid = (short) from.sourceLid();
        to.sl = (short) from.serviceLevel();
        to.dlid_path_bits = (short) from.dlidPathBits();
    }

    @Override
    public int getPolls() {
        return polls;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public SVCPollCq free() {
        valid = false;
        arrays.closeAll();
        return this;
    }
}
