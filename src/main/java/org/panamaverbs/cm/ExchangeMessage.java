package org.panamaverbs.cm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.Objects;

import org.panamaverbs.verbs.Gid;
import org.panamaverbs.verbs.QpEndpoint;
import org.panamaverbs.verbs.QueuePair;

/**
 * The message each side of an out-of-band exchange sends: the endpoint of its queue pair (what
 * {@link QueuePair#connect(QpEndpoint)} needs) and, optionally, a region the peer may RDMA READ
 * or WRITE. {@link EndpointExchange} carries it over TCP; any other channel can carry {@link #encode()}.
 *
 * <p>Wire form, version 1: exactly {@value #BYTES} bytes, big-endian (network order), no padding.
 * <pre>
 * offset  size  field
 *      0     4  magic    'P' 'V' 'E' 'X' (0x50564558)
 *      4     2  version  u16, 1
 *      6     2  length   u16, bytes in the whole message including this header: 56
 *      8     2  flags    u16, bit 0: a region follows; the other bits are reserved and must be 0
 *     10     2  lid      u16, the port LID (0 on RoCE)
 *     12     4  qpn      u32, the queue pair number; the top 8 bits must be 0
 *     16     4  psn      u32, the initial packet sequence number; the top 8 bits must be 0
 *     20    16  gid      the GID in network order (an IPv4 address is mapped as ::ffff:a.b.c.d)
 *     36    20  region   {@link RemoteRegion} wire form: u64 address, u64 length, u32 rkey;
 *                        all 20 bytes 0 when flag bit 0 is clear
 *     56        end
 * </pre>
 * The first 8 bytes (magic, version, length) let a reader refuse a stranger, or a version it does not
 * know, before reading further; a later version may change what follows the header and its length.
 *
 * <p>Errors: {@link #decode} refuses, with an {@link IllegalArgumentException} whose message says what
 * was wrong and at which byte, a wrong magic, an unknown version, a length field other than 56, a message
 * shorter or longer than 56 bytes, reserved flags, a QPN or PSN above 24 bits, a bad region, and region
 * bytes that are not 0 when no region is offered. The constructor checks the same ranges.
 * Immutable and thread-safe.
 *
 * @param endpoint the queue pair's QPN, PSN, LID and GID
 * @param region   the region offered to the peer, or null if none
 */
public record ExchangeMessage(QpEndpoint endpoint, RemoteRegion region) {
    /** The size of a version 1 message. */
    public static final int BYTES = 56;
    /** The version this side writes and reads. */
    public static final int VERSION = 1;
    /** "PVEX": Panama Verbs EXchange. */
    static final int MAGIC = 0x50564558;
    /** Magic, version and length: what a reader checks before reading the rest. */
    static final int HEADER_BYTES = 8;

    private static final int FLAG_REGION = 1;
    private static final int MAX_24_BITS = 0xffffff;
    private static final int REGION_OFFSET = 36;

    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * Checks that the endpoint fits the wire form.
     *
     * @throws IllegalArgumentException if the QPN or PSN exceeds 24 bits or the LID 16 bits
     */
    public ExchangeMessage {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(endpoint.gid(), "endpoint.gid");
        checkBits("QPN", endpoint.qpNumber(), MAX_24_BITS);
        checkBits("PSN", endpoint.psn(), MAX_24_BITS);
        checkBits("LID", endpoint.lid(), 0xffff);
    }

    /**
     * An endpoint with no region offered.
     *
     * @param endpoint the queue pair's QPN, PSN, LID and GID (not null; QPN and PSN within 24 bits)
     * @throws IllegalArgumentException if the QPN or PSN exceeds 24 bits or the LID 16 bits
     */
    public ExchangeMessage(QpEndpoint endpoint) {
        this(endpoint, null);
    }

    private static void checkBits(String field, int value, int max) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(field + " 0x" + Integer.toHexString(value) + " exceeds "
                    + Integer.bitCount(max) + " bits");
        }
    }

    /**
     * The {@value #BYTES}-byte wire form described above.
     *
     * @return a new array of exactly {@value #BYTES} bytes, ready to send
     */
    public byte[] encode() {
        byte[] message = new byte[BYTES];
        MemorySegment out = MemorySegment.ofArray(message);
        out.set(U32, 0, MAGIC);
        out.set(U16, 4, (short) VERSION);
        out.set(U16, 6, (short) BYTES);
        out.set(U16, 8, (short) (region != null ? FLAG_REGION : 0));
        out.set(U16, 10, (short) endpoint.lid());
        out.set(U32, 12, endpoint.qpNumber());
        out.set(U32, 16, endpoint.psn());
        endpoint.gid().write(out, 20);
        if (region != null) {
            region.writeTo(out, REGION_OFFSET);
        }
        return message;
    }

    /**
     * Parses exactly one message.
     *
     * @param message exactly one version 1 message, {@value #BYTES} bytes, not null; not modified
     * @return the endpoint and, if flag bit 0 was set, the region it carries
     * @throws IllegalArgumentException naming what is wrong and at which byte: see the class comment
     */
    public static ExchangeMessage decode(byte[] message) {
        checkHeader(message, message.length);
        if (message.length < BYTES) {
            throw new IllegalArgumentException("truncated endpoint message: " + message.length + " of " + BYTES
                    + " bytes");
        }
        if (message.length > BYTES) {
            throw new IllegalArgumentException("trailing garbage: " + (message.length - BYTES) + " more bytes after the "
                    + BYTES + "-byte endpoint message, from byte " + BYTES);
        }
        MemorySegment in = MemorySegment.ofArray(message);
        int flags = Short.toUnsignedInt(in.get(U16, 8));
        if ((flags & ~FLAG_REGION) != 0) {
            throw new IllegalArgumentException("reserved flag bits 0x" + Integer.toHexString(flags & ~FLAG_REGION)
                    + " set at byte 8: version " + VERSION + " defines only bit 0 (region present)");
        }
        int lid = Short.toUnsignedInt(in.get(U16, 10));
        int qpn = in.get(U32, 12);
        int psn = in.get(U32, 16);
        checkWireBits("QPN", qpn, 12);
        checkWireBits("PSN", psn, 16);
        Gid gid = Gid.read(in, 20);
        RemoteRegion region = null;
        if ((flags & FLAG_REGION) != 0) {
            region = RemoteRegion.readFrom(in, REGION_OFFSET);
        } else {
            for (int i = REGION_OFFSET; i < BYTES; i++) {
                if (message[i] != 0) {
                    throw new IllegalArgumentException("byte " + i + " is 0x" + Integer.toHexString(message[i] & 0xff)
                            + ", but the region bytes " + REGION_OFFSET + ".." + (BYTES - 1)
                            + " must be 0 when flag bit 0 (region present) is clear");
                }
            }
        }
        return new ExchangeMessage(new QpEndpoint(qpn, psn, lid, gid), region);
    }

    private static void checkWireBits(String field, int value, int offset) {
        if ((value & ~MAX_24_BITS) != 0) {
            throw new IllegalArgumentException(field + " 0x" + Integer.toHexString(value) + " at byte " + offset
                    + " exceeds 24 bits");
        }
    }

    /**
     * Checks as much of the header as the first {@code available} bytes hold (magic from 4 bytes,
     * version from 6, length from 8), so that a stranger is named as such even when it sent little.
     *
     * @throws IllegalArgumentException on a wrong magic, an unknown version or a length field other than 56
     */
    static void checkHeader(byte[] message, int available) {
        MemorySegment in = MemorySegment.ofArray(message);
        if (available >= 4 && in.get(U32, 0) != MAGIC) {
            int magic = in.get(U32, 0);
            throw new IllegalArgumentException("not a Panama Verbs endpoint message: magic 0x"
                    + HexFormat.of().toHexDigits(magic) + " ('" + printable(message, 4) + "') at byte 0, expected 0x"
                    + Integer.toHexString(MAGIC) + " ('PVEX'): is the peer a Panama Verbs endpoint exchange?");
        }
        if (available >= 6) {
            int version = Short.toUnsignedInt(in.get(U16, 4));
            if (version != VERSION) {
                throw new IllegalArgumentException("unsupported endpoint message version " + version
                        + " at byte 4: this side speaks version " + VERSION
                        + " (are both sides the same Panama Verbs release?)");
            }
        }
        if (available >= HEADER_BYTES) {
            int length = Short.toUnsignedInt(in.get(U16, 6));
            if (length != BYTES) {
                throw new IllegalArgumentException("length field " + length + " at byte 6, but version "
                        + VERSION + " messages are " + BYTES + " bytes");
            }
        }
    }

    /** The bytes as ASCII with anything unprintable as '.', so that "GET " or "SSH-" is recognisable. */
    private static String printable(byte[] bytes, int count) {
        StringBuilder sb = new StringBuilder(count);
        for (int i = 0; i < count; i++) {
            sb.append(bytes[i] >= 0x20 && bytes[i] < 0x7f ? (char) bytes[i] : '.');
        }
        return sb.toString();
    }
}
