package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** How {@link Grh#sourceGid} and {@link Grh#destinationGid} tell a RoCE v2 IPv4 header from a GRH, without a device. */
class GrhTest {

    /** A 40-byte receive header whose last 20 bytes are an IPv4 header from {@code source}, checksum filled in. */
    private static byte[] ipv4Header(byte[] source) {
        byte[] h = new byte[Grh.SIZE];
        int ip = 20;
        h[ip] = 0x45;
        h[ip + 3] = 60; // total length
        h[ip + 8] = 64; // TTL
        h[ip + 9] = 17; // UDP
        System.arraycopy(source, 0, h, ip + 12, 4);
        h[ip + 16] = 10;
        h[ip + 19] = 2;
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += ((h[ip + i] & 0xff) << 8) | (h[ip + i + 1] & 0xff);
        }
        sum = (sum & 0xffff) + (sum >>> 16);
        sum = (sum & 0xffff) + (sum >>> 16);
        int checksum = ~sum & 0xffff;
        h[ip + 10] = (byte) (checksum >>> 8);
        h[ip + 11] = (byte) checksum;
        return h;
    }

    @Test
    void ipv4HeaderGivesTheMappedSourceAddress() throws Exception {
        // RoCE v2 over IPv4 (rxe): the first 20 bytes are not an IPv6 header; no checksum is looked at
        byte[] header = ipv4Header(new byte[] {10, (byte) 250, 0, 1});
        header[20 + 10] = 0;
        header[20 + 11] = 0;
        assertEquals(Gid.of(InetAddress.getByName("10.250.0.1")), Grh.sourceGid(MemorySegment.ofArray(header), 0));
    }

    @Test
    void grhWhoseSgidHas0x45WhereIpv4WouldStartIsReadAsAGrh() {
        // an InfiniBand / RoCE v1 GRH: version 6, SGID at bytes 8..23; SGID byte 12 is header byte 20
        byte[] header = new byte[Grh.SIZE];
        header[0] = 0x60;
        byte[] sgid = new byte[16];
        sgid[0] = (byte) 0xfe;
        sgid[1] = (byte) 0x80;
        sgid[12] = 0x45;
        sgid[15] = 7;
        System.arraycopy(sgid, 0, header, 8, 16);
        assertEquals(Gid.of(sgid), Grh.sourceGid(MemorySegment.ofArray(header), 0));
    }

    @Test
    void ipv4HeaderBehindAnIpv6VersionNeedsItsChecksum() throws Exception {
        byte[] header = ipv4Header(new byte[] {10, (byte) 250, 0, 1});
        header[0] = 0x60;
        assertEquals(Gid.of(InetAddress.getByName("10.250.0.1")), Grh.sourceGid(MemorySegment.ofArray(header), 0));
    }

    @Test
    void ipv4HeaderWithABadChecksumBehindAnIpv6VersionIsReadAsAGrh() {
        byte[] header = ipv4Header(new byte[] {10, (byte) 250, 0, 1});
        header[0] = 0x60;
        header[20 + 11] ^= 1;
        byte[] sgid = new byte[16];
        System.arraycopy(header, 8, sgid, 0, 16);
        assertEquals(Gid.of(sgid), Grh.sourceGid(MemorySegment.ofArray(header), 0));
    }

    @Test
    void theDestinationIsTheIpv4DestinationOrTheGrhsDgid() throws Exception {
        byte[] ipv4 = ipv4Header(new byte[] {10, (byte) 250, 0, 1});
        assertEquals(Gid.of(InetAddress.getByName("10.0.0.2")), Grh.destinationGid(MemorySegment.ofArray(ipv4), 0));
        byte[] grh = new byte[Grh.SIZE];
        grh[0] = 0x60;
        byte[] group = {(byte) 0xff, 0x0e, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x70, 0x76};
        System.arraycopy(group, 0, grh, 24, 16);
        assertEquals(Gid.of(group), Grh.destinationGid(MemorySegment.ofArray(grh), 0));
        assertEquals(Gid.of(new byte[16]), Grh.sourceGid(MemorySegment.ofArray(grh), 0));
    }

    @Test
    void theTrafficClassIsTheIpv4TypeOfServiceOrTheGrhsAndOnlyAGrhHasAFlowLabel() {
        byte[] ipv4 = ipv4Header(new byte[] {10, (byte) 250, 0, 1});
        ipv4[20 + 1] = 0x68;
        ipv4[20 + 10] = 0; // the checksum is not looked at without an IPv6 version in front
        ipv4[20 + 11] = 0;
        assertEquals(0x68, Grh.trafficClass(MemorySegment.ofArray(ipv4), 0));
        assertEquals(0, Grh.flowLabel(MemorySegment.ofArray(ipv4), 0));
        byte[] grh = new byte[Grh.SIZE];
        int word = (6 << 28) | (0xb8 << 20) | 0xabcde; // version 6, traffic class 0xb8, flow label 0xabcde
        grh[0] = (byte) (word >>> 24);
        grh[1] = (byte) (word >>> 16);
        grh[2] = (byte) (word >>> 8);
        grh[3] = (byte) word;
        assertEquals(0xb8, Grh.trafficClass(MemorySegment.ofArray(grh), 0));
        assertEquals(0xabcde, Grh.flowLabel(MemorySegment.ofArray(grh), 0));
    }
}
