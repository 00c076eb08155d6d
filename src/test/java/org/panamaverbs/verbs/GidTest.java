package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;

import org.junit.jupiter.api.Test;

class GidTest {

    @Test
    void ipv4IsMappedAsRoceDoes() throws Exception {
        Gid gid = Gid.of(InetAddress.getByName("10.250.0.1"));
        assertEquals("0000:0000:0000:0000:0000:ffff:0afa:0001", gid.toString());
        assertTrue(gid.isIpv4Mapped());
        assertFalse(gid.isLinkLocal());
        assertEquals(InetAddress.getByName("10.250.0.1"), gid.toInetAddress());
    }

    @Test
    void linkLocalGidFromMac() throws Exception {
        Gid gid = Gid.of(InetAddress.getByName("fe80::5054:ff:fe12:3456"));
        assertEquals("fe80:0000:0000:0000:5054:00ff:fe12:3456", gid.toString());
        assertTrue(gid.isLinkLocal());
        assertFalse(gid.isIpv4Mapped());
        assertFalse(gid.isZero());
    }

    @Test
    void bytesRoundTripInNetworkOrder() {
        byte[] raw = new byte[16];
        for (int i = 0; i < 16; i++) {
            raw[i] = (byte) (i * 17);
        }
        Gid gid = Gid.of(raw);
        assertArrayEquals(raw, gid.toBytes());
        assertEquals(0x0011223344556677L, gid.subnetPrefix());
        assertTrue(Gid.ZERO.isZero());
        assertThrows(IllegalArgumentException.class, () -> Gid.of(new byte[4]));
    }

    @Test
    void multicastGidsAreIpv6MulticastOrMappedIpv4Multicast() throws Exception {
        assertTrue(Gid.of(InetAddress.getByName("ff01:0:2:c985::")).isMulticast(), "perftest's group");
        assertTrue(Gid.of(InetAddress.getByName("ff12:401b::1")).isMulticast(), "IPoIB's broadcast group");
        assertTrue(Gid.of(InetAddress.getByName("224.0.0.1")).isMulticast());
        assertTrue(Gid.of(InetAddress.getByName("239.255.255.255")).isMulticast());
        assertFalse(Gid.of(InetAddress.getByName("240.0.0.1")).isMulticast());
        assertFalse(Gid.of(InetAddress.getByName("10.250.0.1")).isMulticast());
        assertFalse(Gid.of(InetAddress.getByName("fe80::1")).isMulticast());
        assertFalse(Gid.of(new byte[16]).isMulticast());
    }
}
