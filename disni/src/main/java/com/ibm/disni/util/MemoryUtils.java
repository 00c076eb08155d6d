package com.ibm.disni.util;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.util.MemoryUtils}: the native address of a direct
 * buffer, as the SGEs and memory registrations of DiSNI programs need it.
 *
 * <p>DiSNI cast to {@code sun.nio.ch.DirectBuffer}, which fails on JDK 16 and later without
 * {@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED}; this class asks the Foreign Function and Memory
 * API ({@code MemorySegment.ofBuffer}) instead and needs no flag at all (not even
 * {@code --enable-native-access}). Wraps no C call.
 */
public class MemoryUtils {

    /** DiSNI 2.1 has this public constructor; every method is static. */
    public MemoryUtils() {
    }

    /**
     * Returns the native address of element 0 of a direct buffer, as DiSNI did: the base of the buffer's
     * memory plus, for a slice, the slice's offset; position and limit are ignored. The address is valid
     * only while the buffer is reachable (a direct buffer's memory is freed when it is collected, a mapped
     * buffer's when it is unmapped): keep the buffer referenced for as long as the address is in use, in
     * particular until every work request naming it has completed.
     *
     * @param buffer a direct buffer (read-only and mapped buffers included)
     * @return the address of {@code buffer}'s element 0
     * @throws IllegalArgumentException if the buffer is not direct (DiSNI 2.1 threw
     *         {@code ClassCastException} there)
     * @throws NullPointerException if {@code buffer} is null
     */
    public static long getAddress(ByteBuffer buffer) {
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException("not a direct buffer (" + buffer
                    + "): only the memory of direct buffers has a fixed native address");
        }
        // ofBuffer's segment starts at the buffer's position; DiSNI's address is that of element 0.
        return MemorySegment.ofBuffer(buffer).address() - buffer.position();
    }
}
