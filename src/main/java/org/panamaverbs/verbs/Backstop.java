package org.panamaverbs.verbs;

import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.panamaverbs.internal.ControlEvents;

/**
 * What happens to a resource tree that is never closed: the native side of one context's tree, kept apart
 * from the Java objects so that a {@link Cleaner} can free it once the context becomes unreachable.
 *
 * <p>Every owned object of the tree registers how to free its native object (a function of raw addresses
 * only, never of the Java wrapper) and deregisters when it is closed. Children always hold their parents, so
 * a context is unreachable only when its whole tree is; then the entries still registered are freed newest
 * first (children before parents, as close does) and one warning is logged naming what was left open. A
 * context kept reachable (by the application, or by its async-event dispatcher thread while listeners are
 * registered) is never freed behind its owner's back; objects left open under a live context are freed when
 * that context closes.
 *
 * <p>Doubles as the tree's lock: creation and destruction in the tree synchronize on it.
 */
final class Backstop {
    /** The library's one cleaner thread: backstops and the in-flight markers' registry. */
    static final Cleaner CLEANER = Cleaner.create(Thread.ofPlatform().daemon().name("panama-verbs-cleaner").factory());
    /** Trees the backstop freed (for tests and diagnostics). */
    static final AtomicInteger TREES_FREED = new AtomicInteger();

    /** One native object: what it is and how to free it. */
    record Entry(String what, Runnable free) {
    }

    private final String name;
    private final String deviceName;
    /** In creation order; guarded by this. */
    private final List<Entry> entries = new ArrayList<>();

    Backstop(String deviceName) {
        this.name = "Context[" + deviceName + "]";
        this.deviceName = deviceName;
    }

    /** The device of the tree, for logs and events. */
    String deviceName() {
        return deviceName;
    }

    /** Registers a native object; {@code free} must not refer to the Java object that owns it. */
    synchronized Entry add(String what, Runnable free) {
        Entry entry = new Entry(what, free);
        entries.add(entry);
        return entry;
    }

    /** The object was destroyed (or handed to another owner): the backstop forgets it. */
    synchronized void remove(Entry entry) {
        for (int i = entries.size() - 1; i >= 0; i--) {
            if (entries.get(i) == entry) {
                entries.remove(i);
                return;
            }
        }
    }

    /** Arms the backstop for {@code root}: once it is unreachable, what is still registered is freed. */
    Cleaner.Cleanable watch(Context root) {
        return CLEANER.register(root, this::freeLeftovers);
    }

    /** Frees every object still registered, newest first, and says what was left open. */
    private void freeLeftovers() {
        List<Entry> left;
        synchronized (this) {
            left = List.copyOf(entries).reversed();
            entries.clear();
        }
        if (left.isEmpty()) {
            return;
        }
        List<String> failures = new ArrayList<>();
        for (Entry entry : left) {
            try {
                entry.free().run();
            } catch (RuntimeException e) {
                failures.add(entry.what() + ": " + e.getMessage());
            }
        }
        String objects = String.join(", ", left.stream().map(Entry::what).toList());
        String failed = String.join("; ", failures);
        ControlEvents.backstopFreed(name, left.size(), objects, failed, name + " became unreachable without close():"
                + " the backstop freed " + left.size() + " native objects left open (" + objects + ")"
                + (failures.isEmpty() ? "" : "; failed: " + failed)
                + ". Close contexts (try-with-resources) to free them when you choose.");
        TREES_FREED.incrementAndGet(); // after the report: a test that saw the count move finds the log and event
    }
}
