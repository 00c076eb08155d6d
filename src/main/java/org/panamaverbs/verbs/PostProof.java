package org.panamaverbs.verbs;

/**
 * What a {@link WorkRequestChain} has proven about its requests, so that a post of the same count may skip the checks:
 * the chain is cut for that count, every entry of those requests named an open region of the target's context (whose
 * memory lives as long as the region), no request needed a per-post check, the last post succeeded, and the context has closed no region
 * since. Every change a post must check again ({@link #unproven}, {@link #entryWritten}) or a failed post
 * ({@link #withdrawProof}) ends the proof. A superclass of the chain rather than an object of its own, so the fast
 * path reads its fields in the object it already holds.
 *
 * <p>The fields: {@code readyCount} and {@code readyGeneration} are the proof itself (the chain is cut for
 * {@code readyCount} requests, checked as of the region generation {@code readyGeneration} of the context they were
 * posted in, and the post after the check succeeded). Without a proof {@code readyGeneration} is {@link #NO_PROOF},
 * which no target's stamp ever is (stamps are 0 or a generation), so no count matches whatever {@code readyCount}
 * holds. {@code checkedCount}, {@code checkedContext} and {@code checkedGeneration} record what the last region walk proved:
 * requests [0, checkedCount) name only open regions of that context as of that generation; closing any region of the
 * context moves the generation on, and the next post walks again.
 *
 * <p>Confined to the chain's posting thread, as the chain is ({@link InFlight}); no method here is thread-safe.
 */
abstract sealed class PostProof extends InFlight permits WorkRequestChain {
    /** How many work requests the chain holds, at least 1. */
    final int capacity;
    /** How many scatter-gather entries each request can carry. */
    final int maxSge;
    /** The count the proof is for ({@link #isReady}); see the class comment. */
    private int readyCount;
    private long readyGeneration = NO_PROOF;
    private static final long NO_PROOF = -1;
    /** Per scatter-gather entry, the region it was cut from; null for an entry never written (all zero). */
    private final MemoryRegion[] sgeRegions;
    /** How many requests the last region walk proved. */
    private int checkedCount;
    private Context checkedContext;
    private long checkedGeneration;

    PostProof(int capacity, int maxSge) {
        super("work-request chain");
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive, not " + capacity);
        }
        if (maxSge < 0) {
            throw new IllegalArgumentException("maxSge must not be negative, not " + maxSge);
        }
        this.capacity = capacity;
        this.maxSge = maxSge;
        this.sgeRegions = new MemoryRegion[capacity * maxSge];
    }

    /** {@code num_sge} of request {@code request}, as the provider will read it. */
    abstract int numSgeOf(int request);

    /**
     * {@code num_sge} of request {@code request} grew: the entries it brings in were never walked by a region
     * check (an entry written before its region closed, then counted in), so the next post walks them.
     */
    final void entriesAdded(int request) {
        unproven(request);
    }

    /**
     * Request {@code request} changed in a way a post must check again (an entry from a region not yet proven, more
     * entries, a special request): the proofs no longer reach it.
     */
    final void unproven(int request) {
        checkedCount = Math.min(checkedCount, request);
        if (readyCount > request) {
            readyGeneration = NO_PROOF;
        }
    }

    /**
     * Whether a post of {@code count} requests may take the fast path: the proof of the last post holds (see
     * {@link #readyCount}) for a target whose stamp, read after the post's marker is set ({@link #mark}), is
     * {@code targetStamp}: its context's region generation while it is open and needs no per-post check, else 0.
     * Closing the target or a region of its context moves the stamp before the close's handshake.
     */
    final boolean isReady(int count, long targetStamp) {
        return count == readyCount && targetStamp == readyGeneration;
    }

    /**
     * Checks, between {@link #mark} and {@link #exit}, that the entries of the first {@code count} requests
     * name open regions of {@code context}: a post must never hand the provider the address of freed memory (an
     * inline send copies from it in user space, a receive lets the device write into it), and an open region's
     * memory is alive. Costs a few loads while nothing changed since the last check.
     *
     * @throws IllegalStateException    if an entry's region is closed
     * @throws IllegalArgumentException if an entry's region belongs to another device context
     */
    final void checkRegions(Context context, int count) {
        if (count > checkedCount || context != checkedContext || context.regionGeneration != checkedGeneration) {
            recheckRegions(context, count);
        }
    }

    private void recheckRegions(Context context, int count) {
        // the generation is read first: a region closed after this read waits for this post (it is marked)
        long generation = context.regionGeneration;
        checkedCount = 0;
        for (int request = 0; request < Math.min(count, capacity); request++) {
            int entries = Math.min(Math.max(numSgeOf(request), 0), maxSge);
            for (int entry = 0; entry < entries; entry++) {
                MemoryRegion region = sgeRegions[request * maxSge + entry];
                if (region == null) {
                    continue; // never written: a zero entry, naming no memory
                }
                if (region.closed) {
                    throw new IllegalStateException("work request " + request + ", scatter-gather entry " + entry
                            + " names " + region + ", which is closed: write the entry again from an open region");
                }
                if (region.context() != context) {
                    throw new IllegalArgumentException("work request " + request + ", scatter-gather entry " + entry
                            + " names " + region + " of " + region.context() + ", not of " + context
                            + " where it is posted");
                }
            }
        }
        checkedContext = context;
        checkedGeneration = generation;
        checkedCount = count;
    }

    /**
     * Makes the chain ready for {@code count} after a successful checked post, if {@code proven} (the caller's checks
     * need not run again while nothing changes) and the last region check covered the count: the region check then
     * proves the entries for as long as their context closes no region.
     */
    final void proveReady(int count, boolean proven) {
        if (proven && count <= checkedCount) {
            readyCount = count;
            readyGeneration = checkedGeneration;
        }
    }

    /** Ends the proof: the next post takes the checked path (a post began, or one failed). */
    final void withdrawProof() {
        readyGeneration = NO_PROOF;
    }

    /**
     * Entry {@code index} of request {@code request} was written from {@code region}, which was open just now: the
     * last check still holds unless the region is of another context or its context closed a region since (then the
     * post walks the entries anyway).
     */
    final void entryWritten(int request, int index, MemoryRegion region) {
        sgeRegions[request * maxSge + index] = region;
        if (region == null || region.context() != checkedContext) {
            unproven(request);
        }
    }
}
