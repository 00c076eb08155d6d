package org.panamaverbs.cm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import org.panamaverbs.verbs.MemoryRegion;

/**
 * What a peer needs to RDMA READ or WRITE a registered region of this side: its virtual address, its
 * length and its remote key. Send it with {@link ExchangeMessage} over {@link EndpointExchange}, or (later)
 * in rdma_cm private data; both use the same {@value #BYTES}-byte wire form.
 *
 * <p>Wire form, big-endian (network order), no padding:
 * <pre>
 * offset  size  field
 *      0     8  address  u64, the region's first byte (its iova)
 *      8     8  length   u64, in bytes; at most 2^63-1
 *     16     4  rkey     u32
 * </pre>
 *
 * <p>Validation: the length must be at most {@code 2^63-1} (a Java segment cannot be longer, so a
 * larger value is refused as garbage rather than read as a negative long), and the region must not wrap
 * past the top of the 64-bit address space. The address is unsigned; the rkey is any 32-bit value.
 * Immutable and thread-safe.
 *
 * @param address the virtual address of the first byte, unsigned
 * @param length  the length in bytes, {@code >= 0}
 * @param rkey    the remote key, as {@link MemoryRegion#rkey()} gives it
 */
public record RemoteRegion(long address, long length, int rkey) {
    /** The size of the wire form: u64 address, u64 length, u32 rkey. */
    public static final int BYTES = 20;

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * Checks the length and that the region does not wrap.
     *
     * @throws IllegalArgumentException if the length is negative or the region wraps past 2^64
     */
    public RemoteRegion {
        if (length < 0) {
            throw new IllegalArgumentException("region length " + Long.toUnsignedString(length)
                    + " exceeds 2^63-1 bytes");
        }
        // The last byte must not be below the first: the region may not wrap around the address space.
        if (length > 0 && Long.compareUnsigned(address + length - 1, address) < 0) {
            throw new IllegalArgumentException("region of " + length + " bytes at 0x" + Long.toHexString(address)
                    + " wraps past the end of the 64-bit address space");
        }
    }

    /**
     * The address, length and remote key of {@code region}, to give a peer.
     *
     * @param region a registered region with the remote access the peer needs (remote read and/or write);
     *               it must stay registered for as long as the peer may use the returned description
     * @return the region's address, length and rkey; the region itself is not referenced
     */
    public static RemoteRegion of(MemoryRegion region) {
        return new RemoteRegion(region.address(), region.length(), region.rkey());
    }

    /**
     * Writes the {@value #BYTES}-byte wire form at {@code offset}.
     *
     * @param segment the segment to write into, writable (a heap segment of a byte array works)
     * @param offset  the byte offset in {@code segment} of the first byte written; no alignment needed
     * @throws IndexOutOfBoundsException if the segment has fewer than {@value #BYTES} bytes from {@code offset}
     */
    public void writeTo(MemorySegment segment, long offset) {
        segment.set(U64, offset, address);
        segment.set(U64, offset + 8, length);
        segment.set(U32, offset + 16, rkey);
    }

    /**
     * Reads the {@value #BYTES}-byte wire form at {@code offset}.
     *
     * @param segment the received bytes
     * @param offset  the byte offset in {@code segment} of the wire form's first byte, {@code >= 0}; no
     *                alignment needed
     * @return the region the bytes describe
     * @throws IllegalArgumentException if fewer than {@value #BYTES} bytes follow {@code offset}, or the values
     *                                  are invalid; the message names the byte offset
     */
    public static RemoteRegion readFrom(MemorySegment segment, long offset) {
        if (offset < 0 || segment.byteSize() - offset < BYTES) {
            throw new IllegalArgumentException("a remote region needs " + BYTES + " bytes at byte " + offset
                    + ", but the input has " + segment.byteSize() + " bytes");
        }
        long address = segment.get(U64, offset);
        long length = segment.get(U64, offset + 8);
        int rkey = segment.get(U32, offset + 16);
        if (length < 0) {
            throw new IllegalArgumentException("region length " + Long.toUnsignedString(length) + " at byte "
                    + (offset + 8) + " exceeds 2^63-1 bytes");
        }
        try {
            return new RemoteRegion(address, length, rkey);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + " (remote region at byte " + offset + ")", e);
        }
    }

    /** Address and rkey in hex, as one would compare them with a C peer's log. */
    @Override
    public String toString() {
        return "RemoteRegion[address=0x" + Long.toHexString(address) + ", length=" + length
                + ", rkey=0x" + Integer.toHexString(rkey) + "]";
    }
}
