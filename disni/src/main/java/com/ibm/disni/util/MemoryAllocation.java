package com.ibm.disni.util;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.util.MemoryAllocation}: the process-wide pool of
 * scratch buffers ({@link MemBuf}), keyed by size rounded up to a power of two (at least 64 bytes), with
 * at most one idle buffer kept per size. Thread-safe. Wraps no C call: buffers are
 * {@link ByteBuffer#allocateDirect(int) direct buffers} in native byte order, freed by the garbage
 * collector once neither the pool nor a user holds them.
 *
 * <p>The verbs layer of this module does not use it (its stateful verb calls serialise into native memory
 * of their own); it is kept for programs that do.
 */
public class MemoryAllocation {

    private static final int MIN_BLOCK_SIZE = 64;
    private static MemoryAllocation instance;

    private final ConcurrentSkipListMap<Integer, MemBuf> table = new ConcurrentSkipListMap<>();

    private MemoryAllocation() {
    }

    /**
     * Returns the pool of this JVM.
     *
     * @return the single instance
     */
    public static synchronized MemoryAllocation getInstance() {
        if (instance == null) {
            instance = new MemoryAllocation();
        }
        return instance;
    }

    /**
     * Lends a buffer of at least {@code size} bytes: the idle one of that size class, or a new one.
     *
     * @param size the bytes needed, at most 2^30
     * @return a buffer with position 0 and limit = capacity; its old contents are not cleared
     * @throws IllegalArgumentException if {@code size} is negative or above 2^30
     */
    public MemBuf allocate(int size) {
        int rounded = roundUpSize(size);
        MemBuf idle = table.remove(rounded);
        if (idle != null) {
            return idle;
        }
        ByteBuffer buffer = ByteBuffer.allocateDirect(rounded).order(ByteOrder.nativeOrder());
        return new MemBuf(buffer, this);
    }

    void free(MemBuf buffer) {
        table.putIfAbsent(buffer.size(), buffer);
    }

    private int roundUpSize(int size) {
        if (size < 0 || size > (1 << 30)) {
            throw new IllegalArgumentException("size " + size + " outside 0..2^30");
        }
        if (size <= MIN_BLOCK_SIZE) {
            return MIN_BLOCK_SIZE;
        }
        return Integer.highestOneBit(size - 1) << 1;
    }
}
