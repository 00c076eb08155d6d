package com.ibm.disni.verbs;

import java.io.IOException;
import java.util.List;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.RecvWorkRequest;
import org.panamaverbs.verbs.RecvChain;

/**
 * {@link SVCPostRecv}: {@code ibv_post_recv} through {@code QueuePair.postRecv}. The requests are copied once,
 * when the call is made; each {@code execute()} writes them into a preallocated {@link RecvChain}
 * chain of the executing thread (made on that thread's first execution) and posts it, allocating nothing
 * after the first time.
 */
final class PostRecvCall extends SVCPostRecv implements PerThreadChains.FirstThread<PostRecvCall.Part> {

    private final IbvQP qp;
    private final QueuePair pv;
    private final int count;
    private final int maxSge;
    private final long[] wrId;
    private final int[] numSge;
    private final int[] sgeStart;
    private final SgeTable sges;
    private final RecvWRMod[] mods;
    private final PerThreadChains<Part> perThread;
    private volatile boolean valid = true;

    PostRecvCall(IbvQP qp, List<IbvRecvWR> wrList) throws IOException {
        this.qp = qp;
        this.pv = qp.panama();
        if (wrList == null || wrList.isEmpty()) {
            throw new IOException("ibv_post_recv: no work requests");
        }
        count = wrList.size();
        wrId = new long[count];
        numSge = new int[count];
        sgeStart = new int[count];
        long totalSge = 0;
        int most = 1;
        for (int i = 0; i < count; i++) {
            // each count against its own list first: a num_sge far beyond it must not size anything
            IbvRecvWR wr = wrList.get(i);
            int entries = SgeTable.checkCount(wr.getSg_list(), wr.getNum_sge(), "ibv_post_recv: request " + i);
            totalSge += entries;
            most = Math.max(most, entries);
        }
        maxSge = most;
        sges = SgeTable.of(totalSge, "ibv_post_recv");
        mods = new RecvWRMod[count];
        int start = 0;
        for (int i = 0; i < count; i++) {
            IbvRecvWR wr = wrList.get(i);
            wrId[i] = wr.getWr_id();
            numSge[i] = wr.getNum_sge();
            sgeStart[i] = start;
            sges.copy(wr.getSg_list(), numSge[i], start, "ibv_post_recv: request " + i);
            start += numSge[i];
            int index = i;
            mods[i] = () -> wrId[index];
        }
        perThread = new PerThreadChains<>(this::newPerThread, this);
    }

    private Part newPerThread() {
        return new Part(RecvChain.allocate(count, maxSge), new SgeTable.Resolved(sges.addr.length));
    }

    /** A thread's chain, the regions its entries resolved to, and whether it was written. */
    static final class Part extends PerThreadChains.Requests<RecvChain> {
        boolean filled;

        Part(RecvChain chain, SgeTable.Resolved resolved) {
            super(chain, resolved, chain::close);
        }
    }

    /** The first thread to execute and its part ({@link PerThreadChains.FirstThread}), read with no lookup. */
    private volatile Thread first;
    private Part firstPart;

    @Override
    public void remember(Part part) {
        firstPart = part;
        first = Thread.currentThread(); // last: a thread that finds itself here finds its part
    }

    @Override
    public void forget() {
        first = null; // firstPart stays: only the thread remembered reads it, and only while it is remembered
    }

    /** This thread's part; the first thread's from the fields above (written before {@code first}, by that thread). */
    private Part part() throws IOException {
        return Thread.currentThread() == first ? firstPart : perThread.require("ibv_post_recv");
    }

    /** Writes the requests into the thread's chain; resolves each entry's region. */
    private void fill(Part t) throws IOException {
        IbvContext context = qp.getContext();
        for (int i = 0; i < count; i++) {
            RecvWorkRequest r = t.chain.get(i);
            r.wrId(wrId[i]);
            sges.writeInto(r, sgeStart[i], numSge[i], t.resolved, context);
        }
    }

    @Override
    public SVCPostRecv execute() throws IOException {
        Part t = part();
        RecvChain chain = t.chain;
        int rc;
        try {
            // DiSNI's receive mods change nothing, so a thread's chain is written once
            if (!t.filled) {
                fill(t);
                t.filled = true;
            }
            try {
                rc = pv.postRecv(chain, count);
            } catch (IllegalStateException e) {
                // a region closed since the chain was written (refused before anything was posted): look the
                // entries up again, so a deregistered one is refused as before, and post once more
                if (t.resolved.allOpen()) {
                    throw e;
                }
                fill(t);
                rc = pv.postRecv(chain, count);
            }
        } catch (RuntimeException e) {
            throw Failures.io("ibv_post_recv", e);
        }
        if (rc != 0) {
            throw Failures.post("ibv_post_recv", rc, chain.failedIndex(), count);
        }
        return this;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public SVCPostRecv free() {
        valid = false;
        perThread.closeAll();
        return this;
    }

    @Override
    public RecvWRMod getWrMod(int index) throws IOException {
        if (index < 0 || index >= count) {
            throw new IOException("no work request " + index + " in this call (it has " + count + ")");
        }
        return mods[index];
    }
}
