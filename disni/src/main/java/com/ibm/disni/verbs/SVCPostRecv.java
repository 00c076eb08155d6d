package com.ibm.disni.verbs;

import java.io.IOException;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.SVCPostRecv}: the stateful verb call that posts a
 * prepared list of receive work requests ({@code IbvQP.postRecv}), wrapping {@code ibv_post_recv}. Executed
 * again, it posts the same requests again. An abstract class, as in DiSNI 2.1 (compiled callers invoke it
 * with {@code invokevirtual}).
 */
public abstract class SVCPostRecv implements StatefulVerbCall<SVCPostRecv> {

    /** For implementations. */
    public SVCPostRecv() {
    }

    /**
     * Returns a view of prepared request {@code index}.
     *
     * @param index the request's position in the list the call was made from
     * @return the view
     * @throws IOException if there is no such request
     */
    public abstract RecvWRMod getWrMod(int index) throws IOException;

    /**
     * Stands in for DiSNI 2.1's {@code SVCPostRecv.RecvWRMod}: a view of one prepared receive request (its
     * identifier only, as in DiSNI).
     */
    public interface RecvWRMod {

        /**
         * Returns the request's identifier.
         *
         * @return {@code wr_id}
         */
        long getWr_id();
    }
}
