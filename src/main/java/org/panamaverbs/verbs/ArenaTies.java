package org.panamaverbs.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The open regions registered from one caller's arena ({@link ProtectionDomain#register(Arena, MemorySegment,
 * Access...)}), closed when that arena closes, before it frees their memory.
 *
 * <p>An arena's cleanups cannot be removed once added, so the arena gets one cleanup, with its first region, for
 * all its regions: a pool arena that lives as long as the service keeps one entry however many regions it
 * registers and closes. Regions are held weakly (an open region is reachable from its protection domain anyway)
 * and leave when they close; the arenas are held weakly too, and the cleanup never refers to its arena (an
 * automatic arena's cleanup runs only once nothing reaches the arena).
 */
final class ArenaTies {
    /** By arena scope; guarded by itself. */
    private static final Map<MemorySegment.Scope, ArenaTies> BY_SCOPE = new WeakHashMap<>();

    /** The open regions of the arena, as a weak set; guarded by this. */
    private final Map<MemoryRegion, Boolean> regions = new WeakHashMap<>();
    /** The arena's cleanup has run; guarded by this. */
    private boolean arenaClosed;

    private ArenaTies() {
    }

    /**
     * The ties of {@code arena}, made with the arena's one cleanup on first use.
     *
     * @throws IllegalStateException if the arena is closed
     * @throws WrongThreadException  if a confined arena belongs to another thread (such a thread may not add to it)
     */
    static ArenaTies of(Arena arena) {
        synchronized (BY_SCOPE) {
            ArenaTies ties = BY_SCOPE.get(arena.scope());
            if (ties == null) {
                ArenaTies made = new ArenaTies();
                // a cleanup runs before the memory allocated earlier is freed: an arena runs them newest first
                MemorySegment.NULL.reinterpret(arena, ignored -> made.arenaClosing());
                BY_SCOPE.put(arena.scope(), made);
                return made;
            }
            MemorySegment.NULL.reinterpret(arena, null); // the arena's own checks: alive, and this thread may use it
            return ties;
        }
    }

    /**
     * Ties {@code region} to the arena.
     *
     * @return false if the arena closed meanwhile (the caller closes the region)
     */
    synchronized boolean tie(MemoryRegion region) {
        if (arenaClosed) {
            return false;
        }
        regions.put(region, Boolean.TRUE);
        return true;
    }

    /** The region closed: nothing of it stays here. */
    synchronized void untie(MemoryRegion region) {
        regions.remove(region);
    }

    /** The arena's cleanup: closes every region still open (each waits for its posts in flight) and forgets the arena. */
    private void arenaClosing() {
        List<MemoryRegion> open;
        synchronized (this) {
            arenaClosed = true;
            open = new ArrayList<>(regions.keySet());
            regions.clear();
        }
        synchronized (BY_SCOPE) {
            BY_SCOPE.values().remove(this);
        }
        for (MemoryRegion region : open) {
            region.close(); // the memory is freed after this returns
        }
    }
}
