package org.panamaverbs.verbs;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.HexFormat;

/**
 * {@code union ibv_gid}: a 128-bit global identifier, held as two big-endian halves so it is immutable
 * and comparable. On RoCE a GID is an IPv6 address (or an IPv4 address mapped into {@code ::ffff:0:0/96}).
 *
 * @param subnetPrefix the first 8 bytes, as a big-endian long
 * @param interfaceId  the last 8 bytes, as a big-endian long
 */
public record Gid(long subnetPrefix, long interfaceId) {
    /** The all-zero GID ({@code ::}), which marks an empty GID table slot. */
    public static final Gid ZERO = new Gid(0, 0);

    private static final ValueLayout.OfLong BIG_ENDIAN_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * Reads 16 bytes of a native {@code union ibv_gid} at {@code offset}.
     *
     * @param segment memory holding the GID in network byte order (native, or a heap segment)
     * @param offset  the byte offset of the GID's first byte in {@code segment}
     * @return the GID
     * @throws IndexOutOfBoundsException if the 16 bytes do not lie inside {@code segment}
     */
    public static Gid read(MemorySegment segment, long offset) {
        return new Gid(segment.get(BIG_ENDIAN_LONG, offset), segment.get(BIG_ENDIAN_LONG, offset + 8));
    }

    /**
     * Writes the 16 bytes at {@code offset}, in network byte order as {@code union ibv_gid} holds them.
     *
     * @param segment writable memory, for example the {@code dgid} of a native {@code ibv_global_route}
     * @param offset  the byte offset of the GID's first byte in {@code segment}
     * @throws IndexOutOfBoundsException if the 16 bytes do not lie inside {@code segment}
     * @throws UnsupportedOperationException if {@code segment} is read-only
     */
    public void write(MemorySegment segment, long offset) {
        segment.set(BIG_ENDIAN_LONG, offset, subnetPrefix);
        segment.set(BIG_ENDIAN_LONG, offset + 8, interfaceId);
    }

    /**
     * From 16 raw bytes in network order.
     *
     * @param raw the GID's 16 bytes, most significant first (as {@link #toBytes()} gives them); not kept
     * @return the GID
     * @throws IllegalArgumentException if {@code raw} does not have 16 bytes
     */
    public static Gid of(byte[] raw) {
        if (raw.length != 16) {
            throw new IllegalArgumentException("a GID has 16 bytes, not " + raw.length);
        }
        return read(MemorySegment.ofArray(raw), 0);
    }

    /**
     * From an IP address: IPv6 as is, IPv4 mapped into {@code ::ffff:a.b.c.d} as RoCE does.
     *
     * @param address an IP address, e.g. of the peer's RoCE interface (on RoCE the GID table holds GIDs
     *                made from the interface's addresses); not null
     * @return the GID for that address
     */
    public static Gid of(InetAddress address) {
        byte[] bytes = address.getAddress();
        if (bytes.length == 4) {
            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xff;
            mapped[11] = (byte) 0xff;
            System.arraycopy(bytes, 0, mapped, 12, 4);
            return of(mapped);
        }
        return of(bytes);
    }

    /** {@return the 16 bytes in network order, in a new array} */
    public byte[] toBytes() {
        byte[] raw = new byte[16];
        write(MemorySegment.ofArray(raw), 0);
        return raw;
    }

    /** {@return whether this is {@code ::}, an unused table slot} */
    public boolean isZero() {
        return subnetPrefix == 0 && interfaceId == 0;
    }

    /**
     * {@return whether this is an IPv4-mapped address ({@code ::ffff:a.b.c.d}), as RoCE makes GIDs of IPv4 addresses}
     */
    public boolean isIpv4Mapped() {
        return subnetPrefix == 0 && (interfaceId >>> 32) == 0xffffL;
    }

    /**
     * {@return whether this is a multicast group's GID} An IPv6 multicast address ({@code ff00::/8}, which is also
     * InfiniBand's multicast GID prefix) or an IPv4-mapped one of {@code 224.0.0.0/4}: the kernel's test at
     * {@code ibv_attach_mcast}.
     */
    public boolean isMulticast() {
        return (subnetPrefix >>> 56) == 0xffL || isIpv4Mapped() && (interfaceId >>> 28 & 0xf) == 0xe;
    }

    /**
     * {@return whether this is an IPv6 link-local address ({@code fe80::/10}), the default GID of a RoCE port}
     * Such GIDs do not cross IP routers.
     */
    public boolean isLinkLocal() {
        return (subnetPrefix >>> 54) == (0xfe80L >>> 6);
    }

    /**
     * The GID as an IP address (IPv4 for mapped addresses).
     *
     * @return an {@link java.net.Inet4Address} for an IPv4-mapped GID, else an {@link Inet6Address} without scope
     */
    public InetAddress toInetAddress() {
        try {
            byte[] raw = toBytes();
            if (isIpv4Mapped()) {
                return InetAddress.getByAddress(new byte[] {raw[12], raw[13], raw[14], raw[15]});
            }
            return Inet6Address.getByAddress(null, raw, null);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // cannot happen for 4 or 16 bytes
        }
    }

    /** Colon-separated hex as {@code ibv_devinfo -v} prints GIDs: {@code fe80:0000:0000:0000:0250:56ff:feb2:668c}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            long half = i < 4 ? subnetPrefix : interfaceId;
            int shift = 48 - 16 * (i % 4);
            if (i > 0) {
                sb.append(':');
            }
            sb.append(HexFormat.of().toHexDigits((short) (half >>> shift)));
        }
        return sb.toString();
    }
}
