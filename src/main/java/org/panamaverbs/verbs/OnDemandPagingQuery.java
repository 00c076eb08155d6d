package org.panamaverbs.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import org.panamaverbs.ffi.verbs_context;
import org.panamaverbs.internal.Unchecked;

/**
 * The {@code odp_caps} of {@code ibv_query_device_ex}, which libibverbs has no function for: verbs.h's inline
 * {@code ibv_query_device_ex} calls the provider's {@code query_device_ex} through the extended context, and without
 * one (or when it answers EOPNOTSUPP or ENOSYS) falls back to {@code ibv_query_device}, which reports no on-demand
 * paging. Java re-implements it as {@link PortAttributesQuery} re-implements {@code ___ibv_query_port}, asking for the
 * struct up to the end of {@code odp_caps} (providers fill what fits the size they are given, older ones too).
 */
final class OnDemandPagingQuery {
    /** {@code offsetof(struct ibv_device_attr_ex, odp_caps)}: after the 232-byte {@code orig_attr} and {@code comp_mask}. */
    static final long ODP_CAPS_OFFSET = 240;
    /** {@code odp_caps.per_transport_caps.rc_odp_caps}; {@code uc_odp_caps} and {@code ud_odp_caps} follow it. */
    static final long RC_CAPS_OFFSET = ODP_CAPS_OFFSET + 8;
    /** {@code offsetofend(struct ibv_device_attr_ex, odp_caps)}: the size handed to the provider. */
    static final long ATTR_SIZE = ODP_CAPS_OFFSET + 24;
    /** {@code query_device_ex(ctx, input, attr, attr_size)}, called through the provider pointer. */
    private static final MethodHandle QUERY_DEVICE_EX_OP = Linker.nativeLinker().downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));

    private OnDemandPagingQuery() {
    }

    /**
     * @param context    the {@code struct ibv_context *} of an open device
     * @param deviceName for the error message
     * @throws VerbsException naming {@code ibv_query_device_ex} if the provider fails the query
     */
    static OnDemandPaging query(MemorySegment context, String deviceName) {
        MemorySegment queryDeviceExOp = ExtendedContext.op(context, verbs_context.query_device_ex$offset());
        if (queryDeviceExOp == null) {
            return OnDemandPaging.NONE;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ATTR_SIZE, Long.BYTES);
            int rc = (int) QUERY_DEVICE_EX_OP.invokeExact(queryDeviceExOp, context, MemorySegment.NULL, attr, ATTR_SIZE);
            if (rc == Errno.EOPNOTSUPP || rc == Errno.ENOSYS) {
                return OnDemandPaging.NONE;
            }
            if (rc != 0) {
                throw new VerbsException("ibv_query_device_ex", rc, "device " + deviceName + " (its on-demand paging)");
            }
            return new OnDemandPaging(attr.get(JAVA_LONG, ODP_CAPS_OFFSET), attr.get(JAVA_INT, RC_CAPS_OFFSET),
                    attr.get(JAVA_INT, RC_CAPS_OFFSET + Integer.BYTES), attr.get(JAVA_INT, RC_CAPS_OFFSET + 2 * Integer.BYTES));
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }
}
