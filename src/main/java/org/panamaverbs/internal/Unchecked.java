package org.panamaverbs.internal;

/** Turns the {@code Throwable} that {@code MethodHandle.invokeExact} declares back into what it really is. */
public final class Unchecked {
    private Unchecked() {
    }

    /**
     * Rethrows unchecked throwables as they are; a checked one (which a downcall never throws) is wrapped.
     *
     * @return never returns; declared so callers can write {@code throw Unchecked.rethrow(t)}
     */
    public static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException("unexpected checked exception from a native call", t);
    }
}
