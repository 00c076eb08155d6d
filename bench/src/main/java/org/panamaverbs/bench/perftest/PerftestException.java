package org.panamaverbs.bench.perftest;

import org.panamaverbs.verbs.WorkCompletion;

/** A failure the tools report as one line and a non-zero exit: bad input, a peer out of step, a refused flag. */
public final class PerftestException extends RuntimeException {
    public PerftestException(String message) {
        super(message);
    }

    public PerftestException(String message, Throwable cause) {
        super(message, cause);
    }

    /** A completion with an error status, naming the request ({@code what}), the status and the vendor error. */
    static PerftestException failedCompletion(WorkCompletion wc, String what) {
        return new PerftestException("completion with error for " + what + ": " + wc.status() + " (vendor error 0x"
                + Integer.toHexString(wc.vendorError()) + ")");
    }
}
