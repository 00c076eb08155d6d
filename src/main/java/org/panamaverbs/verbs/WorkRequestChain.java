package org.panamaverbs.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;

import org.panamaverbs.ffi.ibv_sge;

/**
 * What {@link SendChain} and {@link RecvChain} share: a native array of work requests
 * linked through {@code next}, each with its own scatter-gather array, and the {@code bad_wr} slot the
 * provider fills when a post fails. Posting the first {@code n} requests cuts the chain after request
 * {@code n - 1} (a NULL {@code next}), so one array serves any count; the cut stays until a post of another count
 * moves it, so posting the same count again writes nothing.
 *
 * <p>The fast path: a post that finds the chain {@linkplain #isReady ready} for its count (what {@link PostProof}
 * proved of its last post still holds) checks nothing more than the target, and calls the provider.
 *
 * <p>Memory: the arrays belong to an automatic arena, and the post hands the provider that segment, whose
 * scope costs a downcall nothing (no atomic acquire/release, unlike a shared arena's). Java writes the
 * requests through a second view of the same memory scoped to a shared arena, which {@link #close()}
 * ends: flyweights then throw, posts throw, and the memory is returned once the chain is unreachable, so a
 * post racing a close from another thread still reads live memory.
 *
 * <p>Threads: a chain belongs to the first thread that posts it; a post, or a setter of a request
 * ({@link WorkRequest}), from any other thread throws {@link WrongThreadException}. Fill it on any thread
 * before that first post (which waits for a setter still running on another thread), then only on the posting
 * thread. So the checks a post makes (regions, address handles, inline and atomic lengths) read what the provider
 * reads next: no other thread can change a request between the two.
 */
abstract sealed class WorkRequestChain extends PostProof implements AutoCloseable permits SendChain, RecvChain {
    static final long SGE_SIZE = ibv_sge.layout().byteSize();
    static final long SGE_ADDR = ibv_sge.addr$offset();
    static final long SGE_LENGTH = ibv_sge.length$offset();
    static final long SGE_LKEY = ibv_sge.lkey$offset();
    /**
     * All of memory, for the setters ({@link WorkRequest}), which a program may call before every post: a constant
     * segment whose checks the JIT folds to one compare, so a field write is one store at an address computed from
     * the chain's. What the segment's own checks would give comes from the chain instead: the address lies in the
     * chain's arrays (request and entry indexes are checked), the memory is the chain's automatic arena's, alive
     * while the chain is reachable, and the owner test every setter makes first refuses a closed chain.
     */
    static final MemorySegment MEMORY = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    /** Scope of the Java-side views; closing it ends every flyweight access. */
    private final Arena views;
    /** The Java-side views (flyweights write here). */
    final MemorySegment requests;
    final MemorySegment sges;
    private final MemorySegment badRequest;
    /** The same memory in its automatic arena: what the provider is given. */
    private final MemorySegment requestsForCall;
    private final MemorySegment badRequestForCall;
    private final long requestsAddress;
    private final long badRequestAddress;
    private final long sgesAddress;
    /** Set by {@link #close()}; calls and setters learn of it from the marker's owner ({@link InFlight#closeMarker}). */
    private boolean closed;
    private final long requestSize;
    private final long nextOffset;
    private final long numSgeOffset;
    /** The result of the last post; 0 whenever the chain is ready (a failure ends the readiness). */
    private int lastResult;
    /** The count the chain is cut for: request {@code cutCount - 1} has a NULL {@code next} ({@code capacity}: none cut). */
    private int cutCount;

    WorkRequestChain(MemoryLayout requestLayout, long nextOffset, long sgListOffset, long numSgeOffset, int capacity, int maxSge) {
        super(capacity, maxSge);
        Arena memory = Arena.ofAuto();
        this.views = Arena.ofShared();
        this.requestSize = requestLayout.byteSize();
        this.nextOffset = nextOffset;
        this.numSgeOffset = numSgeOffset;
        this.cutCount = capacity;
        this.requestsForCall = memory.allocate(requestLayout, capacity);
        this.badRequestForCall = memory.allocate(ADDRESS);
        MemorySegment sgesForCall = memory.allocate(ibv_sge.layout(), Math.max(1, (long) capacity * maxSge));
        this.requests = requestsForCall.reinterpret(views, null);
        this.sges = sgesForCall.reinterpret(views, null);
        this.badRequest = badRequestForCall.reinterpret(views, null);
        this.requestsAddress = requestsForCall.address();
        this.badRequestAddress = badRequestForCall.address();
        this.sgesAddress = sgesForCall.address();
        // all three arrays share the automatic arena's session, which requestsForCall keeps reachable as long
        // as the chain is: the scatter-gather memory, named only by native pointers, lives as long too
        for (int i = 0; i < capacity; i++) {
            long base = i * requestSize;
            requests.set(ADDRESS, base + nextOffset, i + 1 < capacity ? requests.asSlice(base + requestSize) : MemorySegment.NULL);
            requests.set(ADDRESS, base + sgListOffset, maxSge == 0 ? MemorySegment.NULL : sges.asSlice(sgeBase(i)));
        }
    }

    /**
     * Gives this chain up from the calling thread, its owner: the next thread that posts or sets with it owns it. For
     * threads that take turns with one chain under a lock of their own (a connection driven by whichever thread holds
     * its lock), each releasing it before it unlocks; the lock orders the turns. On a thread that does not own it (or
     * a closed chain) this does nothing: a thread inside a call keeps its chain until it releases it itself.
     */
    public final void releaseThread() {
        releaseOwner();
    }

    /** {@return how many work requests the chain holds, at least 1: the largest count one post accepts} */
    public final int capacity() {
        return capacity;
    }

    /** {@return how many scatter-gather entries each request can carry, 0 or more, as allocated} */
    public final int maxSge() {
        return maxSge;
    }

    final long sgeBase(int request) {
        return (long) request * maxSge * SGE_SIZE;
    }

    /**
     * The fast path's post, for a chain {@link #isReady ready} for its count: the provider's post function on the
     * QP or SRQ at {@code target}, between {@link #mark} and {@link #exit}. A failure records its result and ends
     * the readiness, so the next post clears {@code bad_wr} and checks everything again.
     *
     * @return 0, or the provider's errno value
     */
    final int postReady(MemorySegment function, long target) {
        int rc = org.panamaverbs.internal.DataPath.post(function, target, requestsAddress, badRequestAddress);
        if (rc != 0) {
            lastResult = rc;
            withdrawProof();
        }
        Reference.reachabilityFence(this);
        return rc;
    }

    @Override
    final int numSgeOf(int request) {
        return requests.get(JAVA_INT, request * requestSize + numSgeOffset);
    }

    /**
     * Posts the first {@code count} requests through a provider's post function ({@code post_send},
     * {@code post_recv} or {@code post_srq_recv}) to the QP or SRQ at {@code target}, after the caller's checks
     * passed: the slow path, and the one place the chain is cut. Called between {@link #mark} and {@link #exit},
     * which keep the target alive; this chain's memory is an automatic arena's, alive while the chain is reachable.
     * A success makes the chain ready for {@code count} when the caller's checks prove what the fast path skips.
     *
     * @param proven whether the caller's checks need not run again for this target type while nothing changes: no
     *               special request, regions only ({@link #recordResult})
     * @return 0, or the provider's errno value
     * @throws IndexOutOfBoundsException if {@code count} is not in 1..capacity
     */
    final int post(MemorySegment function, long target, int count, boolean proven) {
        withdrawProof();
        cutFor(count);
        if (lastResult != 0) {
            // providers write bad_wr only when they refuse a request, and failedIndex() reads it only after a
            // failure: after a success it still holds this 0, so only a post after a failure clears it
            badRequestForCall.set(JAVA_LONG, 0, 0L);
        }
        int rc = -1;
        try {
            rc = org.panamaverbs.internal.DataPath.post(function, target, requestsAddress, badRequestAddress);
            return rc;
        } finally {
            recordResult(rc, count, proven);
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Records the result of a checked post of {@code count} requests (-1 if it threw); a success may make the chain
     * ready for that count ({@link #proveReady}).
     */
    final void recordResult(int rc, int count, boolean proven) {
        lastResult = rc;
        if (rc == 0) {
            proveReady(count, proven);
        }
    }

    /**
     * Cuts the chain after request {@code count - 1} (a NULL {@code next}), joining the cut of an earlier post
     * of another count again first. The cut stays after the post: a chain posted with one count writes nothing.
     *
     * @throws IndexOutOfBoundsException if {@code count} is not in 1..capacity
     */
    final void cutFor(int count) {
        if (count == cutCount) {
            return;
        }
        if (count < 1 || count > capacity) {
            throw new IndexOutOfBoundsException("cannot post " + count + " of " + capacity + " work requests");
        }
        if (cutCount != capacity) {
            long base = (cutCount - 1) * requestSize;
            requestsForCall.set(JAVA_LONG, base + nextOffset, requestsAddress + base + requestSize);
        }
        if (count != capacity) {
            requestsForCall.set(JAVA_LONG, (count - 1) * requestSize + nextOffset, 0L);
        }
        cutCount = count;
    }

    final MemorySegment badRequestSlot() {
        return badRequest;
    }

    /**
     * After a post that returned non-zero: the index of the request the provider refused (the requests
     * before it were posted, those from it on were not). -1 if the last post succeeded, and -1 too if it
     * failed without the provider naming a request of this chain in {@code bad_wr} (then which requests
     * were posted is unknown; the library clears {@code bad_wr} before every post so a stale value never answers).
     *
     * @return the 0-based index of the refused request, or -1 as described above
     */
    public final int failedIndex() {
        if (lastResult == 0) {
            return -1;
        }
        long failed = badRequest.get(JAVA_LONG, 0);
        long offset = failed - requests.address();
        if (failed == 0 || offset < 0 || offset % requestSize != 0 || offset / requestSize >= capacity) {
            return -1;
        }
        return (int) (offset / requestSize);
    }

    /** Says which of the {@code count} requests of the last (failed) post were refused, for an exception message. */
    final String describeFailure(int count) {
        int failed = failedIndex();
        return failed >= 0 ? "work request " + failed + " of " + count + " was refused (requests before it were posted)"
                : "the provider named no refused request of the " + count + " (which were posted is unknown)";
    }

    /**
     * The result of the last post: 0, or the errno value the provider returned.
     *
     * @return 0 after a successful post (and before any post), else the provider's errno value, for example
     *         {@code ENOMEM} (12) for a full queue or {@code EINVAL} (22) for a malformed request
     */
    public final int lastResult() {
        return lastResult;
    }

    /** Writes scatter-gather entry {@code index} of request {@code request}, after checking the slice. */
    final void writeSge(int request, int index, MemoryRegion region, long offset, int length) {
        checkSgeIndex(index);
        putSge(request, index, region, region.sliceAddress(offset, length), length, region.lkeyUnchecked());
    }

    /** Writes an entry from an {@link Sge}, checking its region again (it may have closed since the slice was cut). */
    final void writeSge(int request, int index, Sge sge) {
        checkSgeIndex(index);
        MemoryRegion region = sge.region();
        if (region != null) { // null only for encoding tests, which never post
            region.sliceAddress(sge.address() - region.baseAddress(), sge.length()); // checks closed and freed once
        }
        putSge(request, index, region, sge.address(), sge.length(), sge.lkey());
    }

    /** Writes an entry whose index and slice were checked, and remembers its region for the post's check. */
    private void putSge(int request, int index, MemoryRegion region, long address, int length, int lkey) {
        long at = sgesAddress + sgeBase(request) + index * SGE_SIZE; // index checked by the caller
        MEMORY.set(JAVA_LONG_UNALIGNED, at + SGE_ADDR, address);
        MEMORY.set(JAVA_INT_UNALIGNED, at + SGE_LENGTH, length);
        MEMORY.set(JAVA_INT_UNALIGNED, at + SGE_LKEY, lkey);
        entryWritten(request, index, region);
    }

    /** Sum of the lengths of the first {@code count} entries of request {@code request}. */
    final long payloadLength(int request, int count) {
        long total = 0;
        for (int i = 0; i < Math.min(count, maxSge); i++) {
            total += Integer.toUnsignedLong(sges.get(JAVA_INT, sgeBase(request) + i * SGE_SIZE + SGE_LENGTH));
        }
        return total;
    }

    /** Length of entry {@code index} of request {@code request}. */
    final int sgeLength(int request, int index) {
        return sges.get(JAVA_INT, sgeBase(request) + index * SGE_SIZE + SGE_LENGTH);
    }

    final void checkSgeIndex(int index) {
        if (index < 0 || index >= maxSge) {
            throw new IndexOutOfBoundsException("scatter-gather entry " + index + " of " + maxSge
                    + " per work request (allocate the chain with a larger maxSge)");
        }
    }

    final void checkSgeCount(int count) {
        if (count < 0 || count > maxSge) {
            throw new IndexOutOfBoundsException("num_sge " + count + " exceeds the " + maxSge
                    + " entries allocated per work request");
        }
    }

    /**
     * Ends the chain: later posts and flyweight accesses throw {@link IllegalStateException}; the native
     * arrays are returned when the chain becomes unreachable (a post racing this close still reads live
     * memory). Idempotent.
     */
    @Override
    public final synchronized void close() {
        if (!closed) {
            closed = true;
            closeMarker();
            views.close();
        }
    }
}
