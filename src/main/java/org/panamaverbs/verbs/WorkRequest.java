package org.panamaverbs.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static org.panamaverbs.verbs.WorkRequestChain.MEMORY;

import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;

/**
 * A flyweight over one work request of a chain ({@link SendChain} or {@link RecvChain}): what
 * {@link SendWorkRequest} and {@link RecvWorkRequest} share, {@code wr_id} and the scatter-gather list.
 * Setters write the native fields directly and return the concrete request type, so calls chain
 * ({@code sends.get(0).wrId(1).opcode(WrOpcode.SEND).sge(region, 0, 64)}); nothing is allocated. Fields keep
 * their values between posts until changed. The {@code next} and {@code sg_list} pointers belong to the chain.
 *
 * <p>Threads: once a thread has posted the chain, every setter called from another thread throws
 * {@link WrongThreadException} and changes nothing, as a post would: what a post checks (regions, address
 * handles, inline lengths) is then exactly what the provider reads. Before the first post any thread may fill it.
 *
 * @param <W> the concrete request type, which the setters return
 */
public abstract sealed class WorkRequest<W extends WorkRequest<W>> permits SendWorkRequest, RecvWorkRequest {
    private final WorkRequestChain chain;
    /** The chain's native array, for the getters (which throw once the chain is closed). */
    final MemorySegment requests;
    final int index;
    /** Offset of this request in {@link #requests}. */
    final long base;
    // Absolute offsets, computed once: ibv_send_wr and ibv_recv_wr both have these fields, at offsets the
    // subclass passes in rather than this class assuming they coincide.
    private final long wrIdAt;
    private final long numSgeAt;
    /** Where this request lies in the chain's memory; setters write there through {@link WorkRequestChain#MEMORY}. */
    private final long address;
    /** {@code address} plus the offset of {@code wr_id}: the setter called before every post adds nothing. */
    private final long wrIdAddress;
    private final long numSgeOffset;

    WorkRequest(WorkRequestChain chain, int index, long requestSize, long wrIdOffset, long numSgeOffset) {
        this.chain = chain;
        this.requests = chain.requests;
        this.index = index;
        this.base = index * requestSize;
        this.wrIdAt = base + wrIdOffset;
        this.numSgeAt = base + numSgeOffset;
        this.address = requests.address() + base;
        this.wrIdAddress = address + wrIdOffset;
        this.numSgeOffset = numSgeOffset;
    }

    // The setters' access to their own request, between beginWrite and endWrite (whose owner test refuses a closed
    // chain); endWrite's reachability fence keeps the chain's memory alive through them.

    /** Writes the int at {@code offset} of this request. */
    final void putInt(long offset, int value) {
        MEMORY.set(JAVA_INT_UNALIGNED, address + offset, value);
    }

    /** Writes the long at {@code offset} of this request. */
    final void putLong(long offset, long value) {
        MEMORY.set(JAVA_LONG_UNALIGNED, address + offset, value);
    }

    /** Reads the int at {@code offset} of this request, in a setter. */
    final int intAt(long offset) {
        return MEMORY.get(JAVA_INT_UNALIGNED, address + offset);
    }

    /**
     * Called by every setter before it writes: refuses a thread other than the one that posts the chain. Pair
     * with {@link #endWrite(boolean)} in a finally block, passing what this returned.
     *
     * @return true while the chain has no posting thread yet (the write is then counted, so that the first post
     *         waits for it), false on the posting thread
     * @throws WrongThreadException if another thread has posted the chain
     */
    final boolean beginWrite() {
        return chain.beginWrite(); // the chain is its own in-flight marker, which knows the posting thread
    }

    /** Ends a setter's write begun with {@link #beginWrite()}, which returned {@code unbound}. */
    final void endWrite(boolean unbound) {
        if (unbound) {
            chain.endUnboundWrite();
        }
        Reference.reachabilityFence(this); // keeps the chain, so its memory, alive through the setter's stores
    }

    /**
     * {@code this} as the concrete type. Safe: the sealed subclasses are exactly
     * {@code SendWorkRequest extends WorkRequest<SendWorkRequest>} and {@code RecvWorkRequest extends
     * WorkRequest<RecvWorkRequest>}. An unchecked cast erases to nothing, unlike an overridden method.
     */
    @SuppressWarnings("unchecked")
    private W self() {
        return (W) this;
    }

    /**
     * Sets {@code wr_id}, returned in this request's completion.
     *
     * @param wrId any value the application chooses, typically an index or a buffer id; the library never
     *             reads it, and {@link WorkCompletion#wrId()} returns it unchanged
     * @return this request, for chaining
     * @throws WrongThreadException      if another thread has posted the chain
     */
    public final W wrId(long wrId) {
        boolean unbound = beginWrite(); // also refuses a closed chain
        try {
            MEMORY.set(JAVA_LONG_UNALIGNED, wrIdAddress, wrId);
        } finally {
            endWrite(unbound);
        }
        return self();
    }

    /** {@return {@code wr_id}, as last set (0 in a new chain); {@link WorkCompletion#wrId()} reads it back} */
    public final long wrId() {
        return requests.get(JAVA_LONG, wrIdAt);
    }

    /**
     * Makes this request carry exactly one scatter-gather entry: {@code length} bytes at {@code offset}
     * of {@code region}.
     *
     * @param region the registered region the bytes lie in; it must stay open, and its memory alive, until
     *               the request's completion is polled (a post checks it is open; the device uses the memory
     *               after the post returns, except for an inline send, which copies it during the post)
     * @param offset the first byte, counted from the start of {@code region}, 0 to its size
     * @param length the number of bytes, 0 or more, with {@code offset + length} within the region
     * @return this request, for chaining
     * @throws IndexOutOfBoundsException if the slice leaves the region, or the chain has no SGE room
     * @throws IllegalStateException     if the region is closed
     * @throws WrongThreadException      if another thread has posted the chain
     */
    public final W sge(MemoryRegion region, long offset, int length) {
        boolean unbound = beginWrite();
        try {
            chain.writeSge(index, 0, region, offset, length);
            putInt(numSgeOffset, 1); // entry 0 exists and was just checked: writeSge checked it against maxSge
        } finally {
            endWrite(unbound);
        }
        return self();
    }

    /**
     * Writes scatter-gather entry {@code sgeIndex} (0-based); set the count with {@link #numSge(int)}.
     *
     * @param sgeIndex the entry, 0 to the chain's {@code maxSge} - 1
     * @param region   the registered region the bytes lie in; it must stay open, and its memory alive, until
     *                 the request's completion is polled (a post checks it is open; the device uses the memory
     *                 after the post returns, except for an inline send, which copies it during the post)
     * @param offset   the first byte, counted from the start of {@code region}, 0 to its size
     * @param length   the number of bytes, 0 or more, with {@code offset + length} within the region
     * @return this request, for chaining
     * @throws IndexOutOfBoundsException if the slice leaves the region or {@code sgeIndex} exceeds the chain's maxSge
     * @throws IllegalStateException     if the region is closed
     * @throws WrongThreadException      if another thread has posted the chain
     */
    public final W sge(int sgeIndex, MemoryRegion region, long offset, int length) {
        boolean unbound = beginWrite();
        try {
            chain.writeSge(index, sgeIndex, region, offset, length);
        } finally {
            endWrite(unbound);
        }
        return self();
    }

    /**
     * Writes scatter-gather entry {@code sgeIndex} from an {@link Sge}; set the count with {@link #numSge(int)}.
     *
     * @param sgeIndex the entry, 0 to the chain's {@code maxSge} - 1
     * @param sge      the slice to write; its region must stay open, and its memory alive, until the request's
     *                 completion is polled
     * @return this request, for chaining
     * @throws IndexOutOfBoundsException if {@code sgeIndex} exceeds the chain's maxSge
     * @throws IllegalStateException     if the entry's region was closed since the entry was made
     * @throws WrongThreadException      if another thread has posted the chain
     */
    public final W sge(int sgeIndex, Sge sge) {
        boolean unbound = beginWrite();
        try {
            chain.writeSge(index, sgeIndex, sge);
        } finally {
            endWrite(unbound);
        }
        return self();
    }

    /**
     * Sets {@code num_sge}: how many of this request's entries are used.
     *
     * @param count the number of entries, 0 to the chain's {@code maxSge}; entries 0 to {@code count - 1}
     *              must have been written (an unwritten entry is all zero and names no memory)
     * @return this request, for chaining
     * @throws IndexOutOfBoundsException if {@code count} is negative or exceeds the chain's maxSge
     * @throws WrongThreadException      if another thread has posted the chain
     */
    public final W numSge(int count) {
        boolean unbound = beginWrite();
        try {
            chain.checkSgeCount(count);
            int old = intAt(numSgeOffset);
            putInt(numSgeOffset, count);
            if (count > old) {
                chain.entriesAdded(index); // entries the last region check never walked are in use now
            }
        } finally {
            endWrite(unbound);
        }
        return self();
    }

    /** {@return {@code num_sge}: how many entries the request uses, as last set} */
    public final int numSge() {
        return requests.get(JAVA_INT, numSgeAt);
    }

    /** {@return the index of this request in its chain, 0-based} */
    public final int index() {
        return index;
    }

    /** The sum of the lengths of the first {@code num_sge} entries: the payload of a send, the room of a receive. */
    final long payloadLength() {
        return chain.payloadLength(index, numSge());
    }
}
