package com.ibm.disni.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import org.panamaverbs.verbs.MemoryRegion;

/**
 * What this module can tell about memory that DiSNI's API names by a raw address ({@code IbvPd.regMr(long, int,
 * int)}, {@code RdmaConnParam.setPrivate_data(long)}), which no Java object describes.
 *
 * <p>Checked: whether the bytes lie in a region registered through this module from a buffer, whose memory is alive
 * while the region is open (the region keeps its buffer reachable, and a buffer of an arena is refused): the bytes
 * must then lie wholly inside it, and they are read, or registered again, through that region's memory. Any other
 * address is trusted: nothing tells whether the
 * memory is still what the program meant. Bytes read from a trusted address are copied by the kernel (a
 * {@code write} to a pipe), which answers {@code EFAULT} for memory that is not mapped instead of the process
 * crashing on it; memory that was freed but is still mapped gives whatever it holds now.
 */
final class KnownMemory {

    private KnownMemory() {
    }

    /**
     * The memory of {@code [address, address + length)} as a slice of the open region registered through this
     * module from a buffer that holds its first byte, or null if no such region does.
     *
     * @throws IOException if such a region holds the first byte but not the last (the range runs past its buffer)
     */
    static MemorySegment slice(long address, long length, String what) throws IOException {
        for (IbvContext context : IbvContext.all()) {
            for (IbvMr mr : context.regions.values()) {
                MemoryRegion region = mr.pv;
                if (region == null || !mr.memoryKnown || region.isClosed()) {
                    continue;
                }
                MemorySegment memory;
                try {
                    memory = region.segment();
                } catch (IllegalStateException closedMeanwhile) {
                    continue;
                }
                long offset = address - memory.address();
                if (offset < 0 || offset >= memory.byteSize()) {
                    continue;
                }
                if (length > memory.byteSize() - offset) {
                    throw new IOException(what + ": " + length + " bytes at 0x" + Long.toHexString(address) + " start inside "
                            + "the buffer of the region with lkey 0x" + Integer.toHexString(mr.getLkey()) + " (" + memory.byteSize()
                            + " bytes at 0x" + Long.toHexString(memory.address()) + ") and run " + (length - (memory.byteSize() - offset))
                            + " bytes past its end: name memory within one buffer");
                }
                return memory.asSlice(offset, length);
            }
        }
        return null;
    }

    /**
     * A copy of the {@code length} bytes at {@code address}: read through the region they lie in (see
     * {@link #slice}), or else copied by the kernel from the trusted address.
     *
     * @throws IOException if the bytes run past their region's buffer, or the kernel finds no readable memory there
     *                     ({@code EFAULT})
     */
    static byte[] copy(long address, int length, String what) throws IOException {
        MemorySegment known = slice(address, length, what);
        return known != null ? known.toArray(JAVA_BYTE) : Kernel.copy(address, length, what);
    }

    /** The copy through a pipe: {@code write(2)} reads the caller's memory in the kernel, which answers EFAULT. */
    private static final class Kernel {
        private static final int O_CLOEXEC = 0x80000;
        private static final int EFAULT = 14;
        private static final Linker LINKER = Linker.nativeLinker();
        private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
        private static final long ERRNO = CAPTURE.byteOffset(MemoryLayout.PathElement.groupElement("errno"));
        private static final Linker.Option SAVE_ERRNO = Linker.Option.captureCallState("errno");
        private static final MethodHandle PIPE2 = LINKER.downcallHandle(symbol("pipe2"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), SAVE_ERRNO);
        /** The source address crosses as a number: Java itself never dereferences the trusted address. */
        private static final MethodHandle WRITE = LINKER.downcallHandle(symbol("write"),
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG), SAVE_ERRNO);
        private static final MethodHandle READ = LINKER.downcallHandle(symbol("read"),
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
        private static final MethodHandle CLOSE = LINKER.downcallHandle(symbol("close"),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT));

        private static MemorySegment symbol(String name) {
            return LINKER.defaultLookup().find(name).orElseThrow(() -> new IllegalStateException("libc has no " + name));
        }

        /** At most 255 bytes (a one-byte length), far below a pipe's capacity: the write never blocks. */
        static byte[] copy(long address, int length, String what) throws IOException {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment state = arena.allocate(CAPTURE);
                MemorySegment fds = arena.allocate(JAVA_INT, 2);
                if ((int) PIPE2.invokeExact(state, fds, O_CLOEXEC) != 0) {
                    throw new IOException(what + ": pipe2 failed with errno " + state.get(JAVA_INT, ERRNO)
                            + " while copying the bytes at 0x" + Long.toHexString(address));
                }
                int in = fds.getAtIndex(JAVA_INT, 0);
                int out = fds.getAtIndex(JAVA_INT, 1);
                try {
                    long written = (long) WRITE.invokeExact(state, out, address, (long) length);
                    if (written != length) {
                        int errno = written < 0 ? state.get(JAVA_INT, ERRNO) : EFAULT;
                        throw new IOException(what + ": the " + length + " bytes at 0x" + Long.toHexString(address)
                                + " are not readable memory (" + (errno == EFAULT ? "EFAULT" : "errno " + errno)
                                + "; the address is trusted: keep the memory alive and mapped until the call returns,"
                                + " or put the bytes in a buffer registered with IbvPd.regMr(ByteBuffer, int))");
                    }
                    MemorySegment bytes = arena.allocate(length);
                    long read = (long) READ.invokeExact(in, bytes, (long) length);
                    if (read != length) {
                        throw new IOException(what + ": copying " + length + " bytes through a pipe returned " + read);
                    }
                    return bytes.toArray(JAVA_BYTE);
                } finally {
                    int closedIn = (int) CLOSE.invokeExact(in);
                    int closedOut = (int) CLOSE.invokeExact(out);
                }
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }
    }
}
