package com.ibm.disni.verbs;

import java.io.IOException;
import java.util.List;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QueuePair;

/**
 * For benchmarks only, not API: wraps Panama Verbs objects that did not come through the DiSNI drop-in's own
 * calls (the stub provider's, in {@code NativeDataPath}) in the drop-in's {@code Ibv*} objects, and makes its
 * stateful verb calls on them, so the drop-in's data path ({@code PostSendCall}, {@code PostRecvCall},
 * {@code PollCqCall}) is measured unchanged. It lives in the drop-in's package, in the bench jar, because
 * those constructors are package-private; the drop-in module itself exports nothing for this.
 */
public final class DropInAdoption {
    private DropInAdoption() {
    }

    /** The drop-in's view of one queue pair, its completion queue (send and receive) and a region. */
    public record Objects(IbvContext context, IbvPd pd, IbvCQ cq, IbvQP qp, IbvMr mr) {
    }

    /**
     * Wraps the objects and records {@code region} as registered through the drop-in, as {@code IbvPd.regMr}
     * does, so work requests naming its lkey resolve to it.
     */
    public static Objects adopt(Context context, ProtectionDomain pd, CompletionQueue cq, QueuePair qp,
            MemoryRegion region) {
        IbvContext ibvContext = IbvContext.of(context);
        IbvPd ibvPd = new IbvPd(ibvContext, pd);
        IbvCQ ibvCq = new IbvCQ(ibvContext, null, cq);
        IbvQP ibvQp = new IbvQP(qp, ibvPd, ibvCq, ibvCq, 1);
        IbvMr mr = new IbvMr(ibvContext, region, IbvMr.IBV_ACCESS_LOCAL_WRITE, 1, true);
        ibvContext.regions.put(mr.getLkey(), mr);
        return new Objects(ibvContext, ibvPd, ibvCq, ibvQp, mr);
    }

    /** The drop-in's {@code SVCPostSend} for {@code requests}, as {@code IbvQP.postSend} makes it. */
    public static SVCPostSend postSend(IbvQP qp, List<IbvSendWR> requests) throws IOException {
        return new PostSendCall(qp, requests);
    }

    /** The drop-in's {@code SVCPostRecv} for {@code requests}, as {@code IbvQP.postRecv} makes it. */
    public static SVCPostRecv postRecv(IbvQP qp, List<IbvRecvWR> requests) throws IOException {
        return new PostRecvCall(qp, requests);
    }

    /** The drop-in's {@code SVCPollCq} into {@code completions}, as {@code IbvCQ.poll} makes it. */
    public static SVCPollCq poll(IbvCQ cq, IbvWC[] completions, int ne) throws IOException {
        return new PollCqCall(cq, completions, ne);
    }
}
