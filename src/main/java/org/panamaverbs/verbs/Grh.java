package org.panamaverbs.verbs;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The 40 bytes every unreliable-datagram receive buffer starts with ({@code IBV_WC_GRH} in the
 * completion's flags): an InfiniBand global route header, or on RoCE v2 over IPv4 an IPv4 header in its
 * last 20 bytes. Post UD receive buffers {@link #SIZE} bytes larger than the largest message.
 */
public final class Grh {
    /** Bytes reserved at the start of every UD receive buffer. */
    public static final int SIZE = 40;
    private static final int IPV4_HEADER_OFFSET = 20;
    private static final int GRH_SGID_OFFSET = 8;
    private static final int GRH_DGID_OFFSET = 24;
    private static final int IPV4_SOURCE_OFFSET = 12;
    private static final int IPV4_DESTINATION_OFFSET = 16;
    private static final ValueLayout.OfInt BIG_ENDIAN_INT =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort BIG_ENDIAN_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    private Grh() {
    }

    /**
     * libibverbs' rule ({@code ibv_init_ah_from_wc}): a header whose first word does not say IP version 6 is
     * IPv4 if its byte 20 says version 4; one that says 6 is IPv4 only if byte 20 starts a 20-byte IPv4
     * header with a valid checksum (an IPv6 GRH's SGID may hold anything there).
     */
    private static boolean isIpv4(MemorySegment buffer, long offset) {
        byte versionAndLength = buffer.get(ValueLayout.JAVA_BYTE, offset + IPV4_HEADER_OFFSET);
        int grhVersion = (buffer.get(ValueLayout.JAVA_BYTE, offset) >> 4) & 0xf;
        if (grhVersion != 6) {
            return ((versionAndLength >> 4) & 0xf) == 4;
        }
        return versionAndLength == 0x45 && ipv4ChecksumValid(buffer, offset + IPV4_HEADER_OFFSET);
    }

    /** Whether the 20 bytes at {@code at} sum, as big-endian 16-bit words in ones' complement, to 0xffff. */
    private static boolean ipv4ChecksumValid(MemorySegment buffer, long at) {
        int sum = 0;
        for (int i = 0; i < IPV4_HEADER_OFFSET; i += 2) {
            sum += Short.toUnsignedInt(buffer.get(BIG_ENDIAN_SHORT, at + i));
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xffff) + (sum >>> 16);
        }
        return sum == 0xffff;
    }

    /**
     * The sender's GID, from the GRH at {@code offset} of {@code buffer}: the IPv4 source address
     * (mapped to {@code ::ffff:a.b.c.d}) when the header is IPv4 (RoCE v2 over IPv4), else the GRH's SGID.
     * The header counts as IPv4 as libibverbs decides it ({@code ibv_init_ah_from_wc}): when its first word
     * does not say IP version 6 and its byte 20 says version 4, or when the first word says 6 and byte 20
     * starts a 20-byte IPv4 header ({@code 0x45}) with a valid checksum; so an InfiniBand or RoCE GRH whose
     * SGID merely has {@code 0x45} at that place is read as a GRH.
     *
     * @param buffer the memory of a completed UD receive (for example its region's {@link MemoryRegion#segment()})
     * @param offset the byte offset in {@code buffer} where the receive's first scatter-gather entry began:
     *               the first of the {@link #SIZE} header bytes
     * @return the sender's GID, for example to create an {@link AddressHandle} that replies to it
     * @throws IndexOutOfBoundsException if the {@link #SIZE} bytes at {@code offset} do not lie inside {@code buffer}
     */
    public static Gid sourceGid(MemorySegment buffer, long offset) {
        return address(buffer, offset, IPV4_SOURCE_OFFSET, GRH_SGID_OFFSET);
    }

    /**
     * The GID the datagram was sent to, from the GRH at {@code offset} of {@code buffer}, read as
     * {@link #sourceGid} reads the sender's: the receiving queue pair's own GID, or the group's for a datagram sent
     * to a multicast group the queue pair is attached to ({@link QueuePair#attachMulticast}).
     *
     * @param buffer the memory of a completed UD receive
     * @param offset the byte offset in {@code buffer} where the receive's first scatter-gather entry began
     * @return the destination GID (IPv4-mapped when the header is IPv4)
     * @throws IndexOutOfBoundsException if the {@link #SIZE} bytes at {@code offset} do not lie inside {@code buffer}
     */
    public static Gid destinationGid(MemorySegment buffer, long offset) {
        return address(buffer, offset, IPV4_DESTINATION_OFFSET, GRH_DGID_OFFSET);
    }

    /**
     * The traffic class the sender's packets carried ({@link AddressHandle.Target#trafficClass()}, or on a connection
     * {@link QpConnectOptions#trafficClass()}): the IPv4 header's type of service when the header is IPv4 (read as
     * {@link #sourceGid} decides it), else the GRH's traffic class.
     *
     * @param buffer the memory of a completed UD receive
     * @param offset the byte offset in {@code buffer} where the receive's first scatter-gather entry began
     * @return 0..255
     * @throws IndexOutOfBoundsException if the {@link #SIZE} bytes at {@code offset} do not lie inside {@code buffer}
     */
    public static int trafficClass(MemorySegment buffer, long offset) {
        if (isIpv4(buffer, offset)) {
            return Byte.toUnsignedInt(buffer.get(ValueLayout.JAVA_BYTE, offset + IPV4_HEADER_OFFSET + 1));
        }
        return (firstWord(buffer, offset) >>> 20) & 0xff; // version 4 bits, traffic class 8, flow label 20
    }

    /**
     * The flow label of the sender's packets: the GRH's, or 0 when the header is IPv4 (which has none).
     *
     * @param buffer the memory of a completed UD receive
     * @param offset the byte offset in {@code buffer} where the receive's first scatter-gather entry began
     * @return 0..0xFFFFF
     * @throws IndexOutOfBoundsException if the {@link #SIZE} bytes at {@code offset} do not lie inside {@code buffer}
     */
    public static int flowLabel(MemorySegment buffer, long offset) {
        return isIpv4(buffer, offset) ? 0 : firstWord(buffer, offset) & 0xFFFFF;
    }

    private static int firstWord(MemorySegment buffer, long offset) {
        return buffer.get(BIG_ENDIAN_INT, offset);
    }

    private static Gid address(MemorySegment buffer, long offset, int ipv4Offset, int grhOffset) {
        if (isIpv4(buffer, offset)) {
            byte[] ipv4 = buffer.asSlice(offset + IPV4_HEADER_OFFSET + ipv4Offset, 4).toArray(ValueLayout.JAVA_BYTE);
            try {
                return Gid.of(InetAddress.getByAddress(ipv4));
            } catch (UnknownHostException e) {
                throw new IllegalStateException(e); // cannot happen for 4 bytes
            }
        }
        return Gid.read(buffer, offset + grhOffset);
    }
}
