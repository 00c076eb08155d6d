package com.ibm.disni.verbs;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.SVCDeregMr}: the stateful verb call that deregisters a memory region ({@code IbvMr.deregMr()}),
 * wrapping {@code ibv_dereg_mr}. An abstract class, as in DiSNI 2.1 (compiled callers invoke
 * {@code execute()}, {@code isValid()} and {@code free()} on it with {@code invokevirtual}); the
 * implementations come from this module's verbs objects.
 */
public abstract class SVCDeregMr implements StatefulVerbCall<SVCDeregMr> {

    /** For implementations. */
    public SVCDeregMr() {
    }
}
