package com.ibm.disni.util;

import java.nio.ByteBuffer;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.util.MemBuf}: a direct, native-order scratch buffer
 * lent by {@link MemoryAllocation}. Wraps no C call.
 *
 * <p>The memory stays valid while the buffer is reachable; after {@link #free()} it may be lent to the
 * next {@link MemoryAllocation#allocate(int)} of the same size class, so stop using it (and its
 * {@link #address()}) once freed. A reused buffer is not zeroed, as in DiSNI.
 */
public class MemBuf {

    private final long address;
    private final ByteBuffer buffer;
    private final MemoryAllocation memAlloc;

    MemBuf(ByteBuffer buffer, MemoryAllocation memAlloc) {
        this.buffer = buffer;
        this.memAlloc = memAlloc;
        this.address = MemoryUtils.getAddress(buffer);
    }

    /**
     * Returns the native address of the buffer's first byte.
     *
     * @return the address, valid until {@link #free()} and while this object is reachable
     */
    public final long address() {
        return address;
    }

    /**
     * Returns the buffer itself (direct, native byte order, capacity {@link #size()}).
     *
     * @return the buffer
     */
    public final ByteBuffer getBuffer() {
        return buffer;
    }

    /**
     * Returns the capacity: the requested size rounded up to a power of two, at least 64.
     *
     * @return the size in bytes
     */
    public final int size() {
        return buffer.capacity();
    }

    /** Clears the buffer's position and limit and hands it back to the pool. */
    public void free() {
        buffer.clear();
        memAlloc.free(this);
    }
}
