package com.ibm.disni.verbs;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.SVCReqNotify}: the stateful verb call that arms a completion queue for its next completion event ({@code IbvCQ.reqNotification(boolean)}),
 * wrapping {@code ibv_req_notify_cq}. An abstract class, as in DiSNI 2.1 (compiled callers invoke
 * {@code execute()}, {@code isValid()} and {@code free()} on it with {@code invokevirtual}); the
 * implementations come from this module's verbs objects.
 */
public abstract class SVCReqNotify implements StatefulVerbCall<SVCReqNotify> {

    /** For implementations. */
    public SVCReqNotify() {
    }
}
