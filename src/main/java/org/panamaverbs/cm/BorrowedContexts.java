package org.panamaverbs.cm;

import java.lang.foreign.MemorySegment;
import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.Map;

import org.panamaverbs.internal.VerbsBridge;
import org.panamaverbs.verbs.Context;

/**
 * The wrapper of each device context rdma_cm opened, by {@code cm_id->verbs}, held weakly: a context the application
 * no longer reaches must stay collectable, so that its backstop frees what was left open on it. One wrapper per
 * device while the application holds it; never closes the device (librdmacm keeps it open).
 */
final class BorrowedContexts {
    private static final Map<Long, WeakReference<Context>> CONTEXTS = new HashMap<>();

    private BorrowedContexts() {
    }

    /** The wrapper of the device context at {@code verbs} (a {@code struct ibv_context *} librdmacm opened). */
    static Context of(MemorySegment verbs) {
        synchronized (CONTEXTS) {
            CONTEXTS.values().removeIf(held -> held.get() == null);
            WeakReference<Context> held = CONTEXTS.get(verbs.address());
            Context context = held == null ? null : held.get();
            if (context == null || context.isClosed()) {
                context = VerbsBridge.get().borrowContext(verbs, "librdmacm (rdma_cm's device context)");
                CONTEXTS.put(verbs.address(), new WeakReference<>(context));
            }
            return context;
        }
    }
}
