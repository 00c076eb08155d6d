package org.panamaverbs.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import org.panamaverbs.ffi.verbs_context;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.ControlEvents;
import org.panamaverbs.internal.Unchecked;

/**
 * {@code ibv_alloc_null_mr}, an inline function of verbs.h that calls the provider's {@code alloc_null_mr} through the
 * extended context ({@link ExtendedContext}); libibverbs' default operation, which every provider but mlx5 keeps,
 * answers EOPNOTSUPP. The region made is a {@link MemoryRegion} whose entries point into memory it owns.
 */
final class NullRegions {
    /** {@code alloc_null_mr(pd)}: the provider's pointer first, then the errno buffer. */
    private static final MethodHandle ALLOC_NULL_MR_OP = CallState.capturingErrnoThroughPointer(
            FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final String REMEDY = "register memory with register or allocateAndRegister instead";

    private NullRegions() {
    }

    /**
     * A null region of {@code pd} over {@code length} bytes of zeroed memory, which it frees when closed. Called under
     * the tree lock.
     *
     * @throws UnsupportedVerbException where the device has no null regions
     * @throws VerbsException           naming {@code ibv_alloc_null_mr} and the errno of another failure
     */
    static MemoryRegion allocate(ProtectionDomain pd, long length) {
        Context context = pd.context();
        MemorySegment op = ExtendedContext.op(context.handle(), verbs_context.alloc_null_mr$offset());
        if (op == null) {
            throw context.policy().refused(new UnsupportedVerbException("ibv_alloc_null_mr", "device " + context.name()
                    + " has no null memory regions (its context has no alloc_null_mr operation: a libibverbs older"
                    + " than the operation, or a provider that leaves it out)", REMEDY));
        }
        Object event = ControlEvents.begin(ControlEvents.Kind.MEMORY_REGION_CREATE);
        Arena arena = Arena.ofShared();
        MemoryRegion created;
        try (CallState state = CallState.open()) {
            MemorySegment memory = arena.allocate(length, MemoryRegion.PAGE_SIZE);
            MemorySegment mr = (MemorySegment) ALLOC_NULL_MR_OP.invokeExact(op, state.segment(), pd.handleUnchecked());
            if (mr.equals(MemorySegment.NULL)) {
                int errno = state.errno();
                if (errno == Errno.EOPNOTSUPP || errno == Errno.ENOSYS) {
                    throw context.policy().refused(new UnsupportedVerbException("ibv_alloc_null_mr", "device "
                            + context.name() + " has no null memory regions (its provider answers " + Errno.name(errno)
                            + "; of rdma-core's providers mlx5 has them)", REMEDY));
                }
                throw new VerbsException("ibv_alloc_null_mr", errno, "device " + context.name());
            }
            created = MemoryRegion.ofNull(pd, mr, memory, arena);
        } catch (Throwable t) {
            arena.close(); // nothing owns it yet
            throw Unchecked.rethrow(t);
        }
        ControlEvents.memoryRegionCreated(event, context.name(), created.toString(), length, 0, created.lkeyUnchecked(),
                0, true);
        return created;
    }
}
