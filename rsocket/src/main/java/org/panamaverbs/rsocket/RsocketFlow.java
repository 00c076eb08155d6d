package org.panamaverbs.rsocket;

import static org.panamaverbs.rsocket.RsocketWire.CTRL_DISCONNECT;
import static org.panamaverbs.rsocket.RsocketWire.CTRL_SHUTDOWN;
import static org.panamaverbs.rsocket.RsocketWire.OP_CTRL;
import static org.panamaverbs.rsocket.RsocketWire.OP_DATA;
import static org.panamaverbs.rsocket.RsocketWire.OP_SGL;
import static org.panamaverbs.rsocket.RsocketWire.SGE_BYTES;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One rsocket stream's sequence numbers, credits and buffers, as {@code rsocket.c} keeps them (its names in
 * the comments), without a device: what to post is handed to a {@link WorkPoster} and completions come back
 * through {@link #onSendCompleted} and {@link #onReceive}. Single-threaded: the connection's event loop calls
 * every method.
 *
 * <p>Memory: {@code sendMemory} is the send buffer ({@code sbuf}) followed by four 16-byte control slots
 * (the {@code rs_sge} of credit updates); {@code receiveMemory} is the receive buffer ({@code rbuf}) followed
 * by the two-entry target list the peer writes its buffer grants into and the iomap table it writes its mapped
 * regions into ({@link RsocketIomap}). Both stay alive until every request posted from them completed or the
 * queue pair is destroyed.
 *
 * <p>Differences from rsocket that do not show on the wire: a send is released by the completion of any
 * later send (selective signalling) instead of its own; a target list entry is used only after the credit
 * update that wrote it completed here (its receive reports 16 bytes), so a half-written entry is never read.
 */
public final class RsocketFlow {
    /** {@code RS_SNDLOWAT}: a data send needs this much free send buffer. */
    public static final int SEND_LOW_WATER = 2048;
    /** {@code RS_OLAP_START_SIZE}: the first transfer of a write; each next one doubles up to the maximum. */
    static final int FIRST_TRANSFER = 2048;
    /** {@code RS_MAX_TRANSFER}. */
    static final int MAX_TRANSFER = 65536;
    /** {@code RS_QP_CTRL_SIZE}: control messages in flight at most. */
    static final int CONTROL_SLOTS = 4;
    /** {@code RS_QP_MIN_SIZE}. */
    public static final int MIN_QUEUE = 16;
    /** {@code RS_QP_MAX_SIZE}. */
    public static final int MAX_QUEUE = 0xFFFE;

    // layouts made once: a layout made per call (withOrder) costs an allocation and a var handle lookup per update
    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** The bit that marks a work request id as a receive's ({@link #receiveId()}); sends' ids never carry it. */
    public static final long RECEIVE_FLAG = 1L << 63;
    private static final int TAG_SHIFT = 48;
    private static final long SEQUENCE_MASK = (1L << TAG_SHIFT) - 1;

    private final int sendQueueSize;
    private final int receiveQueueSize;
    private final int sendBufferSize;
    private final int receiveBufferSize;
    private final MemorySegment sendMemory;
    private final MemorySegment receiveMemory;
    private final ByteBuffer sendView;
    private final ByteBuffer receiveView;
    private final long receiveAddress;
    private final int receiveKey;
    private final WorkPoster poster;
    private final long tag;
    private final RsocketIomap iomap;
    private final ByteBuffer iomapEntry = ByteBuffer.allocate(RsocketIomap.ENTRY_BYTES);
    private final ByteBufferSource entrySource = new ByteBufferSource(iomapEntry);
    private final ByteBufferSource bufferSource = new ByteBufferSource(null);
    private final ByteBufferSink bufferSink = new ByteBufferSink();

    // the peer
    private long remoteTargetAddress; // remote_sgl
    private int remoteTargetKey;
    private int remoteTargetSlots;
    private int remoteTargetIndex;    // remote_sge
    private boolean swapUpdates;      // RS_OPT_SWAP_SGL

    // sending
    private int sendSequence;         // sseq_no (16 bit)
    private int sendLimit;            // sseq_comp (16 bit)
    private int sendQueueAvailable;   // sqe_avail
    private int sendBufferAvailable;  // sbuf_bytes_avail
    private int sendBufferHead;       // ssgl[0].addr - sbuf
    private int transfer;             // the next transfer's size in this write (olen)
    private int controlSequence;      // ctrl_seqno
    private int controlLimit;         // ctrl_max_seqno
    private int slotsGranted = 1;     // the first comes in the connection data
    private int slotsUsed;
    private long slotAddress;         // target_sgl[target_sge], as far as not used yet
    private int slotKey;
    private int slotLeft;
    private boolean slotLoaded;

    // what is in flight, for selective signalling: sequence -> bytes of send buffer (or -1: a control message)
    private final int[] inFlight;
    private long nextSequence = 1;
    private long releasedSequence;

    // receiving
    private int receiveSequence;      // rseq_no (16 bit)
    private int receiveLimit;         // rseq_comp (16 bit)
    private int receiveBufferAvailable; // rbuf_bytes_avail
    private int receiveFreeOffset;    // rbuf_free_offset
    private int receiveOffset;        // rbuf_offset
    private final int[] messages;     // rmsg: lengths of the data messages not yet read
    private int messageHead;
    private int messageTail;
    private int messageBytes;
    private int receivesToPost;

    // state
    private boolean connected;
    private boolean outputOpen;
    private boolean inputOpen;
    private boolean peerShutdownOutput;
    private boolean peerDisconnected;
    private boolean closedLocally;
    private int pendingControl = -1;
    private String failure;

    /**
     * A stream over a connection's memory; {@link #start} with the peer's connection data before anything else.
     *
     * @param sendQueueSize     the queue pair's send queue depth ({@code sq_size}), control messages included
     * @param receiveQueueSize  its receive queue depth ({@code rq_size}): the credits this side grants
     * @param sendBufferSize    the send ring's bytes ({@code sbuf_size}), at least {@code 2 * SEND_LOW_WATER}
     * @param receiveBufferSize the receive ring's bytes ({@code rbuf_size}), even, at least {@code 2 * SEND_LOW_WATER}
     * @param iomapEntries      entries of this side's iomap table ({@link RsocketIomap#roundedSize}), 0 for none
     * @param sendMemory        {@link #sendMemoryBytes} of memory registered for local read; alive until every
     *                          request posted from it completed or the queue pair is destroyed
     * @param receiveMemory     {@link #receiveMemoryBytes} of memory registered for remote write; alive as long
     * @param receiveAddress    {@code receiveMemory}'s address as the peer writes to it
     * @param receiveKey        its rkey
     * @param poster            where the flow appends and posts its work requests
     * @param tag               15 bits that mark this flow's work request ids ({@link #owns}) on a shared queue
     * @throws IllegalArgumentException if the buffers are too small, the receive buffer odd or the memory short
     */
    public RsocketFlow(int sendQueueSize, int receiveQueueSize, int sendBufferSize, int receiveBufferSize,
            int iomapEntries, MemorySegment sendMemory, MemorySegment receiveMemory, long receiveAddress, int receiveKey,
            WorkPoster poster, int tag) {
        if (sendBufferSize < 2 * SEND_LOW_WATER || receiveBufferSize < 2 * SEND_LOW_WATER
                || (receiveBufferSize & 1) != 0) {
            throw new IllegalArgumentException("buffers of at least " + 2 * SEND_LOW_WATER + " bytes (even for receive)"
                    + " needed, not send " + sendBufferSize + " / receive " + receiveBufferSize);
        }
        if (sendMemory.byteSize() < sendMemoryBytes(sendBufferSize)
                || receiveMemory.byteSize() < receiveMemoryBytes(receiveBufferSize, iomapEntries)) {
            throw new IllegalArgumentException("memory smaller than the buffers need");
        }
        this.sendQueueSize = sendQueueSize;
        this.receiveQueueSize = receiveQueueSize;
        this.sendBufferSize = sendBufferSize;
        this.receiveBufferSize = receiveBufferSize;
        this.sendMemory = sendMemory;
        this.receiveMemory = receiveMemory;
        this.sendView = sendMemory.asByteBuffer();
        this.receiveView = receiveMemory.asByteBuffer();
        this.receiveAddress = receiveAddress;
        this.receiveKey = receiveKey;
        this.poster = poster;
        this.tag = (long) (tag & 0x7FFF) << TAG_SHIFT;
        this.iomap = new RsocketIomap(iomapEntries);
        this.inFlight = new int[sendQueueSize];
        this.messages = new int[receiveQueueSize + 1];
        // rs_init_bufs
        sendBufferAvailable = sendBufferSize;
        receiveFreeOffset = receiveBufferSize >> 1;
        receiveBufferAvailable = receiveBufferSize >> 1;
        sendQueueAvailable = sendQueueSize - CONTROL_SLOTS;
        controlLimit = CONTROL_SLOTS;
        receiveLimit = receiveQueueSize >> 1;
    }

    /**
     * Bytes of send memory a flow with this send buffer uses: the buffer and the control slots.
     *
     * @param sendBufferSize the send ring's bytes
     * @return the bytes to register for the flow's send memory
     */
    public static int sendMemoryBytes(int sendBufferSize) {
        return sendBufferSize + CONTROL_SLOTS * SGE_BYTES;
    }

    /**
     * Bytes of receive memory: the buffer, the target list and the iomap table of {@code iomapEntries} (rounded
     * as {@link RsocketIomap#roundedSize}); the peer writes into all three.
     *
     * @param receiveBufferSize the receive ring's bytes
     * @param iomapEntries      the iomap table's entries, already rounded
     * @return the bytes to register for the flow's receive memory
     */
    public static int receiveMemoryBytes(int receiveBufferSize, int iomapEntries) {
        return iomapTableOffset(receiveBufferSize) + iomapEntries * RsocketIomap.ENTRY_BYTES;
    }

    private static int iomapTableOffset(int receiveBufferSize) {
        return receiveBufferSize + RsocketWire.TARGET_SLOTS * SGE_BYTES;
    }

    /**
     * The connection data this side sends ({@code rs_format_conn_data}): our updates are little-endian, and the
     * iomap table follows the target list, as in rsocket.
     *
     * @return the 40 bytes' fields, for {@code rdma_connect} or {@code rdma_accept}
     */
    public RsocketWire.ConnectionData localData() {
        return new RsocketWire.ConnectionData(RsocketWire.FLAG_IOMAP, receiveQueueSize,
                RsocketWire.valueToScale(iomap.size()), receiveAddress + receiveBufferSize, receiveKey,
                RsocketWire.TARGET_SLOTS, receiveAddress, receiveKey, receiveBufferSize >> 1);
    }

    /** How many receives to post before connecting (each data or control message consumes one). */
    int receiveQueueSize() {
        return receiveQueueSize;
    }

    /**
     * Takes the peer's connection data ({@code rs_save_conn_data}). Nothing is posted: once the connection is
     * established, {@link #afterCompletions()} grants the second half of the receive buffer (the passive side
     * calls this before {@code rdma_accept}, when its queue pair cannot send yet).
     *
     * @param peer the peer's connection data (from the connect request, or the established event)
     */
    public void start(RsocketWire.ConnectionData peer) {
        remoteTargetAddress = peer.targetAddress();
        remoteTargetKey = peer.targetKey();
        remoteTargetSlots = peer.targetSlots();
        remoteTargetIndex = 1;
        swapUpdates = peer.networkOrder();
        sendLimit = peer.credits() & 0xFFFF;
        slotAddress = peer.bufferAddress();
        slotKey = peer.bufferKey();
        slotLeft = peer.bufferLength();
        slotLoaded = true;
        iomap.start(peer);
        connected = true;
        outputOpen = true;
        inputOpen = true;
    }

    // ---------------------------------------------------------------------------------------------- sending

    /**
     * {@code rs_can_send}: a send queue entry, 2 KiB of send buffer, a credit and a granted target.
     *
     * @return whether a write would take bytes now
     */
    public boolean canSend() {
        return connected && outputOpen && sendQueueAvailable > 0 && sendBufferAvailable >= SEND_LOW_WATER
                && sendSequence != sendLimit && loadSlot();
    }

    private boolean loadSlot() {
        if (slotLoaded) {
            return slotLeft > 0 || advanceSlot();
        }
        return advanceSlot();
    }

    /** Moves to the next target entry once the peer's update of it has arrived. */
    private boolean advanceSlot() {
        if (slotLoaded && slotLeft > 0) {
            return true;
        }
        if (slotLoaded) {
            slotsUsed++;
            slotLoaded = false;
        }
        if (slotsUsed >= slotsGranted) {
            return false;
        }
        long offset = receiveBufferSize + (long) (slotsUsed % RsocketWire.TARGET_SLOTS) * SGE_BYTES;
        slotAddress = receiveMemory.get(LONG_LE, offset);
        slotKey = receiveMemory.get(INT_LE, offset + 8);
        slotLeft = receiveMemory.get(INT_LE, offset + 12);
        slotLoaded = true;
        if (slotLeft <= 0) {
            fail("the peer granted a target of " + Integer.toUnsignedString(slotLeft) + " bytes");
            return false;
        }
        return true;
    }

    /**
     * {@code rsend}: copies as much of {@code source} as credits, send buffer and target allow into the send
     * buffer and appends its RDMA WRITE WITH IMM requests (call {@link #flush()} to post them). Transfers start
     * at 2 KiB and double up to 64 KiB, as rsocket's do.
     *
     * @param source the bytes to send, from its position to its limit
     * @return the bytes taken from {@code source} (its position moved past them); 0 when nothing can be sent now
     */
    public int write(ByteBuffer source) {
        bufferSource.buffer = source;
        try {
            return write(bufferSource);
        } finally {
            bufferSource.buffer = null;
        }
    }

    /**
     * {@link #write(ByteBuffer)} from a transport's own buffer type.
     *
     * @param source the bytes to send (it moves past what was taken)
     * @return the bytes taken from {@code source}; 0 when nothing can be sent now
     */
    public int write(ByteSource source) {
        sendOffers();
        int taken = 0;
        transfer = FIRST_TRANSFER;
        while (source.remaining() > 0 && canSend()) {
            int size = nextTransfer(source.remaining());
            size = Math.min(size, Math.min(sendBufferAvailable, slotLeft));
            int offset0 = copyToRing(source, size);
            // rs_write_data
            sendSequence = (sendSequence + 1) & 0xFFFF;
            sendQueueAvailable--;
            sendBufferAvailable -= size;
            long remote = slotAddress;
            slotAddress += size;
            slotLeft -= size;
            int first = firstPart(offset0, size);
            poster.writeWithImmediate(track(size), false, offset0, first, 0, size - first, remote, slotKey,
                    RsocketWire.message(OP_DATA, size));
            taken += size;
        }
        return taken;
    }

    /**
     * {@code riowrite}: copies as much of {@code source} as the send queue, send buffer and credits allow (rsocket
     * asks {@code rs_can_send} for a direct write too) and appends RDMA WRITEs without immediate into the peer's
     * regions, from {@code offset} on; the peer's software sees nothing. Transfers start at 2 KiB and double, and
     * end at a region's end, as riowrite's do.
     *
     * @param source the bytes to write, from its position to its limit (its position moves past what was taken)
     * @param offset where the first byte goes, in the offsets the peer's regions were offered at
     * @return the bytes taken from {@code source}; 0 when nothing can be sent now or no region of the peer holds
     *         {@code offset} (check with {@link #peerRegionsCover} first)
     */
    public int writeDirect(ByteBuffer source, long offset) {
        bufferSource.buffer = source;
        try {
            return writeDirect(bufferSource, offset);
        } finally {
            bufferSource.buffer = null;
        }
    }

    /**
     * {@link #writeDirect(ByteBuffer, long)} from a transport's own buffer type.
     *
     * @param source the bytes to write (it moves past what was taken)
     * @param offset where the first byte goes, in the offsets the peer's regions were offered at
     * @return the bytes taken from {@code source}; 0 when nothing can be sent now or no region holds {@code offset}
     */
    public int writeDirect(ByteSource source, long offset) {
        sendOffers();
        int taken = 0;
        transfer = FIRST_TRANSFER;
        while (source.remaining() > 0 && canSend()) {
            long at = offset + taken;
            int entry = iomap.find(at);
            if (entry < 0) {
                break;
            }
            int size = nextTransfer(source.remaining());
            size = (int) Math.min(Math.min(size, sendBufferAvailable), iomap.end(entry) - at);
            int offset0 = copyToRing(source, size);
            // rs_write_direct: no sequence number, nothing received on the other side
            sendQueueAvailable--;
            sendBufferAvailable -= size;
            int first = firstPart(offset0, size);
            poster.write(track(size), offset0, first, 0, size - first, iomap.address(entry, at), iomap.key(entry));
            taken += size;
        }
        return taken;
    }

    /**
     * Whether the regions the peer mapped hold every byte of {@code [offset, offset + length)}.
     *
     * @param offset the first byte's offset
     * @param length the bytes
     * @return true if a direct write of them has somewhere to go
     */
    public boolean peerRegionsCover(long offset, long length) {
        return iomap.covers(offset, length);
    }

    /**
     * The regions the peer mapped, for messages.
     *
     * @return their offset ranges, such as {@code [5000, 105000)}
     */
    public String describePeerRegions() {
        return iomap.describePeer();
    }

    /**
     * {@code riomap(PROT_WRITE)}: offers a region of ours to the peer in the first free slot of its table; the
     * entry goes before any data written after this call.
     *
     * @param offset  the offset the peer's direct writes name the region's first byte by
     * @param address the region's address
     * @param length  its bytes
     * @param rkey    its rkey (registered for remote write)
     * @return the slot, to {@link #withdrawRegion} it
     * @throws IllegalStateException if the peer has no table or no free slot (rsocket's ENOMEM)
     */
    public int offerRegion(long offset, long address, int length, int rkey) {
        int slot = iomap.offer(offset, address, length, rkey);
        sendOffers();
        flush();
        return slot;
    }

    /**
     * {@code riounmap}: the slot is free again; the peer is not told (as in rsocket).
     *
     * @param slot what {@link #offerRegion} returned
     */
    public void withdrawRegion(int slot) {
        iomap.withdraw(slot);
    }

    /** {@code rs_send_iomaps}: each entry an RDMA WRITE WITH IMM into the peer's table, as long as we may send. */
    private void sendOffers() {
        while (iomap.hasUnsent() && canSend()) {
            RsocketIomap.Offer offer = iomap.nextUnsent();
            RsocketIomap.encode(offer, iomapEntry, swapUpdates);
            int size = RsocketIomap.ENTRY_BYTES;
            int offset0 = copyToRing(entrySource, size);
            // rs_write_iomap
            sendSequence = (sendSequence + 1) & 0xFFFF;
            sendQueueAvailable--;
            sendBufferAvailable -= size;
            int first = firstPart(offset0, size);
            poster.writeWithImmediate(track(size), false, offset0, first, 0, size - first,
                    iomap.slotAddress(offer.index()), iomap.peerTableKey(),
                    RsocketWire.message(RsocketWire.OP_IOMAP_SGL, offer.index()));
        }
    }

    /** The next transfer of a call: the first 2 KiB, each next doubled up to 64 KiB, the last what is left. */
    private int nextTransfer(int left) {
        if (transfer >= left) {
            return left;
        }
        int size = transfer;
        if (transfer < MAX_TRANSFER) {
            transfer <<= 1;
        }
        return size;
    }

    /** Copies {@code size} bytes of {@code source} to the head of the send buffer, wrapping; returns where they begin. */
    private int copyToRing(ByteSource source, int size) {
        int offset0 = sendBufferHead;
        int first = firstPart(offset0, size);
        copyIn(source, offset0, first);
        if (size > first) {
            copyIn(source, 0, size - first);
        }
        sendBufferHead = (offset0 + size) % sendBufferSize;
        return offset0;
    }

    /** The bytes of a copy at {@code offset0} that fit before the send buffer wraps. */
    private int firstPart(int offset0, int size) {
        return Math.min(size, sendBufferSize - offset0);
    }

    private void copyIn(ByteSource source, int offset, int length) {
        sendView.limit(offset + length).position(offset);
        source.copyTo(sendView);
    }

    private long track(int bytes) {
        long sequence = nextSequence++;
        inFlight[(int) (sequence % inFlight.length)] = bytes;
        return tag | sequence;
    }

    /** Posts what {@link #write} and the control messages appended; a failed post becomes {@link #failure()}. */
    public void flush() {
        int rc = poster.flush();
        if (rc != 0) {
            fail("ibv_post_send failed with errno " + rc);
        }
    }

    /**
     * {@code rs_conn_all_sends_done}: nothing posted is waiting for its completion.
     *
     * @return true when the send memory is no longer in use by the device
     */
    public boolean allSendsDone() {
        return releasedSequence == nextSequence - 1;
    }

    /** {@code rs_ctrl_avail}. */
    private boolean controlAvailable() {
        return controlSequence != controlLimit;
    }

    /** rsocket's keepalive: a zero-byte RDMA WRITE the peer's adapter acknowledges without its software. */
    public void sendKeepalive() {
        if (connected && controlAvailable()) {
            controlSequence++;
            poster.writeZeroBytes(track(-1));
            flush();
        }
    }

    /** {@code rshutdown(SHUT_WR)}: SHUTDOWN while the input is open, else DISCONNECT. */
    public void shutdownOutput() {
        if (!outputOpen) {
            return;
        }
        outputOpen = false;
        if (connected) {
            control(inputOpen && !peerShutdownOutput ? CTRL_SHUTDOWN : CTRL_DISCONNECT);
        }
    }

    /** {@code rshutdown(SHUT_RDWR)}, as {@code rclose} does: DISCONNECT, both directions closed. */
    public void close() {
        outputOpen = false;
        inputOpen = false;
        closedLocally = true;
        if (connected) {
            control(CTRL_DISCONNECT);
        }
    }

    private void control(int value) {
        if (controlAvailable()) {
            controlSequence++;
            poster.writeWithImmediate(track(-1), true, 0, 0, 0, 0, 0, 0, RsocketWire.message(OP_CTRL, value));
            flush();
            pendingControl = -1;
        } else {
            pendingControl = value; // sent as soon as a control slot completes
        }
    }

    /** {@code rs_give_credits}. */
    private boolean giveCredits() {
        return (receiveBufferAvailable >= (receiveBufferSize >> 1)
                || (short) (receiveSequence - receiveLimit) >= 0) && controlAvailable() && connected;
    }

    /** {@code rs_send_credits}: a new credit limit, with the next free half of the receive buffer if there is one. */
    private void sendCredits() {
        controlSequence++;
        receiveLimit = (receiveSequence + (receiveQueueSize >> 1)) & 0xFFFF;
        int credits = RsocketWire.message(OP_SGL, receiveSequence + receiveQueueSize);
        int half = receiveBufferSize >> 1;
        if (receiveBufferAvailable >= half) {
            int slot = sendBufferSize + (controlSequence & (CONTROL_SLOTS - 1)) * SGE_BYTES;
            ValueLayout.OfLong longLayout = swapUpdates ? LONG_BE : LONG_LE;
            ValueLayout.OfInt intLayout = swapUpdates ? INT_BE : INT_LE;
            sendMemory.set(longLayout, slot, receiveAddress + receiveFreeOffset);
            sendMemory.set(intLayout, slot + 8, receiveKey);
            sendMemory.set(intLayout, slot + 12, half);
            poster.writeWithImmediate(track(-1), true, slot, SGE_BYTES, 0, 0,
                    remoteTargetAddress + (long) remoteTargetIndex * SGE_BYTES, remoteTargetKey, credits);
            receiveBufferAvailable -= half;
            receiveFreeOffset += half;
            if (receiveFreeOffset >= receiveBufferSize) {
                receiveFreeOffset = 0;
            }
            if (++remoteTargetIndex == remoteTargetSlots) {
                remoteTargetIndex = 0;
            }
        } else {
            poster.writeWithImmediate(track(-1), true, 0, 0, 0, 0, 0, 0, credits);
        }
    }

    // ------------------------------------------------------------------------------------------- completions

    /**
     * Whether a work request id is one of this flow's (its tag).
     *
     * @param wrId a completion's work request id
     * @return true if this flow posted it; {@link #RECEIVE_FLAG} tells a receive from a send
     */
    public boolean owns(long wrId) {
        return (wrId & ~RECEIVE_FLAG & ~SEQUENCE_MASK) == tag;
    }

    /**
     * The id every receive of this flow carries.
     *
     * @return the work request id for the transport's receives
     */
    public long receiveId() {
        return RECEIVE_FLAG | tag;
    }

    /**
     * A send completed: it and every earlier send are done ({@code rs_poll_cq}'s send side).
     *
     * @param wrId   the completion's work request id
     * @param status null on success, else the status's name for the failure message
     */
    public void onSendCompleted(long wrId, String status) {
        long sequence = wrId & SEQUENCE_MASK;
        while (releasedSequence < sequence && releasedSequence < nextSequence - 1) {
            releasedSequence++;
            int bytes = inFlight[(int) (releasedSequence % inFlight.length)];
            if (bytes < 0) {
                controlLimit++;
            } else {
                sendQueueAvailable++;
                sendBufferAvailable += bytes;
            }
        }
        if (status != null && connected) {
            fail("a send completed with " + status);
        }
    }

    /**
     * A receive completed: an RDMA WRITE WITH IMM from the peer ({@code rs_poll_cq}'s receive side).
     *
     * @param immediate  the completion's immediate data (host order)
     * @param byteLength the bytes the write carried (16 for a credit update with a buffer grant)
     * @param status     null on success, else the status's name
     */
    public void onReceive(int immediate, int byteLength, String status) {
        if (status != null) {
            if (connected) {
                fail("a receive completed with " + status);
            }
            return;
        }
        receivesToPost++;
        int value = RsocketWire.value(immediate);
        switch (RsocketWire.op(immediate)) {
            case OP_SGL -> {
                sendLimit = value & 0xFFFF;
                if (byteLength >= SGE_BYTES) {
                    slotsGranted++;
                }
            }
            case RsocketWire.OP_IOMAP_SGL -> {
                // a region the peer mapped (riomap): its entry is in our table now; no sequence number, as in rsocket
                String wrong = iomap.received(value, receiveMemory, iomapTableOffset(receiveBufferSize));
                if (wrong != null) {
                    fail(wrong);
                }
            }
            case RsocketWire.OP_WRITE -> {
                // never carried by an immediate; rsocket ignores it too
            }
            case OP_CTRL -> {
                if (value == CTRL_DISCONNECT) {
                    peerDisconnected();
                } else if (value == CTRL_SHUTDOWN) {
                    if (outputOpen) {
                        peerShutdownOutput = true;
                    } else {
                        peerDisconnected();
                    }
                }
            }
            default -> {
                // DATA and the reserved data ops: rsocket queues them all as data
                if (value > receiveBufferSize) {
                    fail("the peer wrote " + value + " bytes into a receive buffer of " + receiveBufferSize);
                    return;
                }
                messages[messageTail] = value;
                if (++messageTail == messages.length) {
                    messageTail = 0;
                }
                if (messageTail == messageHead) {
                    fail("the peer sent more data messages than it had credits for (" + receiveQueueSize + ")");
                    return;
                }
                messageBytes += value;
            }
        }
    }

    private void peerDisconnected() {
        peerDisconnected = true;
        connected = false;
        outputOpen = false;
        pendingControl = -1;
    }

    /** After a batch of completions (or a read): repost receives, grant credits, post what is pending. */
    public void afterCompletions() {
        if (closedLocally) {
            // after DISCONNECT nothing more is granted or received; only a DISCONNECT still waiting for a slot goes
            if (pendingControl >= 0 && connected) {
                control(pendingControl);
            }
            return;
        }
        if (connected && receivesToPost > 0) {
            int rc = poster.postReceives(receivesToPost);
            receivesToPost = 0;
            if (rc != 0) {
                fail("ibv_post_recv failed with errno " + rc);
                return;
            }
        }
        if (pendingControl >= 0 && connected) {
            control(pendingControl);
        }
        if (giveCredits()) {
            sendCredits();
            flush();
        }
        if (iomap.hasUnsent()) {
            sendOffers();
            flush();
        }
    }

    // ---------------------------------------------------------------------------------------------- reading

    /**
     * Bytes received and not read yet.
     *
     * @return what {@link #read} would move into a large enough buffer
     */
    public int readableBytes() {
        return messageBytes;
    }

    /**
     * {@code rrecv}: moves as many received bytes as {@code target} has room for into it (call
     * {@link #afterCompletions()} afterwards to grant what was freed).
     *
     * @param target where the bytes go, from its position (which moves past them) up to its limit
     * @return the bytes moved
     */
    public int read(ByteBuffer target) {
        bufferSink.buffer = target;
        try {
            return read(bufferSink);
        } finally {
            bufferSink.buffer = null;
        }
    }

    /**
     * {@link #read(ByteBuffer)} into a transport's own buffer type.
     *
     * @param target where the bytes go, at most {@link ByteSink#room()} of them
     * @return the bytes moved
     */
    public int read(ByteSink target) {
        int left = Math.min(messageBytes, target.room());
        int moved = 0;
        while (left > 0 && messageHead != messageTail) {
            int size;
            if (left < messages[messageHead]) {
                size = left;
                messages[messageHead] -= left;
            } else {
                receiveSequence = (receiveSequence + 1) & 0xFFFF;
                size = messages[messageHead];
                if (++messageHead == messages.length) {
                    messageHead = 0;
                }
            }
            int end = receiveBufferSize - receiveOffset;
            if (size > end) {
                copyOut(target, receiveOffset, end);
                receiveOffset = 0;
                receiveBufferAvailable += end;
                moved += end;
                left -= end;
                size -= end;
            }
            copyOut(target, receiveOffset, size);
            receiveOffset += size;
            if (receiveOffset == receiveBufferSize) {
                receiveOffset = 0;
            }
            receiveBufferAvailable += size;
            moved += size;
            left -= size;
        }
        messageBytes -= moved;
        return moved;
    }

    private void copyOut(ByteSink target, int offset, int length) {
        receiveView.limit(offset + length).position(offset);
        target.copyFrom(receiveView);
    }

    // ------------------------------------------------------------------------------------------------ state

    private void fail(String message) {
        if (failure == null) {
            failure = message;
        }
        connected = false;
        outputOpen = false;
        pendingControl = -1;
    }

    /**
     * The first failure: a send or receive in error, a failed post or a protocol violation.
     *
     * @return what went wrong, or null
     */
    public String failure() {
        return failure;
    }

    /** Whether the stream can still move data and credits (rsocket's {@code rs_connected}). */
    boolean isConnected() {
        return connected;
    }

    /**
     * Whether this side may still write: not shut down, closed or disconnected.
     *
     * @return true until {@link #shutdownOutput}, {@link #close} or the peer's DISCONNECT
     */
    public boolean isOutputOpen() {
        return outputOpen;
    }

    /**
     * The peer shut its output down or disconnected: no data will come after what is readable.
     *
     * @return true after the peer's SHUTDOWN or DISCONNECT
     */
    public boolean isPeerOutputDone() {
        return peerShutdownOutput || peerDisconnected;
    }

    /**
     * The peer sent DISCONNECT.
     *
     * @return true once it arrived
     */
    public boolean isPeerDisconnected() {
        return peerDisconnected;
    }

    /** Data messages we may still send before the peer's next credit update (diagnostics). */
    int sendCreditsLeft() {
        return (sendLimit - sendSequence) & 0xFFFF;
    }

    @Override
    public String toString() {
        return "RsocketFlow[sseq " + sendSequence + "/" + sendLimit + ", sqe " + sendQueueAvailable + ", sbuf "
                + sendBufferAvailable + ", slots " + slotsUsed + "/" + slotsGranted + " left " + slotLeft + ", rseq "
                + receiveSequence + "/" + receiveLimit + ", rbuf " + receiveBufferAvailable + ", unread " + messageBytes
                + (connected ? "" : ", not connected") + (failure == null ? "" : ", failed: " + failure) + "]";
    }
}
