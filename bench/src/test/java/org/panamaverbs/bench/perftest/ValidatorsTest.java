package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/**
 * {@code --data_validation}'s validators on ordinary memory, written as the peer's writes and fetch-and-adds would
 * write it: chunks of the pass's pattern, then the chunk's marker moved.
 */
class ValidatorsTest {
    private static final ValueLayout.OfLong MARKER = ValueLayout.JAVA_LONG;

    /** A chunk written with the pattern of marker value {@code value}, then the marker moved to it (release). */
    private static void write(ValidationLayout l, MemorySegment buffer, int q, int chunk, long value) {
        buffer.asSlice(l.chunkOffset(q, chunk), l.chunkBytes()).fill(ValidationLayout.pattern(value - 1));
        MARKER.varHandle().setRelease(buffer, l.watchedMarkerOffset(l.markerIndex(q, chunk)), value);
    }

    @Test
    void chunksWrittenWithTheirPassesPatternPass() {
        for (boolean read : new boolean[] {false, true}) {
            ValidationLayout l = ValidationLayout.of(100, 32, 2, read);
            try (Arena arena = Arena.ofShared()) {
                MemorySegment buffer = arena.allocate(l.totalSize());
                l.initialize(buffer);
                Validators.Result r;
                try (Validators v = new Validators(l, buffer, false)) {
                    v.start();
                    write(l, buffer, 0, 0, 1);
                    write(l, buffer, 1, 0, 1);
                    write(l, buffer, 0, 1, 1);
                    write(l, buffer, 0, 0, 2); // the second pass over the ring: pattern 0x02
                    write(l, buffer, 0, 2, 4); // three passes unseen: 0x01 again, and 2 steps skipped
                    r = v.stop();
                }
                assertTrue(r.passed(), r.toString());
                assertEquals(0, r.errors());
                assertNull(r.firstError());
                assertTrue(r.chunks() >= 4L * l.opsPerChunk() && r.chunks() <= 5L * l.opsPerChunk(), r.toString());
                assertEquals(r.chunks() / l.opsPerChunk() * l.chunkBytes(), r.bytes());
                assertTrue(r.skippedSteps() >= 3, r.toString());
            }
        }
    }

    @Test
    void aWrongByteIsAnErrorWithItsPlace() {
        ValidationLayout l = ValidationLayout.of(100, 32, 2, false);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buffer = arena.allocate(l.totalSize());
            l.initialize(buffer);
            buffer.asSlice(l.chunkOffset(1, 2), l.chunkBytes()).fill((byte) 1);
            buffer.set(ValueLayout.JAVA_BYTE, l.chunkOffset(1, 2) + 1234, (byte) 0x7f);
            Validators.Result r;
            try (Validators v = new Validators(l, buffer, false)) {
                MARKER.varHandle().setRelease(buffer, l.watchedMarkerOffset(l.markerIndex(1, 2)), 1L);
                v.start();
                r = v.stop();
            }
            assertFalse(r.passed());
            assertEquals(1, r.errors());
            assertEquals("first at QP 1, Chunk 2, Offset 34 (expected 0x01, got 0x7f)", r.firstError());
            String[] printed = print(r, "");
            assertEquals("", printed[0]);
            assertEquals("VALIDATION: FAILED - 1 error(s), first at QP 1, Chunk 2, Offset 34 (expected 0x01, got 0x7f)\n",
                    printed[1]);
        }
    }

    @Test
    void theNextPassAlreadyInTheChunkIsARaceNotAnError() {
        ValidationLayout l = ValidationLayout.of(100, 32, 1, false);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buffer = arena.allocate(l.totalSize());
            l.initialize(buffer);
            MemorySegment chunk = buffer.asSlice(l.chunkOffset(0, 0), l.chunkBytes());
            chunk.fill((byte) 2); // pass 2's writes overwrote the front of pass 1's chunk
            chunk.asSlice(5000).fill((byte) 1);
            Validators.Result r;
            try (Validators v = new Validators(l, buffer, false)) {
                MARKER.varHandle().setRelease(buffer, l.watchedMarkerOffset(0), 1L);
                v.start();
                r = v.stop();
            }
            assertTrue(r.passed(), r.toString());
            assertEquals(1, r.races());
            String[] printed = print(r, " (SERVER)");
            assertEquals("VALIDATION: PASSED (SERVER) - " + l.opsPerChunk() + " chunks, " + l.chunkBytes()
                    + " bytes [races=1, retries=0, skips=0, queue_full=0, stale_work=0]\n", printed[0]);
        }
    }

    @Test
    void nothingValidatedIsAWarning() {
        ValidationLayout l = ValidationLayout.of(65536, 128, 1, false);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buffer = arena.allocate(l.totalSize());
            l.initialize(buffer);
            Validators.Result r;
            try (Validators v = new Validators(l, buffer, true)) {
                v.start();
                r = v.stop();
            }
            assertFalse(r.passed());
            String[] printed = print(r, "", true);
            assertEquals("VALIDATION: WARNING - no data validated\n", printed[1]);
            assertTrue(printed[0].contains("--- Per-Validator Breakdown ---\n  Validator[0]: 0 slots (0.0%), "),
                    printed[0]);
        }
    }

    @Test
    void asManyValidatorsAsPerftestStarts() {
        ValidationLayout write = ValidationLayout.of(65536, 128, 1, false);
        assertEquals(1, Validators.count(write, 2));
        assertEquals(1, Validators.count(write, 1));
        assertEquals(4, Validators.count(write, 64));
        ValidationLayout read = ValidationLayout.of(65536, 128, 16, true);
        assertEquals(32, Validators.count(read, 256)); // 48 wanted, perftest's most is 32
        assertEquals(6, Validators.count(ValidationLayout.of(8 << 20, 128, 3, false), 64)); // two per queue pair
    }

    private static String[] print(Validators.Result r, String role) {
        return print(r, role, false);
    }

    private static String[] print(Validators.Result r, String role, boolean debug) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        r.print(role, debug, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new String[] {out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
    }
}
