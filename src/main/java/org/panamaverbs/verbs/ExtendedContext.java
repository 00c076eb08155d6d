package org.panamaverbs.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;

import org.panamaverbs.ffi.verbs_context;
import org.panamaverbs.internal.NativeLayouts;

/**
 * {@code verbs_get_ctx_op}, the macro through which verbs.h's inline functions ({@code ___ibv_query_port},
 * {@code ibv_query_device_ex}) reach a provider's operations in {@code struct verbs_context}, which ends with the
 * {@code struct ibv_context} the application holds.
 */
final class ExtendedContext {
    /** {@code __VERBS_ABI_IS_EXTENDED}: {@code ((void *)UINTPTR_MAX)} in {@code ibv_context.abi_compat}. */
    private static final long VERBS_ABI_IS_EXTENDED = -1L;

    private ExtendedContext() {
    }

    /**
     * {@code verbs_get_ctx_op(ctx, op)}: the operation at {@code opOffset} inside {@code struct verbs_context}, or
     * null when the context is not extended, too old to have it ({@code sz}), or the provider leaves it NULL.
     */
    static MemorySegment op(MemorySegment context, long opOffset) {
        NativeLayouts.Selected layouts = NativeLayouts.selected();
        if (context.get(ADDRESS, NativeLayouts.offset(layouts.ibvContext(), "abi_compat")).address() != VERBS_ABI_IS_EXTENDED) {
            return null;
        }
        long contextOffset = verbs_context.context$offset();
        long verbsContextSize = layouts.verbsContext().byteSize();
        MemorySegment verbsContext = MemorySegment.ofAddress(context.address() - contextOffset).reinterpret(verbsContextSize);
        long size = verbsContext.get(JAVA_LONG, verbs_context.sz$offset());
        if (size < verbsContextSize - opOffset) {
            return null;
        }
        MemorySegment op = verbsContext.get(ADDRESS, opOffset);
        return op.equals(MemorySegment.NULL) ? null : op;
    }
}
