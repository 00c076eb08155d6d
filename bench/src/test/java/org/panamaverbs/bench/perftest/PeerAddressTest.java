package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.panamaverbs.verbs.Gid;

class PeerAddressTest {
    /** The record of perftest-protocol.md, as C's sprintf(KEY_PRINT_FMT_GID) writes it. */
    static final String C_RECORD = "0000:0001:000011:abcdef:00001234:00007f0000001000:"
            + "fe:80:00:00:00:00:00:00:02:50:56:ff:fe:b2:66:8c:00000000:";

    static byte[] wire(String text) {
        byte[] wire = new byte[PeerAddress.WIRE_SIZE];
        byte[] ascii = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(ascii, 0, wire, 0, ascii.length);
        return wire;
    }

    @Test
    void parsesAndWritesPerftestsRecordByteForByte() {
        assertEquals(107, C_RECORD.length());
        PeerAddress a = PeerAddress.parse(wire(C_RECORD));
        assertEquals(0, a.lid());
        assertEquals(1, a.outReads());
        assertEquals(0x11, a.qpn());
        assertEquals(0xabcdef, a.psn());
        assertEquals(0x1234, a.rkey());
        assertEquals(0x7f0000001000L, a.vaddr());
        assertEquals(Gid.of(new byte[] {(byte) 0xfe, (byte) 0x80, 0, 0, 0, 0, 0, 0, 2, 0x50, 0x56, (byte) 0xff,
                (byte) 0xfe, (byte) 0xb2, 0x66, (byte) 0x8c}), a.gid());
        assertEquals(0, a.srqn());
        assertArrayEquals(wire(C_RECORD), a.encode());
    }

    /** perftest's rdma_write_keys: struct pingpong_dest with htobe32/htobe64 fields, laid out as gcc pads it. */
    @Test
    void binaryRecordIsPerftestsStructInNetworkOrder() {
        PeerAddress a = PeerAddress.parse(wire(C_RECORD));
        byte[] binary = a.encodeBinary(false);
        assertEquals(56, binary.length);
        byte[] head = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x11, 0, (byte) 0xab, (byte) 0xcd, (byte) 0xef,
            0, 0, 0x12, 0x34, 0, 0, 0, 0, 0, 0, 0x7f, 0, 0, 0, 0x10, 0};
        assertArrayEquals(head, Arrays.copyOf(binary, 32));
        assertArrayEquals(a.gid().toBytes(), Arrays.copyOfRange(binary, 32, 48));
        assertEquals(a, PeerAddress.decodeBinary(binary, false));
        assertEquals(PeerAddress.EMPTY, PeerAddress.decodeBinary(new byte[56], false));
        assertThrows(PerftestException.class, () -> PeerAddress.decodeBinary(new byte[55], false));

        // perftest 26.04: tail_markers_vaddr (8 bytes) after vaddr moves the GID to offset 40; 64 bytes in all
        byte[] with = a.encodeBinary(true);
        assertEquals(64, with.length);
        assertArrayEquals(head, Arrays.copyOf(with, 32));
        assertArrayEquals(new byte[8], Arrays.copyOfRange(with, 32, 40));
        assertArrayEquals(a.gid().toBytes(), Arrays.copyOfRange(with, 40, 56));
        byte[] theirs = with.clone();
        theirs[39] = 0x40; // a 26.04 peer's tail_markers_vaddr, which --data_validation uses
        PeerAddress markers = PeerAddress.decodeBinary(theirs, true);
        assertEquals(0x40, markers.tailMarkers());
        assertEquals(new PeerAddress(a.lid(), a.outReads(), a.qpn(), a.psn(), a.rkey(), a.vaddr(), 0x40, a.gid(),
                a.srqn()), markers);
        assertArrayEquals(theirs, markers.encodeBinary(true));
        assertThrows(PerftestException.class, () -> PeerAddress.decodeBinary(binary, true));
    }

    /** 26.04's {@code KEY_PRINT_FMT_GID_DV}, as perftest writes it with {@code --data_validation}: 124 characters. */
    static final String C_RECORD_DV = "0000:0001:000011:abcdef:00001234:00007f0000001000:00007f0000000cc0:"
            + "fe:80:00:00:00:00:00:00:02:50:56:ff:fe:b2:66:8c:00000000:";

    @Test
    void dataValidationsRecordCarriesTheTailMarkers() {
        assertEquals(124, C_RECORD_DV.length());
        byte[] wire = Arrays.copyOf(C_RECORD_DV.getBytes(StandardCharsets.US_ASCII), PeerAddress.WIRE_SIZE_WITH_TAIL_MARKERS);
        PeerAddress a = PeerAddress.parse(wire, true);
        assertEquals(0x7f0000001000L, a.vaddr());
        assertEquals(0x7f0000000cc0L, a.tailMarkers());
        PeerAddress plain = PeerAddress.parse(wire(C_RECORD));
        assertEquals(plain.gid(), a.gid());
        assertEquals(plain.srqn(), a.srqn());
        assertArrayEquals(wire, a.encode(true));
        // either side of a 26.04 exchange refuses the other form: 108 bytes are not 125
        assertThrows(PerftestException.class, () -> PeerAddress.parse(wire(C_RECORD), true));
        assertThrows(PerftestException.class, () -> PeerAddress.parse(wire));
    }

    @Test
    void fullWidthValuesRoundTrip() {
        PeerAddress a = new PeerAddress(0xffff, 0x10, 0xffffff, 0xffffff, 0xffffffff, -1L,
                Gid.of(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}), 0xffffffff);
        assertEquals(a, PeerAddress.parse(a.encode()));
    }

    @Test
    void refusesWhatIsNotARecord() {
        PerftestException garbage = assertThrows(PerftestException.class,
                () -> PeerAddress.parse(wire("GET / HTTP/1.1\r\nHost: x\r\n")));
        assertTrue(garbage.getMessage().contains("malformed"), garbage.getMessage());
        byte[] noNul = wire(C_RECORD);
        noNul[107] = 'x';
        assertThrows(PerftestException.class, () -> PeerAddress.parse(noNul));
        byte[] badDigit = wire(C_RECORD.replace("abcdef", "abcdeg"));
        assertTrue(assertThrows(PerftestException.class, () -> PeerAddress.parse(badDigit)).getMessage()
                .contains("non-hex"));
        byte[] noSeparator = wire(C_RECORD.replaceFirst(":", ";"));
        assertThrows(PerftestException.class, () -> PeerAddress.parse(noSeparator));
        assertThrows(PerftestException.class, () -> PeerAddress.parse(Arrays.copyOf(wire(C_RECORD), 59)));
    }

    @Test
    void printsHexTheWayCsHashFlagDoes() {
        assertEquals("0000", PeerAddress.cHex(0, 4));
        assertEquals("0x11", PeerAddress.cHex(0x11, 4));
        assertEquals("0x0011", PeerAddress.cHex(0x11, 6));
        assertEquals("0xabcdef", PeerAddress.cHex(0xabcdef, 6));
        assertEquals("0x001234", PeerAddress.cHex(0x1234, 8));
        assertEquals("0x00007f00001000", PeerAddress.cHex(0x7f00001000L, 16));
        assertEquals("0x1234567", PeerAddress.cHex(0x1234567, 4));
    }
}
