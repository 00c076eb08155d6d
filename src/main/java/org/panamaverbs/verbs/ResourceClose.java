package org.panamaverbs.verbs;

import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.panamaverbs.internal.ControlEvents;
import org.panamaverbs.internal.Liveness;

/**
 * The close of verbs objects by the rules {@link VerbsResource} states: mark, wait for the calls inside (one
 * handshake of the JVM's threads for every object closed together), destroy children first.
 */
final class ResourceClose {
    private ResourceClose() {
    }

    /**
     * The close of {@code roots}, in three steps so that a slow call in flight stalls nobody else in the context:
     * under each tree's lock, each subtree is marked closed (new calls and new children are refused from here on);
     * without a lock, the objects' close handshake runs (one for all) and the close waits for posts and polls still
     * inside; under the locks again, the native objects are destroyed, children first. A root another thread is
     * closing is waited for.
     */
    static void closeTogether(List<VerbsResource> roots) {
        Map<Backstop, List<VerbsResource>> byTree = new LinkedHashMap<>();
        List<VerbsResource> closing = new ArrayList<>();
        List<VerbsResource> closedElsewhere = new ArrayList<>();
        for (VerbsResource root : roots) {
            List<VerbsResource> ofTree = byTree.computeIfAbsent(root.treeLock, tree -> new ArrayList<>());
            synchronized (root.treeLock) {
                if (!root.closed) {
                    root.markClosing(ofTree);
                } else if (root.abandoned && !root.destroyed && !ofTree.contains(root)) {
                    root.reclaimAbandoned(ofTree); // an earlier close gave up on a call: try again, it may have returned
                } else if (!ofTree.contains(root)) {
                    closedElsewhere.add(root);
                }
            }
        }
        byTree.values().forEach(closing::addAll);
        try {
            awaitCallsInside(closing);
        } catch (RuntimeException stuck) {
            for (VerbsResource r : closing) {
                synchronized (r.treeLock) {
                    r.abandoned = true;
                    r.treeLock.notifyAll();
                }
            }
            throw stuck;
        }
        RuntimeException failure = null;
        for (Map.Entry<Backstop, List<VerbsResource>> tree : byTree.entrySet()) {
            synchronized (tree.getKey()) {
                try {
                    destroyAll(tree.getValue());
                } catch (RuntimeException e) {
                    failure = firstOf(failure, e);
                } finally {
                    tree.getKey().notifyAll();
                }
            }
        }
        for (VerbsResource r : closedElsewhere) {
            synchronized (r.treeLock) {
                try {
                    r.awaitDestroyed(r);
                } catch (RuntimeException e) {
                    failure = firstOf(failure, e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Ends every view of the objects marked closing, makes the barrier {@link InFlight}'s markers need (one
     * handshake for all, if any was named by a call), then waits until no post or poll is inside one of them.
     */
    private static void awaitCallsInside(List<VerbsResource> closing) {
        if (closing.isEmpty()) {
            return;
        }
        boolean handshake = false;
        boolean marked = false;
        // the closed flags and stamps set above are visible before the dataPathReached reads (see firstDataPathCall)
        VarHandle.fullFence();
        for (VerbsResource r : closing) {
            handshake |= r.liveness.end(r);
            marked |= r.mayBeNamedByCalls();
        }
        if (marked && !handshake) {
            Liveness.handshakeAllThreads(); // the barrier InFlight's markers need, which no arena close gave
        }
        // after a handshake of all threads: every post or poll that can still be inside one of these objects (or use
        // it through a work request) is visible in its marker
        InFlight.awaitCalls(inside -> {
            for (VerbsResource r : closing) {
                if (r.waitsFor(inside)) {
                    return true;
                }
            }
            return false;
        }, closing.getLast());
    }

    private static RuntimeException firstOf(RuntimeException first, RuntimeException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    /** Destroys the listed objects in order; the first failure is thrown once all were tried. Holds the tree lock. */
    private static void destroyAll(List<VerbsResource> closing) {
        RuntimeException failure = null;
        for (VerbsResource r : closing) {
            try {
                // a dependent another thread is closing must be freed before its owner
                for (VerbsResource dependent : List.copyOf(r.dependents)) {
                    r.awaitDestroyed(dependent);
                }
                Object event = ControlEvents.begin(ControlEvents.Kind.RESOURCE_DESTROY);
                boolean succeeded = false;
                try {
                    if (r.giveBack == null) {
                        r.destroy();
                    } else {
                        r.giveBack.run();
                    }
                    succeeded = true;
                } finally {
                    ControlEvents.destroyed(event, r.deviceName(), r.getClass().getSimpleName(), r,
                            r.giveBack != null, succeeded);
                    r.destroyed = true;
                    r.disown(); // freed, or failed to free: either way not the backstop's to retry
                    for (VerbsResource owner : r.owners) {
                        owner.dependents.remove(r);
                    }
                }
                r.afterClose();
            } catch (RuntimeException e) {
                failure = firstOf(failure, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
