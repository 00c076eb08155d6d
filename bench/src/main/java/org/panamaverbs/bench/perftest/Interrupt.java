package org.panamaverbs.bench.perftest;

import java.util.function.BooleanSupplier;

import sun.misc.Signal;

/**
 * perftest 25.01's SIGINT handler of {@code --run_infinitely} ({@code handle_sigint}): Ctrl-C does not end the
 * process but the run, after which the client still does its end-of-run handshake and report exchange, so the
 * server ends cleanly too. Through {@code sun.misc.Signal} (module jdk.unsupported), the JDK's only way to take a
 * signal over: a shutdown hook could not keep the exit status at 0 nor let the exchange finish before the JVM exits.
 */
final class Interrupt {
    private static volatile boolean received;

    private Interrupt() {
    }

    /** Takes SIGINT over for the rest of the process; the supplier says whether it came since. */
    static BooleanSupplier onSigint() {
        Signal.handle(new Signal("INT"), signal -> received = true);
        return () -> received;
    }
}
