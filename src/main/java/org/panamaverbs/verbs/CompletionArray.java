package org.panamaverbs.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;

import org.panamaverbs.internal.DataPath;

import org.panamaverbs.ffi.ibv_wc;

/**
 * A preallocated native array of {@code struct ibv_wc} that {@link CompletionQueue#poll} fills, read
 * through one reusable {@link WorkCompletion} flyweight per slot: polling and reading allocate nothing.
 *
 * <p>Not thread-safe: give each polling thread its own. It belongs to the first thread that polls with it;
 * a poll from another thread throws {@link WrongThreadException}. Close it when done: polls and the flyweights then
 * throw, and the native array is returned once the object and every {@link WorkCompletion} taken from it are
 * unreachable (a kept completion keeps the memory it reads). The poll hands the provider the
 * array's automatic-arena segment (no atomic scope acquire per call); the flyweights read a view of the
 * same memory scoped to a shared arena that {@link #close()} ends.
 */
public final class CompletionArray extends InFlight implements AutoCloseable {
    static final long WC_SIZE = ibv_wc.layout().byteSize();

    private final Arena viewScope;
    private final MemorySegment array;
    private final MemorySegment arrayForCall;
    private final long arrayAddress;
    /** Set by {@link #close()}; polls learn of it from the marker's owner ({@link InFlight#closeMarker}). */
    private boolean closed;
    private final WorkCompletion[] views;
    /** {@code views.length}, kept as a field: a poll reads one int, not the array and its length. */
    private final int capacity;
    /** What the last poll returned, stored as it came (a negative errno value too): readers clamp it to 0. */
    private int count;

    private CompletionArray(int capacity) {
        super("completion array");
        this.viewScope = Arena.ofShared();
        this.arrayForCall = Arena.ofAuto().allocate(ibv_wc.layout(), capacity);
        this.array = arrayForCall.reinterpret(viewScope, null);
        this.arrayAddress = arrayForCall.address();
        this.views = new WorkCompletion[capacity];
        this.capacity = capacity;
        for (int i = 0; i < capacity; i++) {
            views[i] = new WorkCompletion(array, i * WC_SIZE, arrayForCall);
        }
    }

    /**
     * Allocates room for {@code capacity} completions.
     *
     * @param capacity the number of {@code struct ibv_wc} slots, at least 1: the most one poll can return
     * @return the array; the native memory is returned once the object and its completions are unreachable,
     *         {@link #close()} or not
     * @throws IllegalArgumentException if {@code capacity} is not positive
     * @throws RdmaUnavailableException if libibverbs cannot be loaded
     */
    public static CompletionArray allocate(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive, not " + capacity);
        }
        Rdma.requireLibrary();
        return new CompletionArray(capacity);
    }

    /**
     * Gives this array up from the calling thread, its owner: the next thread that polls with it owns it. For
     * threads that take turns with one array under a lock of their own (a connection driven by whichever thread holds
     * its lock), each releasing it before it unlocks; the lock orders the turns. On a thread that does not own it (or
     * a closed array) this does nothing: a thread inside a call keeps its array until it releases it itself.
     */
    public void releaseThread() {
        releaseOwner();
    }

    /** {@return how many completions the array holds, as allocated} */
    public int capacity() {
        return capacity;
    }

    /** {@return how many the last poll returned (0 after a failed poll)} Slots 0 to this minus 1 are valid. */
    public int count() {
        return Math.max(count, 0);
    }

    void setCount(int polled) {
        count = polled;
    }

    /**
     * The completion in slot {@code index} of the last poll; the same object every time for an index.
     *
     * @param index the slot, 0 to {@link #count()} - 1; slot 0 is the oldest completion of the poll
     * @return the flyweight over that slot, valid until the next poll with this array
     * @throws IndexOutOfBoundsException if {@code index} is not below {@link #count()}
     */
    public WorkCompletion get(int index) {
        if (index < 0 || index >= count) { // a failed poll's negative count refuses every index too
            throw new IndexOutOfBoundsException("completion " + index + " of " + count() + " polled");
        }
        return views[index];
    }

    /** The array the provider's {@code poll_cq} writes (tests fill it to decode without a device). */
    MemorySegment arrayForPoll() {
        return arrayForCall;
    }

    /**
     * {@code ops.poll_cq(cq, max, array)} on the completion queue at {@code address}, marked in flight so that
     * closing {@code cq} waits for it ({@link InFlight}); records the count.
     *
     * @throws WrongThreadException  if another thread polls with this array
     * @throws IllegalStateException if {@code cq} or this array is closed
     */
    int pollFrom(CompletionQueue cq, MemorySegment function, long address, int max) {
        // the range of max is the caller's to check: poll(completions) passes the capacity itself
        enter(cq);
        try {
            int polled = DataPath.pollCq(function, address, max, arrayAddress);
            count = polled;
            return polled;
        } finally {
            exit();
            Reference.reachabilityFence(this);
        }
    }

    /** Ends the array: polls and flyweights throw; the memory is returned once unreachable. Idempotent. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            closeMarker();
            viewScope.close();
        }
    }
}
