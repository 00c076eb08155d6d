package org.panamaverbs.verbs;

import java.lang.foreign.MemorySegment;

/**
 * What a {@link WorkRequestChain} has proven about its requests, so that a post of the same count may skip the checks:
 * the chain is cut for that count, every entry of those requests named an open region of the target's context whose
 * memory lives as long as the region (or lies in at most {@link #TRACKED_SCOPES} caller scopes, whose liveness a post
 * still reads), no request needed a per-post check, the last post succeeded, and the context has closed no region
 * since. Every change a post must check again ({@link #unproven}, {@link #entryWritten}) or a failed post
 * ({@link #withdrawProofs}) ends the proof. A superclass of the chain rather than an object of its own, so the fast
 * path reads its fields in the object it already holds.
 *
 * <p>The fields: {@code readyCount} and {@code readyGeneration} are the proof itself (the chain is cut for
 * {@code readyCount} requests, checked as of the region generation {@code readyGeneration} of the context they were
 * posted in, and the post after the check succeeded). Without a proof {@code readyGeneration} is {@link #NO_PROOF},
 * which no target's stamp ever is (stamps are 0 or a generation), so no count matches whatever {@code readyCount}
 * holds. {@code scopedReadyCount} and {@code scopedReadyGeneration} are the same proof for entries in caller memory
 * registered without its arena; kept apart so the fast path of every other chain reads nothing more.
 * {@code checkedCount}, {@code checkedContext} and {@code checkedGeneration} record what the last region walk proved:
 * requests [0, checkedCount) name only open regions of that context as of that generation; closing any region of the
 * context moves the generation on, and the next post walks again. {@code callerScopes} are the scopes of caller-owned
 * memory those entries lie in (an arena the caller can close behind the library's back, which no generation
 * records): a post reads each one's liveness, not every entry.
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
    /** The proof for entries in caller memory ({@link #isReadyInLiveMemory}). */
    private int scopedReadyCount;
    private long scopedReadyGeneration = NO_PROOF;
    private static final long NO_PROOF = -1;
    /** Per scatter-gather entry, the region it was cut from; null for an entry never written (all zero). */
    private final MemoryRegion[] sgeRegions;
    /** How many requests the last region walk proved. */
    private int checkedCount;
    private Context checkedContext;
    private long checkedGeneration;
    /** Caller scopes the proven entries lie in; a post reads each one's liveness. */
    private final MemorySegment.Scope[] callerScopes = new MemorySegment.Scope[TRACKED_SCOPES];
    private int callerScopeCount;
    /** More distinct caller scopes than this and every post walks its entries. */
    private static final int TRACKED_SCOPES = 4;

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
        if (scopedReadyCount > request) {
            scopedReadyGeneration = NO_PROOF;
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
     * {@link #isReady} for a chain whose proof names caller memory: the proof holds for {@code count} and
     * {@code targetStamp} and every caller scope the proven entries lie in is still alive (read after the post's
     * marker is set, as the region check reads it). What the library cannot see, memory freed behind an open
     * region between this read and the provider's use, the checked path cannot see either.
     */
    final boolean isReadyInLiveMemory(int count, long targetStamp) {
        if (count != scopedReadyCount || targetStamp != scopedReadyGeneration) {
            return false;
        }
        for (int i = 0; i < callerScopeCount; i++) {
            if (!callerScopes[i].isAlive()) {
                return false; // the checked path names the entry whose memory was freed
            }
        }
        return true;
    }

    /**
     * Checks, between {@link #mark} and {@link #exit}, that the entries of the first {@code count} requests
     * name open regions of {@code context} whose memory is alive: a post must never hand the provider the
     * address of freed memory (an inline send copies from it in user space, a receive lets the device write
     * into it). Costs a few loads while nothing changed since the last check.
     *
     * @throws IllegalStateException    if an entry's region is closed or its memory was freed
     * @throws IllegalArgumentException if an entry's region belongs to another device context
     */
    final void checkRegions(Context context, int count) {
        if (count > checkedCount || context != checkedContext || context.regionGeneration != checkedGeneration) {
            recheckRegions(context, count);
            return;
        }
        for (int i = 0; i < callerScopeCount; i++) {
            if (!callerScopes[i].isAlive()) {
                recheckRegions(context, count); // finds the entry and says which
                return;
            }
        }
    }

    private void recheckRegions(Context context, int count) {
        // the generation is read first: a region closed after this read waits for this post (it is marked)
        long generation = context.regionGeneration;
        checkedCount = 0;
        scopedReadyGeneration = NO_PROOF; // it names the scopes this walk rewrites (and may leave half written)
        int scopes = 0;
        boolean untracked = false;
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
                if (region.memoryMayBeFreedWhileOpen()) {
                    MemorySegment.Scope scope = region.memoryScope();
                    if (!scope.isAlive()) {
                        throw new IllegalStateException("work request " + request + ", scatter-gather entry " + entry
                                + " names " + region + ", whose memory was freed (its arena closed) while registered");
                    }
                    if (!tracksScope(scope, scopes)) {
                        if (scopes < TRACKED_SCOPES) {
                            callerScopes[scopes++] = scope;
                        } else {
                            untracked = true;
                        }
                    }
                }
            }
        }
        callerScopeCount = scopes;
        checkedContext = context;
        checkedGeneration = generation;
        // with scopes beyond those tracked, proving nothing makes every post walk the entries again
        checkedCount = untracked ? 0 : count;
    }

    /** Whether {@code scope} is among the first {@code count} tracked caller scopes. */
    private boolean tracksScope(MemorySegment.Scope scope, int count) {
        for (int i = 0; i < count; i++) {
            if (callerScopes[i] == scope) {
                return true;
            }
        }
        return false;
    }

    /**
     * Makes the chain ready for {@code count} after a successful checked post, if {@code proven} (the caller's checks
     * need not run again while nothing changes) and the last region check covered the count: the region check then
     * proves the entries for as long as their context closes no region, and, for entries in caller memory, as long as
     * its scopes are alive ({@link #isReadyInLiveMemory}).
     */
    final void proveReady(int count, boolean proven) {
        if (proven && count <= checkedCount) {
            if (callerScopeCount == 0) {
                readyCount = count;
                readyGeneration = checkedGeneration;
            } else {
                scopedReadyCount = count;
                scopedReadyGeneration = checkedGeneration;
            }
        }
    }

    /** Ends both proofs: the next post takes the checked path (a post began, or one failed). */
    final void withdrawProofs() {
        readyGeneration = NO_PROOF;
        scopedReadyGeneration = NO_PROOF;
    }

    /**
     * Entry {@code index} of request {@code request} was written from {@code region}, which was open just now: the
     * last check still holds unless the region is of another context, lies in caller memory whose liveness the post
     * does not read yet, or its context closed a region since (then the post walks the entries anyway).
     */
    final void entryWritten(int request, int index, MemoryRegion region) {
        sgeRegions[request * maxSge + index] = region;
        if (region == null || region.context() != checkedContext
                || region.memoryMayBeFreedWhileOpen() && !tracksScope(region.memoryScope(), callerScopeCount)) {
            unproven(request);
        }
    }
}
