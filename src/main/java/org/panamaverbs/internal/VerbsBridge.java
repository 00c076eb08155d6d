package org.panamaverbs.internal;

import java.lang.foreign.MemorySegment;

import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QueuePair;

/**
 * What the connection-manager package needs from the verbs facade and the public API does not offer:
 * wrapping native objects that another owner (an rdma_cm id) created and frees. Implemented inside
 * {@code org.panamaverbs.verbs} and registered when {@link Context} initializes; this package is not
 * exported, so it is no door into the API for users.
 */
public interface VerbsBridge {
    /** An {@code ibv_context} rdma_cm opened (librdmacm keeps it open): closing the Context never closes the device. */
    Context borrowContext(MemorySegment verbs, String owner);

    /**
     * A queue pair made by {@code creator} (e.g. {@code rdma_create_qp}) after the checks and the
     * {@code ibv_qp_init_attr} of {@code ibv_create_qp}; closing it runs {@code giveBack} (e.g.
     * {@code rdma_destroy_qp}) instead of {@code ibv_destroy_qp}.
     */
    QueuePair createHeldQueuePair(ProtectionDomain pd, QpConfig config, QpCreator creator, String owner, Runnable giveBack);

    /** A UD queue pair that rdma_cm moved to RTS: posts may now carry up to the port's active MTU. */
    void datagramsReady(QueuePair qp);

    /** The device policy's gate of {@code rdma_create_ep} ({@code UnsupportedVerbException} on PVRDMA). */
    void requireCreateEndpoint(Context context);

    /** The bridge, once {@link Context} has initialized. */
    static VerbsBridge get() {
        VerbsBridge bridge = Holder.bridge;
        if (bridge == null) {
            try {
                Class.forName(Context.class.getName(), true, VerbsBridge.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
            bridge = Holder.bridge;
        }
        return bridge;
    }

    /** Called once by the verbs package. */
    static void register(VerbsBridge implementation) {
        Holder.bridge = implementation;
    }

    /** Holds the registered implementation. */
    final class Holder {
        static volatile VerbsBridge bridge;

        private Holder() {
        }
    }
}
