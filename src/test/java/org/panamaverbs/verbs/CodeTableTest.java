package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.invoke.MethodHandle;

import org.junit.jupiter.api.Test;

/** The code lookup shared by the code enums: dense, sparse and wide spans, negative and unknown codes. */
class CodeTableTest {

    private enum Dense {
        A(0), B(1), C(2), UNKNOWN(-1);

        final int code;

        Dense(int code) {
            this.code = code;
        }
    }

    /** Two runs far apart, like {@code ibv_wc_opcode}'s send (0..) and receive (128..) opcodes. */
    private enum Sparse {
        SEND(0), WRITE(1), RECV(128), LAST(137), UNKNOWN(-1);

        final int code;

        Sparse(int code) {
            this.code = code;
        }
    }

    /** Too wide to index directly. */
    private enum Wide {
        MIN(Integer.MIN_VALUE), MINUS(-7), ONE(1), BIT20(1 << 20), MAX(Integer.MAX_VALUE);

        final int code;

        Wide(int code) {
            this.code = code;
        }
    }

    private enum Twice {
        X(3), Y(3);

        final int code;

        Twice(int code) {
            this.code = code;
        }
    }

    @Test
    void denseCodesIndexDirectlyAndUnknownCodesGiveUnknown() {
        CodeTable<Dense> table = CodeTable.orUnknown(Dense.values(), d -> d.code, Dense.UNKNOWN);
        assertTrue(table.isDirect());
        for (Dense d : Dense.values()) {
            assertSame(d, table.of(d.code));
        }
        for (int code : new int[] {3, 99, -2, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
            assertSame(Dense.UNKNOWN, table.of(code), "code " + code);
        }
    }

    @Test
    void sparseCodesIndexDirectlyWithHoles() {
        CodeTable<Sparse> table = CodeTable.orUnknown(Sparse.values(), s -> s.code, Sparse.UNKNOWN);
        assertTrue(table.isDirect(), "138 slots are cheaper than a search");
        assertSame(Sparse.RECV, table.of(128));
        assertSame(Sparse.LAST, table.of(137));
        assertSame(Sparse.UNKNOWN, table.of(2), "a hole between the runs");
        assertSame(Sparse.UNKNOWN, table.of(127));
        assertSame(Sparse.UNKNOWN, table.of(138), "past the end");
        assertSame(Sparse.UNKNOWN, table.of(-1), "the marker's own code is not a C value");
    }

    @Test
    void wideSpansAreSearchedIncludingNegativeAndExtremeCodes() {
        CodeTable<Wide> table = CodeTable.strict(Wide.values(), w -> w.code);
        assertFalse(table.isDirect());
        for (Wide w : Wide.values()) {
            assertSame(w, table.of(w.code));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> table.of(2));
        assertEquals("no Wide has code 2", e.getMessage());
    }

    @Test
    void strictTablesThrowForUnknownAndOutOfRangeCodes() {
        CodeTable<Sparse> table = CodeTable.strict(Sparse.values(), s -> s.code);
        assertSame(Sparse.UNKNOWN, table.of(-1), "in a strict table every constant is an ordinary entry");
        assertThrows(IllegalArgumentException.class, () -> table.of(64));
        assertThrows(IllegalArgumentException.class, () -> table.of(-2));
        assertThrows(IllegalArgumentException.class, () -> table.of(Integer.MAX_VALUE));
        assertThrows(IllegalArgumentException.class, () -> table.of(Integer.MIN_VALUE));
    }

    @Test
    void duplicateCodesAndAMissingUnknownAreRefused() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> CodeTable.strict(Twice.values(), t -> t.code));
        assertEquals("Twice.X and Twice.Y both have code 3", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CodeTable.orUnknown(Dense.values(), d -> d.code, null));
    }

    @Test
    void lookupsDoNotAllocate() throws Throwable {
        CodeTable<Sparse> direct = CodeTable.orUnknown(Sparse.values(), s -> s.code, Sparse.UNKNOWN);
        CodeTable<Wide> searched = CodeTable.strict(Wide.values(), w -> w.code);
        MethodHandle threadAllocatedBytes = ThreadAllocation.counter();
        int sink = 0;
        for (int round = 0; round < 2; round++) { // the first round warms up (class loading, profiling)
            long before = (long) threadAllocatedBytes.invokeExact();
            for (int i = 0; i < 100_000; i++) {
                sink += direct.of(i & 255).ordinal() + searched.of((i & 1) == 0 ? 1 : -7).ordinal();
            }
            long allocated = (long) threadAllocatedBytes.invokeExact() - before;
            if (round == 1) {
                // Boxing or an iterator per lookup would cost megabytes here; allow the measurement's own noise.
                assertTrue(allocated < 4096, allocated + " bytes allocated by 200,000 lookups");
            }
        }
        assertTrue(sink > 0);
    }
}
