package org.panamaverbs.rsocket;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The bytes rsocket (librdmacm's {@code rsocket.c}, protocol version 1) puts on the wire: the 32-bit immediate
 * of every RDMA WRITE WITH IMM, the 40-byte connection private data, and the 16-byte {@code rs_sge} a
 * receiver writes into its peer's target list. docs/rsockets-protocol.md describes each field.
 */
public final class RsocketWire {
    /** Immediate op 0: data, the value is the byte count written into the receive buffer. */
    static final int OP_DATA = 0;
    /** Immediate op 2: a direct write into an iomap; never carried by an immediate. */
    static final int OP_WRITE = 2;
    /** Immediate op 4: a credit update; the value is the new limit of the sender's data sequence number. */
    static final int OP_SGL = 4;
    /** Immediate op 6: an iomap entry was written (riomap); value: its index. */
    static final int OP_IOMAP_SGL = 6;
    /** Immediate op 7: a control message; the value is one of the CTRL_ constants. */
    static final int OP_CTRL = 7;

    /** Control value 0: the sender closed both directions. */
    static final int CTRL_DISCONNECT = 0;
    /** Control value 1: keepalive (sent as a zero-byte RDMA WRITE without immediate: never received). */
    static final int CTRL_KEEPALIVE = 1;
    /** Control value 2: the sender shut down its output (half-close). */
    static final int CTRL_SHUTDOWN = 2;

    /** The only protocol version rsocket speaks. */
    static final int VERSION = 1;
    /** Connection flag bit 0: the host writes its {@code rs_sge} updates big-endian. */
    static final int FLAG_NETWORK_ORDER = 1;
    /** Connection flag bit 1: the target list is followed by an iomap table. */
    static final int FLAG_IOMAP = 1 << 1;
    /** Size of {@code struct rs_conn_data}. */
    public static final int CONNECTION_DATA_BYTES = 40;
    /** Size of {@code struct rs_sge} (address 8, key 4, length 4). */
    static final int SGE_BYTES = 16;
    /** Entries in the target list ({@code RS_SGL_SIZE}). */
    static final int TARGET_SLOTS = 2;

    private static final int VALUE_MASK = 0x1FFFFFFF;

    private RsocketWire() {
    }

    /** {@code rs_msg_set(op, data)}: op in bits 31-29, value in bits 28-0. */
    static int message(int op, int value) {
        return (op << 29) | (value & VALUE_MASK);
    }

    /** {@code rs_msg_op(imm)}. */
    static int op(int immediate) {
        return immediate >>> 29;
    }

    /** {@code rs_msg_data(imm)}. */
    static int value(int immediate) {
        return immediate & VALUE_MASK;
    }

    /** {@code rs_value_to_scale(value, 8)}: the one-byte form of the iomap size. */
    static int valueToScale(int value) {
        return value <= (1 << 7) ? value : (1 << 7) | (value >> 8);
    }

    /** {@code rs_scale_to_value(scale, 8)}. */
    static int scaleToValue(int scale) {
        return scale <= (1 << 7) ? scale : (scale & ~(1 << 7)) << 8;
    }

    /** A name for an immediate, for messages and logs. */
    static String describe(int immediate) {
        int value = value(immediate);
        return switch (op(immediate)) {
            case OP_DATA -> "DATA " + value + " bytes";
            case OP_SGL -> "SGL credits to " + value;
            case OP_IOMAP_SGL -> "IOMAP_SGL index " + value;
            case OP_CTRL -> "CTRL " + switch (value) {
                case CTRL_DISCONNECT -> "DISCONNECT";
                case CTRL_KEEPALIVE -> "KEEPALIVE";
                case CTRL_SHUTDOWN -> "SHUTDOWN";
                default -> Integer.toString(value);
            };
            default -> "op " + op(immediate) + " value " + value;
        };
    }

    /**
     * {@code struct rs_conn_data}, the private data of the connect request and of the accept reply. All multi-byte
     * fields are big-endian on the wire.
     *
     * @param flags            {@link #FLAG_NETWORK_ORDER}, {@link #FLAG_IOMAP}
     * @param credits          the sender's receive queue size: how many data messages the peer may send before
     *                         the first credit update
     * @param iomapScale       the iomap table size in {@link #valueToScale} form
     * @param targetAddress    where the peer writes its {@code rs_sge} updates (the sender's target list)
     * @param targetKey        the rkey of the target list
     * @param targetSlots      entries in the target list (rsocket: {@link #TARGET_SLOTS})
     * @param bufferAddress    the first half of the sender's receive buffer, granted at once
     * @param bufferKey        its rkey
     * @param bufferLength     its length (half the receive buffer)
     */
    public record ConnectionData(int flags, int credits, int iomapScale, long targetAddress, int targetKey, int targetSlots,
            long bufferAddress, int bufferKey, int bufferLength) {

        /**
         * The 40 bytes, as {@code rs_format_conn_data} writes them.
         *
         * @return {@link #CONNECTION_DATA_BYTES} bytes of private data
         */
        public byte[] encode() {
            ByteBuffer out = ByteBuffer.allocate(CONNECTION_DATA_BYTES).order(ByteOrder.BIG_ENDIAN);
            out.put((byte) VERSION).put((byte) flags).putShort((short) credits);
            out.put(new byte[3]).put((byte) iomapScale);
            out.putLong(targetAddress).putInt(targetKey).putInt(targetSlots);
            out.putLong(bufferAddress).putInt(bufferKey).putInt(bufferLength);
            return out.array();
        }

        /**
         * Whether the peer writes its {@code rs_sge} updates big-endian (then ours to it are swapped too).
         *
         * @return the network-order flag
         */
        public boolean networkOrder() {
            return (flags & FLAG_NETWORK_ORDER) != 0;
        }

        /**
         * Reads the first 40 bytes of a peer's private data (InfiniBand and RoCE pad it to 56 or more).
         *
         * @param data the private data of a connect request or an established event
         * @return its fields
         * @throws MalformedConnectionData if the data is short, of another version or cannot describe a usable
         *                                 stream (no credits, no buffer, no target list): what rsocket would
         *                                 reject or fail on later
         */
        public static ConnectionData decode(byte[] data) {
            if (data == null || data.length < CONNECTION_DATA_BYTES) {
                throw new MalformedConnectionData("rsocket private data is " + CONNECTION_DATA_BYTES + " bytes, got "
                        + (data == null ? 0 : data.length));
            }
            ByteBuffer in = ByteBuffer.wrap(data).order(ByteOrder.BIG_ENDIAN);
            int version = Byte.toUnsignedInt(in.get());
            if (version != VERSION) {
                throw new MalformedConnectionData("rsocket protocol version " + version + " (byte 0); only version "
                        + VERSION + " exists");
            }
            int flags = Byte.toUnsignedInt(in.get());
            int credits = Short.toUnsignedInt(in.getShort());
            in.position(7);
            int iomapScale = Byte.toUnsignedInt(in.get());
            long targetAddress = in.getLong();
            int targetKey = in.getInt();
            int targetSlots = in.getInt();
            long bufferAddress = in.getLong();
            int bufferKey = in.getInt();
            int bufferLength = in.getInt();
            if (credits == 0) {
                throw new MalformedConnectionData("no credits (bytes 2-3 are 0): the peer could never be sent data");
            }
            if (targetSlots < 1 || targetSlots > 64) {
                throw new MalformedConnectionData("target list of " + targetSlots + " entries (bytes 20-23); rsocket"
                        + " uses " + TARGET_SLOTS);
            }
            if (bufferLength <= 0) {
                throw new MalformedConnectionData("receive buffer of " + Integer.toUnsignedString(bufferLength)
                        + " bytes (bytes 36-39)");
            }
            return new ConnectionData(flags, credits, iomapScale, targetAddress, targetKey, targetSlots, bufferAddress,
                    bufferKey, bufferLength);
        }
    }

    /** A peer's private data that is not rsocket's version 1 connection data. */
    public static final class MalformedConnectionData extends RuntimeException {
        MalformedConnectionData(String message) {
            super(message);
        }
    }
}
