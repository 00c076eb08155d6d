package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/**
 * {@code --use_hugepages} without a device: sizes rounded to whole 2 MiB pages as perftest's, and the memory itself
 * where this machine has hugepages free, else perftest's refusal in one line.
 */
class HugePagesTest {
    @Test
    void sizesAreWholeHugepages() {
        assertEquals(2L << 20, HugePages.rounded(1));
        assertEquals(2L << 20, HugePages.rounded(2L << 20));
        assertEquals(4L << 20, HugePages.rounded((2L << 20) + 1));
    }

    @Test
    void hugepagesOrPerftestsRefusal() throws Exception {
        long free = Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("HugePages_Free:"))
                .mapToLong(l -> Long.parseLong(l.replaceAll("[^0-9]", ""))).findFirst().orElse(0);
        if (free == 0) {
            PerftestException e = assertThrows(PerftestException.class, () -> HugePages.allocate(8192));
            assertTrue(e.getMessage().startsWith("Failed to allocate hugepages. Please configure hugepages"),
                    e.getMessage());
            assertEquals(1, e.getMessage().lines().count());
            return;
        }
        MemorySegment memory = HugePages.allocate(8192);
        assertEquals(2L << 20, memory.byteSize());
        assertEquals(0, memory.address() % (2L << 20));
        assertEquals(0, memory.get(java.lang.foreign.ValueLayout.JAVA_LONG, 8192));
        HugePages.free(memory);
    }

    @Test
    void theLoopbackModeRefusesIt() {
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "--use_hugepages", "--loopback"), 1,
                "--use_hugepages with --loopback");
    }
}
