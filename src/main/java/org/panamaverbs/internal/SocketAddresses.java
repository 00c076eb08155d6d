package org.panamaverbs.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/**
 * {@code struct sockaddr_in} / {@code sockaddr_in6} from and to {@link InetSocketAddress}, for rdma_cm's
 * address arguments and {@code cm_id->route.addr}. Linux x86_64/aarch64 layouts: family in host order,
 * port in network order.
 */
public final class SocketAddresses {
    /** {@code AF_INET}. */
    public static final short AF_INET = 2;
    /** {@code AF_INET6}. */
    public static final short AF_INET6 = 10;
    /** {@code sizeof(struct sockaddr_storage)}: enough for either family. */
    public static final long STORAGE_SIZE = 128;

    private static final ValueLayout.OfShort PORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private SocketAddresses() {
    }

    /**
     * Writes {@code address} at the start of {@code storage} (at least {@link #STORAGE_SIZE} bytes, zeroed).
     *
     * @throws IllegalArgumentException for an unresolved host name
     */
    public static void write(InetSocketAddress address, MemorySegment storage) {
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("cannot resolve host " + address.getHostString()
                    + ": give an address, or a name the resolver knows");
        }
        storage.fill((byte) 0);
        InetAddress ip = address.getAddress();
        if (ip instanceof Inet4Address) {
            storage.set(ValueLayout.JAVA_SHORT, 0, AF_INET);
            storage.set(PORT, 2, (short) address.getPort());
            MemorySegment.copy(MemorySegment.ofArray(ip.getAddress()), 0, storage, 4, 4);
        } else {
            storage.set(ValueLayout.JAVA_SHORT, 0, AF_INET6);
            storage.set(PORT, 2, (short) address.getPort());
            MemorySegment.copy(MemorySegment.ofArray(ip.getAddress()), 0, storage, 8, 16);
            storage.set(ValueLayout.JAVA_INT, 24, ((Inet6Address) ip).getScopeId());
        }
    }

    /** Reads a {@code struct sockaddr} of family AF_INET or AF_INET6; null for any other family (e.g. unset). */
    public static InetSocketAddress read(MemorySegment sockaddr) {
        MemorySegment s = sockaddr.reinterpret(STORAGE_SIZE);
        short family = s.get(ValueLayout.JAVA_SHORT, 0);
        int port = Short.toUnsignedInt(s.get(PORT, 2));
        try {
            if (family == AF_INET) {
                return new InetSocketAddress(InetAddress.getByAddress(s.asSlice(4, 4).toArray(ValueLayout.JAVA_BYTE)), port);
            }
            if (family == AF_INET6) {
                byte[] raw = s.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE);
                return new InetSocketAddress(Inet6Address.getByAddress(null, raw, s.get(ValueLayout.JAVA_INT, 24)), port);
            }
            return null;
        } catch (UnknownHostException e) {
            throw new IllegalStateException("unreadable socket address", e);
        }
    }
}
