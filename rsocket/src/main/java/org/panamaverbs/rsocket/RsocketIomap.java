package org.panamaverbs.rsocket;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;


/**
 * The two tables of rsocket's iomap extension for one stream ({@code riomap}, {@code riowrite} and
 * {@code riounmap} in {@code rsocket.c}): the regions the peer mapped for us to write into, as its IOMAP_SGL
 * messages wrote them into our table ({@code target_iomap}), and the slots of the peer's table that regions of
 * ours occupy ({@code remote_iomappings}), with those not sent yet ({@code iomap_queue}). {@link RsocketFlow}
 * posts; this class keeps the tables. Loop thread only.
 *
 * <p>An entry is {@code struct rs_iomap}, 24 bytes: the offset the region is known by (8 bytes), then an {@code rs_sge}
 * (address 8, key 4, length 4), in the byte order of the side whose table it is in.
 */
public final class RsocketIomap {
    /** {@code sizeof(struct rs_iomap)}. */
    static final int ENTRY_BYTES = 24;
    /** The most entries a table can have: what the one-byte scale in the connection data can say. */
    public static final int MAX_ENTRIES = 127 << 8;

    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** A region of ours in slot {@code index} of the peer's table. */
    record Offer(int index, long offset, long address, int length, int rkey) {
    }

    // the peer's regions, copied out of our table when the IOMAP_SGL that wrote one completed (length 0: none)
    private final long[] peerOffsets;
    private final long[] peerAddresses;
    private final int[] peerKeys;
    private final long[] peerLengths;

    private long peerTableAddress;    // remote_iomap
    private int peerTableKey;
    private Offer[] slots = new Offer[0];
    private final ArrayDeque<Offer> unsent = new ArrayDeque<>();

    /** @param entries the size of our table: how many regions the peer may map for us at once */
    RsocketIomap(int entries) {
        peerOffsets = new long[entries];
        peerAddresses = new long[entries];
        peerKeys = new int[entries];
        peerLengths = new long[entries];
    }

    /**
     * The table size rsocket's {@code RDMA_IOMAPSIZE} would give for {@code entries} (it keeps what the scale says).
     *
     * @param entries the entries asked for, 0 to {@link #MAX_ENTRIES}
     * @return the entries the table gets
     * @throws IllegalArgumentException if {@code entries} is negative or above {@link #MAX_ENTRIES}
     */
    public static int roundedSize(int entries) {
        if (entries < 0 || entries > MAX_ENTRIES) {
            throw new IllegalArgumentException("an iomap table has 0 to " + MAX_ENTRIES + " entries, not " + entries);
        }
        return RsocketWire.scaleToValue(RsocketWire.valueToScale(entries));
    }

    int size() {
        return peerLengths.length;
    }

    /** The peer's table from its connection data ({@code rs_save_conn_data}): right after its target list. */
    void start(RsocketWire.ConnectionData peer) {
        if ((peer.flags() & RsocketWire.FLAG_IOMAP) == 0) {
            return;
        }
        peerTableAddress = peer.targetAddress() + (long) peer.targetSlots() * RsocketWire.SGE_BYTES;
        peerTableKey = peer.targetKey();
        slots = new Offer[RsocketWire.scaleToValue(peer.iomapScale())];
    }

    // ------------------------------------------------------------------------------------- the peer's regions

    /**
     * The peer wrote entry {@code index} of our table (its IOMAP_SGL arrived): takes it from {@code memory}, whose
     * table begins at {@code tableOffset}.
     *
     * @return null, or what is wrong with the message
     */
    String received(int index, MemorySegment memory, long tableOffset) {
        if (index >= peerLengths.length) {
            return "the peer wrote iomap entry " + index + " of a table of " + peerLengths.length;
        }
        long at = tableOffset + (long) index * ENTRY_BYTES;
        peerOffsets[index] = memory.get(LONG_LE, at);
        peerAddresses[index] = memory.get(LONG_LE, at + 8);
        peerKeys[index] = memory.get(INT_LE, at + 16);
        peerLengths[index] = Integer.toUnsignedLong(memory.get(INT_LE, at + 20));
        return null;
    }

    /** {@code rs_find_iomap}: the entry whose region holds {@code offset}, or -1. */
    int find(long offset) {
        for (int i = 0; i < peerLengths.length; i++) {
            if (peerLengths[i] > 0 && offset >= peerOffsets[i] && offset - peerOffsets[i] < peerLengths[i]) {
                return i;
            }
        }
        return -1;
    }

    /** Whether the peer's regions hold every byte of {@code [offset, offset + length)}, as riowrite walks them. */
    boolean covers(long offset, long length) {
        long at = offset;
        long end = offset + length;
        while (at < end) {
            int entry = find(at);
            if (entry < 0) {
                return false;
            }
            at = end(entry);
        }
        return true;
    }

    /** The offset just past entry {@code entry}'s region. */
    long end(int entry) {
        return peerOffsets[entry] + peerLengths[entry];
    }

    /** Where {@code offset} lies in the peer's memory ({@code rs_write_direct}). */
    long address(int entry, long offset) {
        return peerAddresses[entry] + offset - peerOffsets[entry];
    }

    int key(int entry) {
        return peerKeys[entry];
    }

    /** The peer's regions, for messages. */
    String describePeer() {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < peerLengths.length; i++) {
            if (peerLengths[i] > 0) {
                out.append(out.isEmpty() ? "" : ", ").append('[').append(peerOffsets[i]).append(", ")
                        .append(end(i)).append(')');
            }
        }
        return out.isEmpty() ? "none" : out.toString();
    }

    // ------------------------------------------------------------------------------------------ our regions

    /**
     * {@code riomap(PROT_WRITE)}: takes the first free slot of the peer's table for a region of ours, to be sent.
     *
     * @return the slot
     * @throws IllegalStateException if the peer offered no table or every slot is taken (rsocket: ENOMEM)
     */
    int offer(long offset, long address, int length, int rkey) {
        if (slots.length == 0) {
            throw new IllegalStateException("the peer accepts no mapped regions: its connection data offers no iomap"
                    + " table (rsocket's RDMA_IOMAPSIZE is 0 there; RdmaChannelOption.IOMAP_SIZE on a Java peer)");
        }
        for (int i = 0; i < slots.length; i++) {
            if (slots[i] == null) {
                Offer offer = new Offer(i, offset, address, length, rkey);
                slots[i] = offer;
                unsent.add(offer);
                return i;
            }
        }
        throw new IllegalStateException("all " + slots.length + " entries of the peer's iomap table hold regions of ours:"
                + " unmap one first, or have the peer accept more (RDMA_IOMAPSIZE, RdmaChannelOption.IOMAP_SIZE)");
    }

    /** {@code riounmap}: frees the slot (the peer is not told; its writes into the region fail from now on). */
    void withdraw(int index) {
        Offer offer = slots[index];
        if (offer != null) {
            slots[index] = null;
            unsent.remove(offer);
        }
    }

    boolean hasUnsent() {
        return !unsent.isEmpty();
    }

    /** The next region to tell the peer of ({@code rs_send_iomaps} takes them in order). */
    Offer nextUnsent() {
        return unsent.poll();
    }

    /** Where in the peer's memory slot {@code index} of its table is. */
    long slotAddress(int index) {
        return peerTableAddress + (long) index * ENTRY_BYTES;
    }

    int peerTableKey() {
        return peerTableKey;
    }

    /**
     * Writes {@code offer}'s 24-byte entry into {@code entry} (cleared first, then flipped for reading), in the byte
     * order of the peer's table.
     */
    static void encode(Offer offer, ByteBuffer entry, boolean bigEndian) {
        entry.clear().order(bigEndian ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
        entry.putLong(offer.offset()).putLong(offer.address()).putInt(offer.rkey()).putInt(offer.length()).flip();
    }
}
