package org.panamaverbs.verbs;

import java.lang.foreign.MemorySegment;

/**
 * Checks shared by the {@code adopt} factories ({@link Context#adopt} and the others), which wrap native
 * objects another owner made: before Java trusts a foreign {@code ibv_qp} or {@code ibv_cq}, its pointers
 * to its parents must name the objects it is adopted under, or the resource tree (and the order in which
 * close hands objects back) would not match the native one.
 */
final class Adoption {
    private Adoption() {
    }

    /** @throws IllegalArgumentException if {@code actual} and {@code expected} hold different addresses */
    static void requireSame(String field, MemorySegment actual, MemorySegment expected) {
        if (actual.address() != expected.address()) {
            throw new IllegalArgumentException(field + " is 0x" + Long.toHexString(actual.address())
                    + ", not the expected 0x" + Long.toHexString(expected.address()));
        }
    }
}
