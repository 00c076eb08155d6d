package org.panamaverbs.bench.perftest;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

import org.panamaverbs.verbs.Gid;

/**
 * One queue pair's address record as perftest exchanges it over TCP, the same in every release but for 26.04's
 * {@code --data_validation} form ({@code struct pingpong_dest}
 * printed with {@code KEY_PRINT_FMT_GID}): {@code lid:out_reads:qpn:psn:rkey:vaddr:} in fixed-width lower-case
 * hex, sixteen {@code %02x:} GID bytes, {@code srqn:} and a NUL, 108 bytes in all; with {@code --data_validation}
 * ({@code KEY_PRINT_FMT_GID_DV}) the address of the peer's tail markers follows vaddr as 16 more hex digits and a
 * ':', 125 bytes. The form without a GID (59 bytes, InfiniBand without {@code -x}) is never needed on RoCE, where
 * perftest always sends a GID.
 *
 * @param lid      the port's LID (0 on RoCE)
 * @param outReads outstanding RDMA reads this side accepts (1 for write and send tests)
 * @param qpn      queue pair number (24 bits)
 * @param psn      initial packet sequence number (24 bits)
 * @param rkey     remote key of the buffer the peer may access
 * @param vaddr    address of that buffer
 * @param tailMarkers with {@code --data_validation}, the address of this side's tail markers (the counters the
 *                 peer's fetch-and-adds advance after each chunk), else 0
 * @param gid      the source GID
 * @param srqn     shared receive queue number (0 without XRC/DC)
 */
public record PeerAddress(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, long tailMarkers, Gid gid,
        int srqn) {
    /** {@code KEY_MSG_SIZE_GID}. */
    public static final int WIRE_SIZE = 108;
    /** {@code KEY_MSG_SIZE_GID_DV}: the record with the tail markers' address ({@code --data_validation}). */
    public static final int WIRE_SIZE_WITH_TAIL_MARKERS = 125;
    /** The all-zero record perftest's {@code -R} handshakes send before the queue pair exists. */
    public static final PeerAddress EMPTY = new PeerAddress(0, 0, 0, 0, 0, 0, Gid.ZERO, 0);

    /** A record without tail markers (every test but {@code --data_validation}). */
    public PeerAddress(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, Gid gid, int srqn) {
        this(lid, outReads, qpn, psn, rkey, vaddr, 0, gid, srqn);
    }

    /** {@code sizeof(struct pingpong_dest)}: the record's size over rdma_cm, before perftest 26.04. */
    public static final int BINARY_SIZE = 56;
    /** The same from perftest 26.04 on, which added {@code tail_markers_vaddr} after {@code vaddr}. */
    public static final int BINARY_SIZE_WITH_TAIL_MARKERS = 64;

    /**
     * The record as perftest sends it over its rdma_cm exchange ({@code rdma_write_keys}): {@code struct
     * pingpong_dest} with every integer big-endian: lid, out_reads, qpn, psn, rkey (4 bytes each), 4 bytes of
     * padding, vaddr (8), from perftest 26.04 on tail_markers_vaddr (8; 0 but with {@code --data_validation}),
     * the GID (16), srqn and gid_index (4 each; 0 here).
     */
    public byte[] encodeBinary(boolean tailMarkers) {
        // big-endian by default, zero padding
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(tailMarkers ? BINARY_SIZE_WITH_TAIL_MARKERS : BINARY_SIZE);
        b.putInt(lid).putInt(outReads).putInt(qpn).putInt(psn).putInt(rkey).putInt(0).putLong(vaddr);
        if (tailMarkers) {
            b.putLong(this.tailMarkers);
        }
        b.put(gid.toBytes()).putInt(srqn).putInt(0);
        return b.array();
    }

    /**
     * The record from perftest's binary form ({@code rdma_read_keys}, which ignores srqn and gid_index too).
     */
    public static PeerAddress decodeBinary(byte[] wire, boolean tailMarkers) {
        int size = tailMarkers ? BINARY_SIZE_WITH_TAIL_MARKERS : BINARY_SIZE;
        if (wire.length != size) {
            throw new PerftestException("an address record over rdma_cm is " + size + " bytes, not " + wire.length);
        }
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(wire);
        int lid = b.getInt();
        int outReads = b.getInt();
        int qpn = b.getInt();
        int psn = b.getInt();
        int rkey = b.getInt();
        b.getInt(); // padding before the 8-byte vaddr
        long vaddr = b.getLong();
        long markers = tailMarkers ? b.getLong() : 0;
        byte[] gid = new byte[16];
        b.get(gid);
        return new PeerAddress(lid, outReads, qpn, psn, rkey, vaddr, markers, Gid.of(gid), 0);
    }

    /** The record perftest sends: 107 characters and a NUL. */
    public byte[] encode() {
        return encode(false);
    }

    /** The record perftest sends, with {@code --data_validation} ({@code withTailMarkers}) 124 characters and a NUL. */
    public byte[] encode(boolean withTailMarkers) {
        int size = withTailMarkers ? WIRE_SIZE_WITH_TAIL_MARKERS : WIRE_SIZE;
        StringBuilder text = new StringBuilder(size);
        text.append(String.format(Locale.ROOT, "%04x:%04x:%06x:%06x:%08x:%016x:", lid & 0xffff, outReads & 0xffff,
                qpn & 0xffffff, psn & 0xffffff, rkey, vaddr));
        if (withTailMarkers) {
            text.append(String.format(Locale.ROOT, "%016x:", tailMarkers));
        }
        for (byte b : gid.toBytes()) {
            text.append(String.format(Locale.ROOT, "%02x:", b & 0xff));
        }
        text.append(String.format(Locale.ROOT, "%08x:", srqn));
        byte[] wire = new byte[size];
        byte[] ascii = text.toString().getBytes(StandardCharsets.US_ASCII);
        if (ascii.length != size - 1) {
            throw new IllegalStateException("address record of " + ascii.length + " characters: " + text);
        }
        System.arraycopy(ascii, 0, wire, 0, ascii.length);
        return wire;
    }

    /** Field widths of the record, in hex digits, in order; each is followed by ':'. */
    private static final int[] WIDTHS = {4, 4, 6, 6, 8, 16, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 8};
    /** The same with the tail markers' address after vaddr ({@code KEY_PRINT_FMT_GID_DV}). */
    private static final int[] WIDTHS_WITH_TAIL_MARKERS = {4, 4, 6, 6, 8, 16, 16, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
        2, 2, 2, 8};

    /** {@link #parse(byte[], boolean)} of the record without tail markers. */
    public static PeerAddress parse(byte[] wire) {
        return parse(wire, false);
    }

    /**
     * Parses a record exactly as {@link #encode(boolean)} writes it; anything else (wrong length, a missing
     * separator, a non-hex digit, no NUL) is refused, naming what was received.
     *
     * @throws PerftestException if {@code wire} is not an address record
     */
    public static PeerAddress parse(byte[] wire, boolean withTailMarkers) {
        int size = withTailMarkers ? WIRE_SIZE_WITH_TAIL_MARKERS : WIRE_SIZE;
        int[] widths = withTailMarkers ? WIDTHS_WITH_TAIL_MARKERS : WIDTHS;
        if (wire.length != size || wire[size - 1] != 0) {
            throw malformed(wire, "not " + size + " bytes ending in NUL");
        }
        long[] fields = new long[widths.length];
        int at = 0;
        for (int f = 0; f < widths.length; f++) {
            long value = 0;
            for (int d = 0; d < widths[f]; d++) {
                int digit = Character.digit(wire[at++], 16);
                if (digit < 0) {
                    throw malformed(wire, "a non-hex character at offset " + (at - 1));
                }
                value = value << 4 | digit;
            }
            if (wire[at++] != ':') {
                throw malformed(wire, "no ':' at offset " + (at - 1));
            }
            fields[f] = value;
        }
        int gidAt = withTailMarkers ? 7 : 6;
        byte[] gid = new byte[16];
        for (int i = 0; i < 16; i++) {
            gid[i] = (byte) fields[gidAt + i];
        }
        return new PeerAddress((int) fields[0], (int) fields[1], (int) fields[2], (int) fields[3], (int) fields[4],
                fields[5], withTailMarkers ? fields[6] : 0, Gid.of(gid), (int) fields[gidAt + 16]);
    }

    private static PerftestException malformed(byte[] wire, String why) {
        String shown = new String(wire, 0, Math.min(wire.length, WIRE_SIZE_WITH_TAIL_MARKERS), StandardCharsets.ISO_8859_1)
                .replaceAll("[^\\x20-\\x7e]", "?");
        return new PerftestException("the peer's address record is malformed (" + why + "): \"" + shown
                + "\" (is the peer perftest running the same test?)");
    }

    /** {@code true} if the GID is an IPv4-mapped one (RoCE v2 over IPv4), perftest's GID-type compatibility test. */
    boolean ipv4Mapped() {
        return gid.isIpv4Mapped();
    }

    /**
     * perftest's {@code ctx_print_pingpong_data} for RDMA tests, C's {@code %#x} included (no "0x" for zero);
     * {@code gidLabel} is "GID", or "MGID" for a multicast group's.
     */
    String lines(String side, boolean readTest, boolean sendTest, String gidLabel) {
        StringBuilder b = new StringBuilder();
        b.append(" ").append(side).append(" address: LID ").append(cHex(lid(), 4)).append(" QPN ")
                .append(cHex(qpn(), 6)).append(" PSN ").append(cHex(psn(), 6))
                .append(readTest ? " OUT " + cHex(outReads(), 4) : "");
        if (!sendTest) { // a SEND test has no remote buffer to name
            b.append(" RKey ").append(cHex(Integer.toUnsignedLong(rkey()), 8)).append(" VAddr ")
                    .append(cHex(vaddr(), 16));
        }
        b.append('\n').append(' ').append(gidLabel).append(": ");
        byte[] raw = gid().toBytes();
        for (int i = 0; i < raw.length; i++) {
            b.append(String.format(Locale.ROOT, i == 0 ? "%02d" : ":%02d", raw[i] & 0xff));
        }
        return b.append('\n').toString();
    }

    /** C's {@code %#0<width>x}: "0x" and zero padding to {@code width} characters in all, or just zeros for 0. */
    static String cHex(long value, int width) {
        if (value == 0) {
            return "0".repeat(width);
        }
        String digits = Long.toHexString(value);
        int pad = width - 2 - digits.length();
        return "0x" + (pad > 0 ? "0".repeat(pad) : "") + digits;
    }
}
