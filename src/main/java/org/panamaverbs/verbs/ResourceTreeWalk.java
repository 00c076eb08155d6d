package org.panamaverbs.verbs;

/**
 * Searches of a context's resource tree, walking {@link VerbsResource#dependents()} snapshots (each taken under the
 * tree lock), for what the device reports or limits per context rather than per object.
 */
final class ResourceTreeWalk {
    private ResourceTreeWalk() {
    }

    /**
     * The queue pair, completion queue or shared receive queue below {@code node} whose native address is
     * {@code address} (what an asynchronous event's {@code element} points to), or null if none is.
     */
    static VerbsResource findQueueByAddress(VerbsResource node, long address) {
        for (VerbsResource child : node.dependents()) {
            if ((child instanceof QueuePair qp && qp.address() == address)
                    || (child instanceof CompletionQueue cq && cq.address() == address)
                    || (child instanceof SharedReceiveQueue srq && srq.address() == address)) {
                return child;
            }
            VerbsResource found = findQueueByAddress(child, address);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    /**
     * Tells every queue pair and shared receive queue below {@code node} (they hang off protection domains) that its
     * context's region generation moved to {@code generation}; the caller holds the tree lock.
     */
    static void forEachPostTarget(VerbsResource node, long generation) {
        for (VerbsResource child : node.dependents()) {
            if (child instanceof QueuePair qp) {
                qp.regionGenerationMoved(generation);
            } else if (child instanceof SharedReceiveQueue srq) {
                srq.regionGenerationMoved(generation);
            } else if (child instanceof ProtectionDomain) {
                forEachPostTarget(child, generation);
            }
        }
    }

    /** The live UD queue pairs below {@code node} (queue pairs hang off protection domains), for HWv13's limit. */
    static int countUdQueuePairs(VerbsResource node) {
        int n = 0;
        for (VerbsResource child : node.dependents()) {
            if (child instanceof QueuePair qp && qp.config().type() == QpType.UD) {
                n++;
            } else if (child instanceof ProtectionDomain) {
                n += countUdQueuePairs(child);
            }
        }
        return n;
    }
}
