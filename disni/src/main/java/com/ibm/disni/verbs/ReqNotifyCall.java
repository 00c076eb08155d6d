package com.ibm.disni.verbs;

import java.io.IOException;
import org.panamaverbs.verbs.Errno;

/** {@link SVCReqNotify}: {@code ibv_req_notify_cq} through {@code CompletionQueue.requestNotification}. */
final class ReqNotifyCall extends SVCReqNotify {

    private final IbvCQ cq;
    private final boolean solicitedOnly;
    private volatile boolean valid = true;

    ReqNotifyCall(IbvCQ cq, boolean solicitedOnly) {
        this.cq = cq;
        this.solicitedOnly = solicitedOnly;
    }

    @Override
    public SVCReqNotify execute() throws IOException {
        if (!valid) {
            throw new IOException("ibv_req_notify_cq: this call was freed");
        }
        int rc;
        try {
            rc = cq.pv.requestNotification(solicitedOnly);
        } catch (RuntimeException e) {
            throw Failures.io("ibv_req_notify_cq", e);
        }
        if (rc != 0) {
            throw new IOException("ibv_req_notify_cq failed: " + Errno.describe(rc));
        }
        return this;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public SVCReqNotify free() {
        valid = false;
        return this;
    }
}
