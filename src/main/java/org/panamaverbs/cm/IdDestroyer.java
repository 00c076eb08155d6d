package org.panamaverbs.cm;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.Liveness;
import org.panamaverbs.internal.NativeFunction;
import org.panamaverbs.internal.ReusedThreads;
import org.panamaverbs.verbs.VerbsException;

/**
 * The last step of {@link CmId#close()}: {@code rdma_destroy_id}, which waits in the kernel (ib_cm's
 * {@code cm_destroy_id}) until the connection's outstanding MADs are answered or time out, with no bound of its own.
 * It runs on a platform thread (a virtual one would pin its carrier for as long), and the close waits for it as long
 * as for a call in flight; past that the destroy goes on in the background. {@link CmId#closeAsync()} does not wait.
 */
final class IdDestroyer {
    static final String THREAD_NAME = "panama-verbs-cm-destroy";
    private static final MethodHandle DESTROY_ID = CallState.capturingErrno(NativeFunction.RDMA_DESTROY_ID);

    /** Platform threads kept a second after a destroy: a burst of closes reuses them, an idle process keeps none. */
    private static final ReusedThreads THREADS = new ReusedThreads(THREAD_NAME, 1, TimeUnit.SECONDS);

    private IdDestroyer() {
    }

    /**
     * Destroys the id at {@code rawId} (whose lifetime in Java has ended) and runs {@code done} on the destroying
     * thread once {@code rdma_destroy_id} returned, whenever that is.
     *
     * @throws IllegalStateException if it has not returned within {@link Liveness#CLOSE_WAIT_NANOS}, or the caller
     *                               was interrupted (the destroy goes on in the background)
     * @throws VerbsException        naming {@code rdma_destroy_id} and the errno if it failed
     */
    static void destroy(MemorySegment rawId, Object owner, Runnable done) {
        CompletableFuture<Void> destroyed = destroyLater(rawId, owner, done);
        try {
            destroyed.get(Liveness.CLOSE_WAIT_NANOS, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("rdma_destroy_id for " + owner + " has not returned within "
                    + TimeUnit.NANOSECONDS.toSeconds(Liveness.CLOSE_WAIT_NANOS) + " s (librdmacm waits for the id's"
                    + " reported events to be acknowledged and the kernel for the connection's teardown); it goes on"
                    + " in the background and frees the id when it returns");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while " + owner + " was being destroyed; rdma_destroy_id goes on"
                    + " in the background", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof VerbsException failed) {
                throw failed;
            }
            throw new IllegalStateException("destroying " + owner + " failed", e.getCause());
        }
    }

    /**
     * Starts destroying the id at {@code rawId} and returns at once; {@code done} runs on the destroying thread once
     * {@code rdma_destroy_id} returned.
     *
     * @return completes then, or exceptionally with the {@link VerbsException} naming {@code rdma_destroy_id}
     */
    static CompletableFuture<Void> destroyLater(MemorySegment rawId, Object owner, Runnable done) {
        CompletableFuture<Void> destroyed = new CompletableFuture<>();
        THREADS.execute(() -> {
            int rc;
            int errno;
            try (CallState state = CallState.open()) {
                rc = (int) DESTROY_ID.invokeExact(state.segment(), rawId);
                errno = state.errno();
            } catch (Throwable t) {
                done.run();
                destroyed.completeExceptionally(t);
                return;
            }
            done.run();
            if (rc == 0) {
                destroyed.complete(null);
            } else {
                destroyed.completeExceptionally(new VerbsException("rdma_destroy_id", errno, owner.toString()));
            }
        });
        return destroyed;
    }
}
