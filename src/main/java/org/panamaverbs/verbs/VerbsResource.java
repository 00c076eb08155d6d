package org.panamaverbs.verbs;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

import org.panamaverbs.internal.Liveness;

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
 *   <li>Closing while another thread is inside a native call on the object (polling a completion queue,
 *       posting to a queue pair) waits for that call to return, and later calls throw
 *       {@link IllegalStateException}. Control-path calls get this from the FFM runtime: the native handle
 *       is a segment of a shared arena owned by the object, kept alive for the duration of every downcall
 *       that receives it. Posts and polls pass raw addresses, to pay no atomic operation per call, and get
 *       it from a per-thread in-flight marker that close waits for ({@code InFlight}). Protection domains,
 *       completion channels, completion queues and queue pairs, whose control calls run under a lock their close
 *       takes, make that arena only for a program's {@code handle()} view: closing an arena is a handshake with
 *       every thread, which their close then makes only if a post or poll ever named them.</li>
 *   <li>A public {@code handle()} is a read-only view of the native struct, for C code: passed to a downcall it
 *       keeps the object alive until the call returns, and its fields can be read; a write through it throws
 *       {@link IllegalArgumentException}, since the provider owns every field (a changed pointer crashes its
 *       next call, the destroy included).</li>
 *   <li>If the native destroy fails (a {@link VerbsException}), the object is closed for Java and its native
 *       resources are leaked; the exception says why.</li>
 *   <li>A node is either <em>owned</em> (this library created it and destroys it) or <em>held by another
 *       owner</em> that created it and frees it: rdma_cm's {@code cm_id->verbs} context (librdmacm keeps it
 *       open) and the queue pair {@code rdma_create_qp} made ({@code rdma_destroy_qp} frees it). Closing a held
 *       node still closes its dependents first and ends all use from Java, then hands the native object back
 *       to its owner instead of destroying it, so nothing is freed twice.</li>
 * </ul>
 * Creation and destruction of all objects of one context are serialized on that context's lock, which a
 * close does not hold while it waits for calls in flight; the data path (post, poll) takes no lock.
 */
public abstract sealed class VerbsResource implements AutoCloseable
        permits Context, ProtectionDomain, MemoryRegion, CompletionQueue, CompletionChannel, QueuePair, AddressHandle, SharedReceiveQueue {

    /** The tree's {@link Backstop}, also its lock: creation, destruction, and a close waiting for another close. */
    final Backstop treeLock;
    /** Scope of the native handle: downcalls receiving it keep it alive; closing it ends all use. */
    final Liveness liveness = new Liveness();
    final VerbsResource[] owners;
    final List<VerbsResource> dependents = new ArrayList<>();
    private static final java.util.concurrent.atomic.AtomicInteger CALL_IDS = new java.util.concurrent.atomic.AtomicInteger();
    /**
     * This object's name in {@link InFlight} markers: never 0, unique among live objects (it wraps after 2^32
     * creations; a collision would only make a close wait for a short call on another object).
     */
    final int callId = nextCallId();
    /** Read on the data path: a plain volatile read, no lock. Set when a close begins. */
    volatile boolean closed;
    /** A post or poll has named this object in its marker: its close needs the barrier of {@link InFlight}. */
    volatile boolean dataPathReached;
    /** The native object was freed (or given back); guarded by the tree lock. */
    boolean destroyed;
    /** A close gave up waiting for a call on this object; the native object stays allocated. Tree lock. */
    boolean abandoned;
    /** Frees the native object (a function of raw addresses only); null until {@link #own} ran. */
    private Runnable nativeFree;
    /** This object's entry in its tree's {@link Backstop}, while the backstop may have to free it. */
    private Backstop.Entry backstopEntry;
    /** Null when this library destroys the native object; else who does, and how it is given back. */
    private String heldBy;
    Runnable giveBack;

    /** Registers this object with its owners; callers hold {@code treeLock} and have checked the owners are open. */
    VerbsResource(Backstop treeLock, VerbsResource... owners) {
        this.treeLock = treeLock;
        this.owners = owners;
        for (VerbsResource owner : owners) {
            if (!owner.dependents.contains(this)) {
                owner.dependents.add(this);
            }
        }
    }

    private static int nextCallId() {
        int id;
        do {
            id = CALL_IDS.incrementAndGet();
        } while (id == 0);
        return id;
    }

    /**
     * {@code raw} (a pointer returned by a verb) as a read-only segment of this object's liveness scope: what
     * the public {@code handle()} methods return and the control path passes to C.
     */
    final MemorySegment scoped(MemorySegment raw) {
        return liveness.scope(raw);
    }

    /** The plain address of a scoped handle, for the destroy call after the scope has ended. */
    static MemorySegment raw(MemorySegment scoped) {
        return MemorySegment.ofAddress(scoped.address());
    }

    /**
     * Marks this node as held by {@code owner}, which frees the native object: {@link #close()} runs
     * {@code giveBack} (under the tree lock, after the dependents closed) instead of {@link #destroy()}.
     * Called once, right after construction.
     */
    final void heldBy(String owner, Runnable giveBack) {
        this.heldBy = owner;
        this.giveBack = giveBack;
        disown();
    }

    /**
     * Called at the end of each constructor: how to free the native object, by close or, if the whole tree
     * becomes unreachable unclosed, by the {@link Backstop} (which first ends the handle's scope, as close does).
     * {@code free} must not refer to this object; {@code what} is this object's description for the messages.
     */
    final void own(String what, Runnable free) {
        this.nativeFree = free;
        Liveness scope = liveness;
        // as close does: handle() views a program kept must throw, not read the memory the backstop frees
        this.backstopEntry = treeLock.add(what, () -> {
            scope.end(what);
            free.run();
        });
    }

    /** The backstop forgets this object: another owner frees it, or it was freed another way. */
    final void disown() {
        if (backstopEntry != null) {
            treeLock.remove(backstopEntry);
            backstopEntry = null;
        }
    }

    /** Throws {@link VerbsException} naming {@code verb} unless {@code rc} is 0 (for native destroy calls). */
    static void check(String verb, int rc, String what) {
        if (rc != 0) {
            throw new VerbsException(verb, rc, what);
        }
    }

    /**
     * Who frees the native object: null when this library does, else a description of the other owner.
     *
     * @return null for an owned object, or the holder's description (for example the rdma_cm id whose
     *         {@code rdma_destroy_qp} frees a queue pair), to which {@link #close()} hands the object back
     */
    public final String heldBy() {
        return heldBy;
    }

    /** The name of the device this object's tree belongs to, for logs and events. */
    final String deviceName() {
        return treeLock.deviceName();
    }

    /** The tree's backstop, which is the lock serializing creation and destruction in this object's tree. */
    final Backstop treeLock() {
        return treeLock;
    }

    /**
     * Whether {@link #close()} has begun: from then on every use throws.
     *
     * @return true once a close of this object, or of an object it depends on, has started, even if the
     *         native destroy is still waiting for a call in flight or failed
     */
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
     * Closes every dependent object (newest first), then destroys this one. Idempotent; a second caller
     * (or a caller closing a dependent the first one is closing) returns once the object is freed.
     *
     * <p>A close marks the subtree closed under the tree lock, waits without it for the calls inside, then destroys
     * under it again, so that a slow call in flight stalls nobody else in the context. To close several objects of
     * a connection at once, {@link #closeAll} makes one handshake of the JVM's threads for all of them.
     *
     * @throws VerbsException        if a native destroy fails; the object is closed regardless
     * @throws IllegalStateException if a call on the object has not returned within {@link InFlight#CLOSE_WAIT_NANOS}
     *                               (the native object is then left allocated: freeing it could crash that call;
     *                               a later close waits again and frees it once the call returned)
     */
    @Override
    public final void close() {
        ResourceClose.closeTogether(List.of(this));
    }

    /**
     * Closes {@code resources} together: as closing each in turn (its dependents first, newest first), with one
     * handshake of the JVM's threads for all of them where each close may need its own. A connection's queue pair,
     * completion queues and channels closed this way cost one handshake instead of up to three (about 50 us natively,
     * 0.8 ms under emulation, each). Objects already closed, and nulls, are skipped; each object is destroyed even if
     * another one's destroy failed.
     *
     * @param resources objects of any trees, in the order to close them
     * @throws VerbsException        if a native destroy fails (the first; the others suppressed); every object is
     *                               closed regardless
     * @throws IllegalStateException if a call on one of them has not returned within {@link InFlight#CLOSE_WAIT_NANOS}:
     *                               as {@link #close()}, no object of the batch is freed then, and closing again
     *                               frees them once the call returned
     */
    public static void closeAll(VerbsResource... resources) {
        List<VerbsResource> roots = new ArrayList<>(resources.length);
        for (VerbsResource r : resources) {
            if (r != null) {
                roots.add(r);
            }
        }
        ResourceClose.closeTogether(roots);
    }

    /** Marks this object and its open dependents closed, children first, and lists them in that order. */
    void markClosing(List<VerbsResource> closing) {
        for (int i = dependents.size() - 1; i >= 0; i--) { // marking changes no list: only a destroy removes
            VerbsResource dependent = dependents.get(i);
            if (!dependent.closed) {
                dependent.markClosing(closing);
            }
        }
        // closed first: a post that sees what beforeHandshake() moves (a region generation) then sees the close
        closed = true;
        beforeHandshake();
        closing.add(this);
    }

    /**
     * Lists this object and the dependents an earlier close abandoned (closed, not freed), children first, and
     * clears their flag so that this close waits for their calls again. Holds the tree lock.
     */
    void reclaimAbandoned(List<VerbsResource> closing) {
        for (VerbsResource dependent : List.copyOf(dependents).reversed()) {
            if (dependent.abandoned && !dependent.destroyed) {
                dependent.reclaimAbandoned(closing);
            }
        }
        abandoned = false;
        closing.add(this);
    }

    /** Waits (holding the tree lock, released while waiting) until another thread's close of {@code r} freed it. */
    void awaitDestroyed(VerbsResource r) {
        long deadline = System.nanoTime() + 3 * InFlight.CLOSE_WAIT_NANOS;
        while (!r.destroyed) {
            long left = deadline - System.nanoTime();
            if (r.abandoned || left <= 0) {
                throw new IllegalStateException((r == this ? "" : "cannot free " + this + ": ") + r
                        + " is being closed by another thread, which waits for a call on it that has not returned");
            }
            try {
                treeLock.wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while " + r + " was being closed by another thread", e);
            }
        }
    }

    /** The live objects that depend on this one, oldest first (a snapshot). */
    final List<VerbsResource> dependents() {
        synchronized (treeLock) {
            return List.copyOf(dependents);
        }
    }

    /**
     * Whether a post or poll inside the object with call id {@code inside} may be using this object, so that
     * closing this one waits for it: the object itself, and for objects a work request points to (address
     * handles), every call.
     */
    boolean waitsFor(int inside) {
        return inside == callId;
    }

    /**
     * Whether a post or poll may have named this object in its in-flight marker, or used it through a work request,
     * so that its close needs a handshake of all threads before it reads the markers: {@link #dataPathReached}, set
     * by the first call that named it (never, for a domain or a channel, whose calls run under a lock their close
     * takes); objects a work request points to (regions, address handles) answer true. Read after this object is
     * marked closed.
     */
    boolean mayBeNamedByCalls() {
        return dataPathReached;
    }

    /**
     * The first post or poll naming this object, just after its marker store: a Dekker pair with {@link #close()},
     * which marks the object closed, fences, then reads {@link #dataPathReached}. Either the close sees the flag (and
     * hand-shakes, which makes this call's marker visible) or this call, after the fence, sees the close. A later
     * call finds the flag set, so the close sees it too and hand-shakes; the data path pays one plain read.
     */
    final void firstDataPathCall() {
        dataPathReached = true;
        VarHandle.fullFence();
    }

    /**
     * Runs under the tree lock just after this object is marked closed, before its close handshake: what a post
     * reads instead of {@code closed} is moved here, after the flag, so a post that sees it sees the flag too.
     */
    void beforeHandshake() {
    }

    /** Frees the native object; throws {@link VerbsException} on failure. */
    void destroy() {
        nativeFree.run();
    }

    /** Releases what the native object used (memory it owned); runs once, after a successful destroy. */
    void afterClose() {
    }
}
