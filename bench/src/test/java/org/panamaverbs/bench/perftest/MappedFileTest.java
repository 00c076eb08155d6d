package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --mmap}: the buffer is the file's bytes, shared both ways; a missing or short file is refused first. */
class MappedFileTest {

    @Test
    void theBufferIsTheFileFromTheOffset(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("p2p");
        byte[] content = new byte[3 * 4096];
        content[4096] = 42;
        Files.write(file, content);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buffer = MappedFile.map(file, 4096, 8192, arena);
            assertEquals(8192, buffer.byteSize());
            assertEquals(42, buffer.get(ValueLayout.JAVA_BYTE, 0), "the file's byte at the offset");
            buffer.set(ValueLayout.JAVA_BYTE, 1, (byte) 7); // MAP_SHARED: a write reaches the file
        }
        assertEquals(7, Files.readAllBytes(file)[4097]);
        assertEquals(3 * 4096, Files.size(file), "the file keeps its size");
    }

    @Test
    void aShortOrMissingFileIsRefusedBeforeAnythingIsMapped(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("short");
        Files.write(file, new byte[4096]);
        try (Arena arena = Arena.ofShared()) {
            PerftestException shortFile = assertThrows(PerftestException.class,
                    () -> MappedFile.map(file, 0, 8192, arena));
            assertTrue(shortFile.getMessage().contains("it has 4096 bytes, and the buffer needs 8192 from offset 0"),
                    shortFile.getMessage());
            PerftestException missing = assertThrows(PerftestException.class,
                    () -> MappedFile.map(dir.resolve("none"), 0, 4096, arena));
            assertTrue(missing.getMessage().contains("No such file or directory"), missing.getMessage());
        }
        assertEquals(4096, Files.size(file), "not extended");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "--mmap", file.toString(), "--use_hugepages"),
                1, "Can't use multiple memory types");
    }
}
