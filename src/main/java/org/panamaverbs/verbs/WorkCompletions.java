package org.panamaverbs.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.panamaverbs.ffi.ibv_wc;

/**
 * A preallocated native array of {@code struct ibv_wc} that {@link CompletionQueue#poll} fills, read
 * through one reusable {@link WorkCompletion} flyweight per slot: polling and reading allocate nothing.
 *
 * <p>Not thread-safe: give each polling thread its own. Close it to free the native array; the
 * flyweights then throw on use.
 */
public final class WorkCompletions implements AutoCloseable {
    static final long WC_SIZE = ibv_wc.layout().byteSize();

    private final Arena arena;
    private final MemorySegment array;
    private final WorkCompletion[] views;
    private int count;

    private WorkCompletions(int capacity) {
        this.arena = Arena.ofShared();
        this.array = arena.allocate(ibv_wc.layout(), capacity);
        this.views = new WorkCompletion[capacity];
        for (int i = 0; i < capacity; i++) {
            views[i] = new WorkCompletion(array, i * WC_SIZE);
        }
    }

    /**
     * Allocates room for {@code capacity} completions.
     *
     * @throws IllegalArgumentException if {@code capacity} is not positive
     * @throws RdmaUnavailableException if libibverbs cannot be loaded
     */
    public static WorkCompletions allocate(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive, not " + capacity);
        }
        Rdma.requireLibrary();
        return new WorkCompletions(capacity);
    }

    /** How many completions the array holds. */
    public int capacity() {
        return views.length;
    }

    /** How many the last poll returned (0 after a failed poll). */
    public int count() {
        return count;
    }

    void setCount(int polled) {
        count = Math.max(polled, 0);
    }

    /**
     * The completion in slot {@code index} of the last poll; the same object every time for an index.
     *
     * @throws IndexOutOfBoundsException if {@code index} is not below {@link #count()}
     */
    public WorkCompletion get(int index) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("completion " + index + " of " + count + " polled");
        }
        return views[index];
    }

    MemorySegment array() {
        return array;
    }

    /** Frees the native array. Idempotent. */
    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }
}
