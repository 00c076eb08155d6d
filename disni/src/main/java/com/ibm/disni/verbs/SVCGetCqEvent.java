package com.ibm.disni.verbs;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.SVCGetCqEvent}: the stateful verb call that waits for a completion event,
 * wrapping {@code ibv_get_cq_event}. An abstract class, as in DiSNI 2.1 (compiled callers invoke
 * {@code execute()}, {@code isValid()} and {@code free()} on it with {@code invokevirtual}); the
 * implementations come from this module's verbs objects.
 */
public abstract class SVCGetCqEvent implements StatefulVerbCall<SVCGetCqEvent> {

    /** For implementations. */
    public SVCGetCqEvent() {
    }
}
