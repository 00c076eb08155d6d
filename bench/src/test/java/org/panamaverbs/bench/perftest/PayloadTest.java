package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --payload_file_path}: 32-bit words little-endian, cut at {@code -s}, repeated through the buffer. */
class PayloadTest {

    @Test
    void wordsAreLittleEndianAndCutAtTheSize(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("p.txt"), "0x04030201,0x08070605\n0x0c0b0a09\n");
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, Payload.read(file, 64));
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6}, Payload.read(file, 6));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(10);
            Payload.fill(buffer, Payload.read(file, 4));
            assertArrayEquals(new byte[] {1, 2, 3, 4, 1, 2, 3, 4, 1, 2}, buffer.toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void malformedFilesAreRefusedInPerftestsWords(@TempDir Path dir) throws Exception {
        String[][] cases = {{"0x0403020,0x08070605", "Failed to parse DWORD number: 0"},
            {"0x04030201,0x0807060g", "Invalid hex char in DWORD number: 1"}, {"", "Payload size should be greater than 0"}};
        for (String[] c : cases) {
            Path file = Files.writeString(dir.resolve("bad.txt"), c[0]);
            PerftestException e = assertThrows(PerftestException.class, () -> Payload.read(file, 64));
            assertTrue(e.getMessage().startsWith(c[1]), e.getMessage());
        }
        PerftestException missing = assertThrows(PerftestException.class, () -> Payload.read(dir.resolve("x"), 64));
        assertTrue(missing.getMessage().startsWith("Failed to open"), missing.getMessage());
    }
}
