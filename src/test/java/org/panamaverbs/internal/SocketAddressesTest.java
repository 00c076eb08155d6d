package org.panamaverbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.junit.jupiter.api.Test;

/** {@code sockaddr_in} / {@code sockaddr_in6} as rdma_cm reads them: family in host order, port in network order. */
class SocketAddressesTest {
    @Test
    void ipv4IsASockaddrIn() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(SocketAddresses.STORAGE_SIZE);
            InetSocketAddress a = new InetSocketAddress(InetAddress.getByName("10.250.0.1"), 7471);
            SocketAddresses.write(a, s);
            assertEquals(SocketAddresses.AF_INET, s.get(ValueLayout.JAVA_SHORT, 0));
            assertEquals((byte) 0x1d, s.get(ValueLayout.JAVA_BYTE, 2), "7471 = 0x1d2f, big-endian");
            assertEquals((byte) 0x2f, s.get(ValueLayout.JAVA_BYTE, 3));
            assertEquals((byte) 10, s.get(ValueLayout.JAVA_BYTE, 4));
            assertEquals((byte) 1, s.get(ValueLayout.JAVA_BYTE, 7));
            assertEquals(a, SocketAddresses.read(s));
        }
    }

    @Test
    void ipv6IsASockaddrIn6WithScope() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(SocketAddresses.STORAGE_SIZE);
            InetSocketAddress a = new InetSocketAddress(InetAddress.getByName("fe80::5054:ff:fe12:3456"), 18515);
            SocketAddresses.write(a, s);
            assertEquals(SocketAddresses.AF_INET6, s.get(ValueLayout.JAVA_SHORT, 0));
            assertEquals((byte) 0xfe, s.get(ValueLayout.JAVA_BYTE, 8));
            assertEquals((byte) 0x56, s.get(ValueLayout.JAVA_BYTE, 23));
            assertEquals(a, SocketAddresses.read(s));
            InetSocketAddress wildcard = new InetSocketAddress(InetAddress.getByName("::"), 0);
            SocketAddresses.write(wildcard, s);
            assertEquals(wildcard, SocketAddresses.read(s));
        }
    }

    @Test
    void unsetAndUnresolvedAddresses() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(SocketAddresses.STORAGE_SIZE);
            assertNull(SocketAddresses.read(s), "family 0: not bound yet");
            assertThrows(IllegalArgumentException.class,
                    () -> SocketAddresses.write(InetSocketAddress.createUnresolved("no.such.host.invalid", 1), s));
        }
    }
}
