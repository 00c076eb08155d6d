package org.panamaverbs.bench.perftest;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * perftest's {@code --mmap}: a test buffer that is a file, mapped shared and read-write ({@code mmap(MAP_SHARED)} at
 * {@code --mmap-offset}), for memory a driver exposes as a file (peer-to-peer transfers). Unlike C perftest, whose
 * first touch past the file's end faults, a file too short for the buffer is refused before anything is mapped.
 */
final class MappedFile {
    private MappedFile() {
    }

    /** {@code size} bytes of {@code file} from {@code offset}, mapped until {@code arena} closes. */
    static MemorySegment map(Path file, long offset, long size, Arena arena) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long length = channel.size();
            if (offset + size > length) {
                throw new PerftestException("Unable to mmap '" + file + "': it has " + length + " bytes, and the buffer"
                        + " needs " + size + " from offset " + offset + " (a touch past the end would fault)");
            }
            return channel.map(FileChannel.MapMode.READ_WRITE, offset, size, arena);
        } catch (NoSuchFileException e) {
            throw new PerftestException("Unable to open '" + file + "': No such file or directory (as perftest)");
        } catch (IOException e) {
            throw new PerftestException("Unable to open '" + file + "': " + e.getMessage() + " (as perftest)", e);
        }
    }
}
