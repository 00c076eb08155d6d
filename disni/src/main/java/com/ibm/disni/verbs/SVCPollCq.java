package com.ibm.disni.verbs;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.SVCPollCq}: the stateful verb call that polls a
 * completion queue into an array of {@link IbvWC} ({@code IbvCQ.poll(IbvWC[], int)}), wrapping
 * {@code ibv_poll_cq}. An abstract class, as in DiSNI 2.1 (compiled callers invoke it with
 * {@code invokevirtual}; programs such as jNVMf subclass it).
 */
public abstract class SVCPollCq implements StatefulVerbCall<SVCPollCq> {

    /** For implementations. */
    public SVCPollCq() {
    }

    /**
     * Returns how many completions the last {@code execute()} read into the array.
     *
     * @return the count, 0 when the queue was empty
     */
    public abstract int getPolls();
}
