package org.panamaverbs.verbs;

import java.util.ArrayList;
import java.util.List;

/**
 * A native verbs object owned by Java: a node of the resource tree
 * (context → protection domain → memory regions and queue pairs; context → completion queues).
 *
 * <p>Ownership rules, the same for every subclass:
 * <ul>
 *   <li>{@link #close()} is idempotent.</li>
 *   <li>Closing an object first closes everything that depends on it, newest first: closing a context
 *       closes its queue pairs, memory regions, completion queues and protection domains; closing a
 *       completion queue closes the queue pairs that use it. So a parent never frees native memory a
 *       child still uses, and try-with-resources in any nesting is safe.</li>
 *   <li>Any use of a closed object throws {@link IllegalStateException} before native code is reached.</li>
 *   <li>If the native destroy fails (a {@link VerbsException}), the object stays open and close may be retried.</li>
 * </ul>
 * Creation and close of all objects of one context are serialized on that context's lock; the data
 * path (post, poll) takes no lock.
 */
public abstract sealed class VerbsResource implements AutoCloseable
        permits Context, ProtectionDomain, MemoryRegion, CompletionQueue, CompletionChannel, QueuePair, AddressHandle, SharedReceiveQueue {

    private final Object treeLock;
    private final VerbsResource[] owners;
    private final List<VerbsResource> dependents = new ArrayList<>();
    /** Read on the data path: a plain volatile read, no lock. */
    volatile boolean closed;

    /** Registers this object with its owners; callers hold {@code treeLock} and have checked the owners are open. */
    VerbsResource(Object treeLock, VerbsResource... owners) {
        this.treeLock = treeLock;
        this.owners = owners;
        for (VerbsResource owner : owners) {
            if (!owner.dependents.contains(this)) {
                owner.dependents.add(this);
            }
        }
    }

    /** The lock serializing creation and destruction in this object's tree. */
    final Object treeLock() {
        return treeLock;
    }

    /** Whether {@link #close()} has completed. */
    public final boolean isClosed() {
        return closed;
    }

    /** Throws if this object is closed. */
    final void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    /**
     * Closes every dependent object (newest first), then destroys this one. Idempotent.
     *
     * @throws VerbsException if the native destroy fails; the object then stays open
     */
    @Override
    public final void close() {
        synchronized (treeLock) {
            if (closed) {
                return;
            }
            for (VerbsResource dependent : List.copyOf(dependents).reversed()) {
                dependent.close();
            }
            destroy();
            closed = true;
            for (VerbsResource owner : owners) {
                owner.dependents.remove(this);
            }
            afterClose();
        }
    }

    /** The live objects that depend on this one, oldest first (a snapshot). */
    final List<VerbsResource> dependents() {
        synchronized (treeLock) {
            return List.copyOf(dependents);
        }
    }

    /** Frees the native object; throws {@link VerbsException} on failure. */
    abstract void destroy();

    /** Releases what the native object used (memory it owned); runs once, after a successful destroy. */
    void afterClose() {
    }
}
