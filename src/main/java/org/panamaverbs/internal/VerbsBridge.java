package org.panamaverbs.internal;

import java.lang.foreign.MemorySegment;

import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.DeviceAttributes;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.RdmaDevice;

/**
 * What the connection-manager package needs from the verbs facade and the public API does not offer:
 * wrapping native objects that another owner (an rdma_cm id) created and frees. Implemented inside
 * {@code org.panamaverbs.verbs} and registered when {@link Context} initializes; this package is not
 * exported, so it is no door into the API for users.
 *
 * <p>The {@code adopt*} methods go one step further and wrap a whole foreign tree (context, protection
 * domain, completion queues, queue pairs, memory regions) that libibverbs never saw, asking the device
 * nothing: the native benchmark (bench/native-datapath) uses them to run the library's unchanged data path
 * against a stub provider. Adopted objects are ordinary {@link org.panamaverbs.verbs.VerbsResource}s held by
 * {@code owner}: closing one closes its dependents and then runs {@code giveBack} instead of an
 * {@code ibv_destroy_*}. Only their data path (post, poll, request notification) is meant to be used:
 * control-path verbs (modify_qp, query_port, reg_mr on an adopted domain) still call libibverbs, which
 * requires objects it made. The benchmark reaches this interface because it runs on the class path,
 * where module encapsulation does not apply; that is a benchmark-only path, not API.
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

    /**
     * Wraps {@code context} ({@code struct ibv_context *}, with {@code ops.poll_cq}, {@code post_send} and
     * {@code post_recv} set and a real {@code async_fd}) without {@code ibv_query_device} or GID queries:
     * {@code attributes} stand in for them and imply the generic (NOT_PVRDMA) profile.
     *
     * @param giveBack run by {@code close()} instead of {@code ibv_close_device}
     */
    Context adoptContext(MemorySegment context, RdmaDevice device, DeviceAttributes attributes, String owner,
            Runnable giveBack);

    /** Wraps {@code pd} ({@code struct ibv_pd *}, {@code pd->context} being {@code context}'s). */
    ProtectionDomain adoptProtectionDomain(Context context, MemorySegment pd, String owner, Runnable giveBack);

    /** Wraps {@code cq} ({@code struct ibv_cq *} of {@code context}, no completion channel). */
    CompletionQueue adoptCompletionQueue(Context context, MemorySegment cq, String owner, Runnable giveBack);

    /**
     * Wraps {@code qp} ({@code struct ibv_qp *} in {@code pd}); its {@code context}, {@code pd}, {@code send_cq},
     * {@code recv_cq}, {@code srq} and {@code qp_type} must agree with {@code pd} and {@code config}.
     */
    QueuePair adoptQueuePair(ProtectionDomain pd, MemorySegment qp, QpConfig config, QpCapabilities capabilities,
            String owner, Runnable giveBack);

    /**
     * Wraps {@code mr} ({@code struct ibv_mr *} in {@code pd} over exactly {@code memory}, which must stay
     * alive until the region closes), registered with {@code access} (C bits).
     */
    MemoryRegion adoptMemoryRegion(ProtectionDomain pd, MemorySegment mr, MemorySegment memory, int access,
            String owner, Runnable giveBack);

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
