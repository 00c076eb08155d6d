package org.panamaverbs.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.panamaverbs.verbs.Gid;
import org.panamaverbs.verbs.QpEndpoint;

/** The wire forms of {@link ExchangeMessage} and {@link RemoteRegion}: byte for byte, and every refusal. */
class ExchangeMessageTest {
    private static final HexFormat HEX = HexFormat.of();

    static Gid gid(String address) throws Exception {
        return Gid.of(InetAddress.getByName(address));
    }

    static ExchangeMessage sample() throws Exception {
        return new ExchangeMessage(new QpEndpoint(0x123456, 0xabcdef, 0x0102, gid("fe80::250:56ff:feb2:668c")),
                new RemoteRegion(0x7f0012345000L, 4096, 0xdeadbeef));
    }

    /** The layout the class comment documents, written out by hand. */
    @Test
    void encodesTheDocumentedLayout() throws Exception {
        String expected = "50564558" + "0001" + "0038" + "0001" + "0102" + "00123456" + "00abcdef"
                + "fe80000000000000" + "025056fffeb2668c"
                + "00007f0012345000" + "0000000000001000" + "deadbeef";
        byte[] encoded = sample().encode();
        assertEquals(ExchangeMessage.BYTES, encoded.length);
        assertEquals(expected, HEX.formatHex(encoded));
        assertEquals(sample(), ExchangeMessage.decode(encoded));
    }

    @Test
    void maximumValuesRoundTrip() throws Exception {
        ExchangeMessage info = new ExchangeMessage(
                new QpEndpoint(0xffffff, 0xffffff, 0xffff, Gid.of(filled(16, 0xff))),
                new RemoteRegion(0x8000000000000000L, Long.MAX_VALUE, 0xffffffff));
        ExchangeMessage decoded = ExchangeMessage.decode(info.encode());
        assertEquals(info, decoded);
        assertEquals(0xffffff, decoded.endpoint().qpNumber());
        assertEquals(0xffffff, decoded.endpoint().psn());
        assertEquals(0xffff, decoded.endpoint().lid());
        assertEquals(new Gid(-1, -1), decoded.endpoint().gid());
        assertEquals(0x8000000000000000L, decoded.region().address());
        assertEquals(Long.MAX_VALUE, decoded.region().length());
        assertEquals(0xffffffff, decoded.region().rkey());
    }

    @Test
    void withoutRegionTheRegionBytesAreZeroAndDecodeToNull() throws Exception {
        ExchangeMessage info = new ExchangeMessage(new QpEndpoint(0, 0, 0, gid("10.250.0.1")));
        byte[] encoded = info.encode();
        assertEquals(0, encoded[9], "flags");
        assertArrayEquals(new byte[RemoteRegion.BYTES], Arrays.copyOfRange(encoded, 36, 56));
        ExchangeMessage decoded = ExchangeMessage.decode(encoded);
        assertNull(decoded.region());
        assertEquals(info, decoded);
        assertTrue(decoded.endpoint().gid().isIpv4Mapped());
        assertEquals(InetAddress.getByName("10.250.0.1"), decoded.endpoint().gid().toInetAddress());
    }

    @Test
    void refusesAnotherProtocolByItsMagic() {
        byte[] http = Arrays.copyOf("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII), 56);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ExchangeMessage.decode(http));
        assertTrue(e.getMessage().startsWith("not a Panama Verbs endpoint message: magic 0x47455420 ('GET ') at byte 0,"
                + " expected 0x50564558 ('PVEX')"), e.getMessage());
        assertTrue(e.getMessage().contains("is the peer a Panama Verbs endpoint exchange?"), e.getMessage());
    }

    @Test
    void magicIsCheckedEvenWhenLittleArrived() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ExchangeMessage.decode(new byte[] {'S', 'S', 'H', '-', 0}));
        assertTrue(e.getMessage().contains("magic 0x5353482d ('SSH-')"), e.getMessage());
    }

    @Test
    void refusesAnUnknownVersion() throws Exception {
        byte[] message = sample().encode();
        message[5] = 2;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ExchangeMessage.decode(message));
        assertTrue(e.getMessage().startsWith("unsupported endpoint message version 2 at byte 4: this side speaks version 1"),
                e.getMessage());
    }

    @Test
    void refusesALengthFieldOtherThan56() throws Exception {
        byte[] message = sample().encode();
        message[6] = (byte) 0xff;
        message[7] = (byte) 0xff;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ExchangeMessage.decode(message));
        assertEquals("length field 65535 at byte 6, but version 1 messages are 56 bytes", e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 3, 7, 8, 20, 36, 55})
    void refusesATruncatedMessage(int length) throws Exception {
        byte[] truncated = Arrays.copyOf(sample().encode(), length);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ExchangeMessage.decode(truncated));
        assertEquals("truncated endpoint message: " + length + " of 56 bytes", e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4, 1000})
    void refusesTrailingBytes(int extra) throws Exception {
        byte[] longer = Arrays.copyOf(sample().encode(), 56 + extra);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ExchangeMessage.decode(longer));
        assertEquals("trailing garbage: " + extra + " more bytes after the 56-byte endpoint message, from byte 56",
                e.getMessage());
    }

    @Test
    void refusesAQpnOrPsnAbove24Bits() throws Exception {
        byte[] qpn = sample().encode();
        qpn[12] = 1;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ExchangeMessage.decode(qpn));
        assertEquals("QPN 0x1123456 at byte 12 exceeds 24 bits", e.getMessage());

        byte[] psn = sample().encode();
        psn[16] = (byte) 0x80;
        e = assertThrows(IllegalArgumentException.class, () -> ExchangeMessage.decode(psn));
        assertEquals("PSN 0x80abcdef at byte 16 exceeds 24 bits", e.getMessage());
    }

    @Test
    void refusesReservedFlags() throws Exception {
        byte[] message = sample().encode();
        message[9] = 3;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ExchangeMessage.decode(message));
        assertEquals("reserved flag bits 0x2 set at byte 8: version 1 defines only bit 0 (region present)", e.getMessage());
    }

    @Test
    void refusesRegionBytesWhenNoRegionIsOffered() throws Exception {
        byte[] message = sample().encode();
        message[9] = 0; // clears "region present" while the region's bytes stay
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ExchangeMessage.decode(message));
        assertEquals("byte 38 is 0x7f, but the region bytes 36..55 must be 0 when flag bit 0 (region present) is clear",
                e.getMessage());
    }

    @Test
    void refusesARegionLengthAbove2To63() throws Exception {
        byte[] message = sample().encode();
        message[44] = (byte) 0x80;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ExchangeMessage.decode(message));
        assertEquals("region length 9223372036854779904 at byte 44 exceeds 2^63-1 bytes", e.getMessage());
    }

    @Test
    void constructorRefusesWhatTheWireCannotCarry() throws Exception {
        Gid gid = gid("::1");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ExchangeMessage(new QpEndpoint(0x1000000, 0, 0, gid)));
        assertEquals("QPN 0x1000000 exceeds 24 bits", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new ExchangeMessage(new QpEndpoint(1, -1, 0, gid)));
        assertEquals("PSN 0xffffffff exceeds 24 bits", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> new ExchangeMessage(new QpEndpoint(1, 1, 0x10000, gid)));
        assertEquals("LID 0x10000 exceeds 16 bits", e.getMessage());
        assertThrows(NullPointerException.class, () -> new ExchangeMessage(new QpEndpoint(1, 1, 1, null)));
    }

    @Test
    void remoteRegionWireFormAtAnOffset() {
        RemoteRegion region = new RemoteRegion(0x0102030405060708L, 0x1112131415161718L, 0x21222324);
        MemorySegment segment = MemorySegment.ofArray(new byte[4 + RemoteRegion.BYTES]);
        region.writeTo(segment, 4);
        assertEquals("00000000" + "0102030405060708" + "1112131415161718" + "21222324",
                HEX.formatHex(segment.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
        assertEquals(region, RemoteRegion.readFrom(segment, 4));
    }

    @Test
    void remoteRegionRefusesShortInputAndWrapping() {
        MemorySegment shortSegment = MemorySegment.ofArray(new byte[RemoteRegion.BYTES + 3]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RemoteRegion.readFrom(shortSegment, 4));
        assertEquals("a remote region needs 20 bytes at byte 4, but the input has 23 bytes", e.getMessage());

        e = assertThrows(IllegalArgumentException.class, () -> new RemoteRegion(-16, 32, 1));
        assertEquals("region of 32 bytes at 0xfffffffffffffff0 wraps past the end of the 64-bit address space",
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new RemoteRegion(0, -1, 1));
        assertEquals("region length 18446744073709551615 exceeds 2^63-1 bytes", e.getMessage());
        // Ending exactly at the last address is fine, and so is an empty region anywhere.
        assertEquals(16, new RemoteRegion(-16, 16, 1).length());
        assertEquals(0, new RemoteRegion(-1, 0, 1).length());
    }

    @Test
    void remoteRegionPrintsHex() {
        assertEquals("RemoteRegion[address=0x7f0012345000, length=4096, rkey=0xdeadbeef]",
                new RemoteRegion(0x7f0012345000L, 4096, 0xdeadbeef).toString());
    }

    private static byte[] filled(int length, int value) {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, (byte) value);
        return bytes;
    }
}
