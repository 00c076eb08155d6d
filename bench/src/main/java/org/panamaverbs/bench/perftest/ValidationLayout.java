package org.panamaverbs.bench.perftest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The buffer of perftest 26.04's {@code --data_validation} ({@code compute_validation_layout} in its
 * {@code validation_common.h}), named once: three pattern messages (bytes 0x01, 0x02, 0x03), then a tail marker
 * (8 bytes) per chunk of each queue pair, then each queue pair's ring of receive slots, then the fetch-and-adds'
 * return values, each part from a 64-byte boundary. A chunk is {@link #opsPerChunk} messages; after a chunk's last
 * message the writer (or reader) chains a fetch-and-add of 1 on the chunk's tail marker at the peer, whose validators
 * then check the chunk. The ring of a queue pair holds {@link #chunksPerQp} chunks; each pass over it writes the next
 * pattern, so a marker that says {@code m} means pattern {@link #pattern} of {@code m - 1}.
 *
 * @param payload          the message size ({@code -s})
 * @param opsPerChunk      messages per chunk ({@code validation_chunk_size})
 * @param chunksPerQp      chunks in a queue pair's ring ({@code validation_chunks_per_qp})
 * @param queuePairs       {@code -q}
 * @param read             READ mode: the reader validates what it read, its markers the fetch-and-adds' returns
 * @param markersOffset    where the tail markers start
 * @param slotsOffset      where the receive slots start
 * @param returnsOffset    where the fetch-and-adds' return values start
 * @param totalSize        the buffer's size
 */
record ValidationLayout(long payload, int opsPerChunk, int chunksPerQp, int queuePairs, boolean read,
        long markersOffset, long slotsOffset, long returnsOffset, long totalSize) {
    /** The patterns a ring's passes cycle through. */
    static final int PATTERNS = 3;
    /** perftest's {@code VALIDATION_MIN_CHUNK_BYTES} and {@code VALIDATION_MAX_CHUNK_BYTES}. */
    private static final long MIN_CHUNK_BYTES = 64 * 1024;
    private static final long MAX_CHUNK_BYTES = 8 * 1024 * 1024;
    private static final int MAX_CHUNKS_PER_QP = 24;
    /** perftest refuses shallower send queues. */
    static final int MIN_TX_DEPTH = 32;
    private static final ValueLayout.OfLong MARKER = ValueLayout.JAVA_LONG;

    /** The layout perftest derives for messages of {@code payload} bytes, a send queue of {@code txDepth}. */
    static ValidationLayout of(long payload, int txDepth, int queuePairs, boolean read) {
        int ops = opsPerChunk(payload, txDepth);
        int chunks = chunksPerQp(payload * ops, queuePairs, read);
        long markers = alignToCacheLine(payload * PATTERNS);
        long slots = alignToCacheLine(markers + (long) queuePairs * chunks * Long.BYTES);
        long slotBytes = Math.multiplyExact(Math.multiplyExact(Math.multiplyExact(payload, (long) ops), chunks),
                (long) queuePairs);
        long returns = alignToCacheLine(slots + slotBytes);
        long returnsSize = (read ? (long) queuePairs * chunks : queuePairs) * Long.BYTES;
        return new ValidationLayout(payload, ops, chunks, queuePairs, read, markers, slots, returns, returns + returnsSize);
    }

    /** {@code derive_validation_chunk_size}: {@code tx_depth} messages, stretched or cut to 64 KiB - 8 MiB a chunk. */
    static int opsPerChunk(long payload, int txDepth) {
        long bytes = payload * txDepth;
        if (bytes < MIN_CHUNK_BYTES) {
            long needed = (MIN_CHUNK_BYTES + payload - 1) / payload;
            return (int) ((needed + txDepth - 1) / txDepth * txDepth);
        }
        if (bytes > MAX_CHUNK_BYTES) {
            long target = MAX_CHUNK_BYTES / payload;
            return (int) (target >= txDepth ? target / txDepth * txDepth : Math.max(target, 1));
        }
        return txDepth;
    }

    /** {@code derive_validation_chunks_per_qp}: a deeper ring for small chunks, few queue pairs and READ. */
    static int chunksPerQp(long chunkBytes, int queuePairs, boolean read) {
        int base = chunkBytes < 128 * 1024 ? 12 : chunkBytes < 512 * 1024 ? 10 : chunkBytes < 2 * 1024 * 1024 ? 8
                : chunkBytes < 8 * 1024 * 1024 ? 6 : 4;
        if (queuePairs <= 2) {
            base *= 2;
        } else if (queuePairs <= 4) {
            base = base * 3 / 2;
        }
        if (read) {
            base = base * 3 / 2;
        }
        return Math.min(base, MAX_CHUNKS_PER_QP);
    }

    private static long alignToCacheLine(long offset) {
        return (offset + 63) & ~63L;
    }

    /** The pattern byte of a ring's pass {@code cycle} (0, 1, 2, 3...: 0x01, 0x02, 0x03, 0x01...). */
    static byte pattern(long cycle) {
        return (byte) (1 + Long.remainderUnsigned(cycle, PATTERNS));
    }

    /** Messages in a queue pair's ring. */
    int slotsPerQp() {
        return opsPerChunk * chunksPerQp;
    }

    /** Bytes of a chunk. */
    long chunkBytes() {
        return payload * opsPerChunk;
    }

    /** Where queue pair {@code q}'s ring starts. */
    long ringOffset(int q) {
        return slotsOffset + (long) q * slotsPerQp() * payload;
    }

    /** Where chunk {@code chunk} of queue pair {@code q} starts. */
    long chunkOffset(int q, int chunk) {
        return ringOffset(q) + chunk * chunkBytes();
    }

    /** The index of queue pair {@code q}'s chunk among all tail markers (and READ's return values). */
    int markerIndex(int q, int chunk) {
        return q * chunksPerQp + chunk;
    }

    /**
     * Where the validators of this side read chunk {@code index}'s marker: its tail marker (WRITE: the peer's
     * fetch-and-adds advance it) or, READ, the value this side's own fetch-and-add returned.
     */
    long watchedMarkerOffset(int index) {
        return (read ? returnsOffset : markersOffset) + (long) index * Long.BYTES;
    }

    /**
     * Where the fetch-and-add after chunk {@code index} puts the old value: READ a place per chunk (its validators
     * read it), WRITE one per queue pair that nobody reads.
     */
    long returnOffset(int q, int index) {
        return returnsOffset + (long) (read ? index : q) * Long.BYTES;
    }

    /** What this side offers queue pair {@code q}'s peer: its ring (WRITE), or the patterns to read (READ). */
    long offeredOffset(int q) {
        return read ? 0 : ringOffset(q);
    }

    /**
     * perftest's {@code initialize_buffer_content} for {@code --data_validation}: the buffer zeroed, the three
     * patterns, and in READ mode every tail marker at 1, so that the first fetch-and-add returns pattern 0's marker.
     */
    void initialize(MemorySegment buffer) {
        buffer.asSlice(0, totalSize).fill((byte) 0);
        for (int p = 0; p < PATTERNS; p++) {
            buffer.asSlice(p * payload, payload).fill(pattern(p));
        }
        if (read) {
            for (int i = 0; i < queuePairs * chunksPerQp; i++) {
                buffer.set(MARKER, markersOffset + (long) i * Long.BYTES, 1L);
            }
        }
    }

    /**
     * {@code --data_validation_debug}'s lines about the layout, as perftest prints them while it parses the command
     * line and fills the buffer.
     */
    String describe(int txDepth) {
        return "[DATA_VALIDATION] validation_chunk_size=" + opsPerChunk + " (tx_depth=" + txDepth + "), chunk_bytes="
                + chunkBytes() + ", chunks_per_qp=" + chunksPerQp + ", ring_size=" + chunkBytes() * chunksPerQp
                + " bytes\nData validation: Initialized patterns (0x01, 0x02, 0x03), payload_size=" + payload
                + "\nData validation: tail_markers at offset " + markersOffset + ", recv_slots at offset " + slotsOffset
                + ", total buffer " + totalSize + " (64-byte aligned)";
    }
}
