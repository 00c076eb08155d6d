package com.ibm.disni.verbs;

import java.io.IOException;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.StatefulVerbCall}: a verb call prepared once and
 * executed any number of times ("SVC"). Creating one serialises its arguments into native memory;
 * {@link #execute()} performs the verb with them and returns the call itself (so
 * {@code pd.regMr(buffer, access).execute().free().getMr()} chains); {@link #free()} releases the memory
 * and makes the call invalid. The seven {@code SVC*} types implement it as abstract classes, as in DiSNI
 * 2.1, because compiled callers invoke their methods with {@code invokevirtual}.
 *
 * @param <T> the call's own type, returned by {@link #execute()} and {@link #free()}
 */
public interface StatefulVerbCall<T extends StatefulVerbCall<?>> {

    /**
     * Performs the verb with the prepared arguments.
     *
     * @return this call
     * @throws IOException if the verb fails (the message names the C call and its errno)
     */
    T execute() throws IOException;

    /**
     * Tells whether the call can still be executed.
     *
     * @return false once {@link #free()} was called
     */
    boolean isValid();

    /**
     * Releases the native memory of the call; results already obtained (such as a registered region) stay
     * usable.
     *
     * @return this call
     */
    T free();
}
