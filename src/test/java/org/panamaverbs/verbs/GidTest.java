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
}
