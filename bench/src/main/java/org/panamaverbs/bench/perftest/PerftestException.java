package org.panamaverbs.bench.perftest;

/** A failure the tools report as one line and a non-zero exit: bad input, a peer out of step, a refused flag. */
public final class PerftestException extends RuntimeException {
    public PerftestException(String message) {
        super(message);
    }

    public PerftestException(String message, Throwable cause) {
        super(message, cause);
    }
}
