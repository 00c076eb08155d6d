package org.panamaverbs.verbs;

import java.util.Arrays;
import java.util.Comparator;
import java.util.function.ToIntFunction;

/**
 * Maps the C value of an enum constant back to the constant: the one lookup behind every {@code of(int)}
 * of this package's code enums, so they share one policy for values the library does not know.
 *
 * <p>Lookups run on the data path (a completion's status and opcode are decoded per completion), so
 * {@link #of(int)} allocates nothing. Codes are usually small and dense ({@code ibv_wc_status} 0..23) or
 * dense in a few runs ({@code ibv_wc_opcode} 0..7 and 128..137); up to {@link #MAX_DIRECT_SPAN} a plain
 * array indexed by {@code code - min} answers in one load. A wider span (a bit-flag enum, say) would waste
 * memory, so it falls back to a binary search over the sorted codes, still without allocating.
 *
 * <p>Policy for a code that no constant has: {@link #orUnknown} tables return the enum's {@code UNKNOWN}
 * constant, for values C hands back at run time (a newer kernel or provider may add values, and a
 * completion or event must still be delivered); {@link #strict} tables throw, for values only Java writes,
 * where an unknown code is a bug. Never null.
 *
 * @param <E> the enum
 */
final class CodeTable<E extends Enum<E>> {
    /** Widest {@code max - min + 1} served by direct indexing: a few KiB of references at most. */
    static final int MAX_DIRECT_SPAN = 1024;

    private final String typeName;
    /** The answer for an unknown code; null for a strict table, which throws instead. */
    private final E unknown;
    /** The smallest code; the direct table's index 0. */
    private final int min;
    /** Direct table ({@code code - min} to constant, null for holes), or null when the span is too wide. */
    private final E[] direct;
    /** Sorted codes and their constants, for the binary search of a wide span; null when {@link #direct} is used. */
    private final int[] sortedCodes;
    private final E[] sortedConstants;

    private CodeTable(E[] constants, ToIntFunction<? super E> code, E unknown) {
        if (constants.length == 0) {
            throw new IllegalArgumentException("an enum without constants needs no code table");
        }
        this.typeName = constants[0].getDeclaringClass().getSimpleName();
        this.unknown = unknown;
        // The unknown marker (code -1 by convention) is left out so that it cannot widen the span; C's own
        // UNKNOWN values (IBV_QPS_UNKNOWN, IBV_TRANSPORT_UNKNOWN) still map to it, as every unmapped code does.
        E[] mapped = Arrays.stream(constants).filter(c -> c != unknown).sorted(Comparator.comparingInt(code))
                .toArray(n -> Arrays.copyOf(constants, n));
        int[] codes = Arrays.stream(mapped).mapToInt(code).toArray();
        for (int i = 1; i < codes.length; i++) {
            if (codes[i] == codes[i - 1]) {
                // Two constants with one code would make of() pick one silently: refuse at class initialisation.
                throw new IllegalStateException(typeName + "." + mapped[i - 1] + " and " + typeName + "." + mapped[i]
                        + " both have code " + codes[i]);
            }
        }
        this.min = codes.length == 0 ? 0 : codes[0];
        long span = codes.length == 0 ? 0 : (long) codes[codes.length - 1] - min + 1;
        if (span <= MAX_DIRECT_SPAN) {
            direct = Arrays.copyOf(constants, (int) span);
            Arrays.fill(direct, null);
            for (int i = 0; i < codes.length; i++) {
                direct[codes[i] - min] = mapped[i];
            }
            sortedCodes = null;
            sortedConstants = null;
        } else {
            direct = null;
            sortedCodes = codes;
            sortedConstants = mapped;
        }
    }

    /**
     * A table whose {@link #of} answers {@code unknown} for any code no other constant has.
     *
     * @param constants the enum's {@code values()}
     * @param code      the constant's C value (read once, here)
     * @param unknown   the enum's {@code UNKNOWN} constant; its own code is not looked at
     */
    static <E extends Enum<E>> CodeTable<E> orUnknown(E[] constants, ToIntFunction<? super E> code, E unknown) {
        if (unknown == null) {
            throw new IllegalArgumentException("orUnknown needs the UNKNOWN constant; use strict for an enum without one");
        }
        return new CodeTable<>(constants, code, unknown);
    }

    /** A table whose {@link #of} throws {@link IllegalArgumentException} for a code no constant has. */
    static <E extends Enum<E>> CodeTable<E> strict(E[] constants, ToIntFunction<? super E> code) {
        return new CodeTable<>(constants, code, null);
    }

    /**
     * The constant with C value {@code code}: O(1) for a span up to {@link #MAX_DIRECT_SPAN}, O(log n)
     * beyond; allocation-free unless it throws.
     *
     * @throws IllegalArgumentException for an unknown code in a {@link #strict} table
     */
    E of(int code) {
        E found;
        if (direct != null) {
            // Subtracting in long keeps Integer.MIN_VALUE and friends from wrapping into the table.
            long slot = (long) code - min;
            found = slot >= 0 && slot < direct.length ? direct[(int) slot] : null;
        } else {
            int at = Arrays.binarySearch(sortedCodes, code);
            found = at >= 0 ? sortedConstants[at] : null;
        }
        if (found != null) {
            return found;
        }
        if (unknown != null) {
            return unknown;
        }
        throw new IllegalArgumentException("no " + typeName + " has code " + code);
    }

    /** Whether lookups index an array directly (true) or search (false); for tests. */
    boolean isDirect() {
        return direct != null;
    }
}
