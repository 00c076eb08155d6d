package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The layout of {@code --data_validation}'s buffer against perftest 26.04's own formulas, evaluated in C. */
class ValidationLayoutTest {
    @Test
    void everyLayoutIsPerftests() throws IOException {
        List<String> rows;
        try (InputStream in = getClass().getResourceAsStream("validation-layouts.csv")) {
            rows = new String(in.readAllBytes(), StandardCharsets.US_ASCII).lines().filter(l -> !l.startsWith("#")).toList();
        }
        assertEquals(216, rows.size());
        for (String row : rows) {
            long[] v = java.util.Arrays.stream(row.split(",")).mapToLong(Long::parseLong).toArray();
            ValidationLayout l = ValidationLayout.of(v[0], (int) v[1], (int) v[2], v[3] == 1);
            assertEquals(v[4], l.opsPerChunk(), row);
            assertEquals(v[5], l.chunksPerQp(), row);
            assertEquals(v[6], l.markersOffset(), row);
            assertEquals(v[7], l.slotsOffset(), row);
            assertEquals(v[8], l.returnsOffset(), row);
            assertEquals(v[9], l.totalSize(), row);
        }
    }

    @Test
    void placesOfEachQueuePairAndChunk() {
        ValidationLayout write = ValidationLayout.of(65536, 128, 2, false); // 8 MiB chunks, 8 per queue pair
        assertEquals(128, write.opsPerChunk());
        assertEquals(8, write.chunksPerQp());
        assertEquals(write.slotsOffset() + 1024L * 65536, write.ringOffset(1));
        assertEquals(write.ringOffset(1) + 3 * write.chunkBytes(), write.chunkOffset(1, 3));
        assertEquals(11, write.markerIndex(1, 3));
        assertEquals(write.markersOffset() + 11 * 8, write.watchedMarkerOffset(11));
        assertEquals(write.returnsOffset() + 8, write.returnOffset(1, 11)); // WRITE: one return value per queue pair
        assertEquals(write.ringOffset(1), write.offeredOffset(1));
        ValidationLayout read = ValidationLayout.of(65536, 128, 2, true);
        assertEquals(read.returnsOffset() + 11 * 8, read.watchedMarkerOffset(11)); // READ watches what came back
        assertEquals(read.returnsOffset() + 11 * 8, read.returnOffset(1, 11));
        assertEquals(0, read.offeredOffset(1)); // the patterns
    }

    @Test
    void initializeWritesThePatternsAndReadsMarkers() {
        try (Arena arena = Arena.ofConfined()) {
            for (boolean read : new boolean[] {false, true}) {
                ValidationLayout l = ValidationLayout.of(100, 32, 1, read);
                MemorySegment buffer = arena.allocate(l.totalSize()).fill((byte) 0x55);
                l.initialize(buffer);
                for (int p = 0; p < 3; p++) {
                    assertEquals(-1, buffer.asSlice(p * 100L, 100).mismatch(arena.allocate(100).fill((byte) (p + 1))));
                }
                assertEquals(read ? 1 : 0, buffer.get(ValueLayout.JAVA_LONG, l.markersOffset()));
                assertEquals(0, buffer.get(ValueLayout.JAVA_BYTE, l.slotsOffset()));
            }
        }
        assertEquals(1, ValidationLayout.pattern(0));
        assertEquals(3, ValidationLayout.pattern(2));
        assertEquals(1, ValidationLayout.pattern(3));
        assertTrue(ValidationLayout.of(64, 32, 1, false).describe(32).startsWith(
                "[DATA_VALIDATION] validation_chunk_size=1024 (tx_depth=32), chunk_bytes=65536, chunks_per_qp=24"));
    }
}
