package org.panamaverbs.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import org.panamaverbs.ffi.ibv_port_attr;
import org.panamaverbs.ffi.ibverbs_h;
import org.panamaverbs.ffi.verbs_context;
import org.panamaverbs.internal.Unchecked;

/**
 * {@code ibv_query_port}, which libibverbs has no function for: in C it is a macro over the inline
 * {@code ___ibv_query_port}, so Java re-implements that inline function (see {@link Context#queryPort(int)}),
 * including {@code verbs_get_ctx_op}'s reading of the extended context.
 */
final class PortAttributesQuery {
    /** {@code verbs_context.query_port(ctx, port, attr, sizeof attr)}, called through the provider pointer. */
    private static final MethodHandle QUERY_PORT_OP = Linker.nativeLinker().downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS, JAVA_LONG));

    private PortAttributesQuery() {
    }

    /**
     * The body of the inline {@code ___ibv_query_port}: the provider's {@code query_port} operation when the context
     * is extended and has one, else the compatibility symbol {@code ibv_query_port}.
     *
     * @param context    the {@code struct ibv_context *} of an open device
     * @param port       a port the device has (the caller checked)
     * @param deviceName for the error message
     * @throws VerbsException naming {@code ibv_query_port} if the provider fails the query
     */
    static PortAttributes query(MemorySegment context, int port, String deviceName) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_port_attr.layout());
            MemorySegment queryPortOp = ExtendedContext.op(context, verbs_context.query_port$offset());
            int rc;
            if (queryPortOp == null) {
                rc = ibverbs_h.ibv_query_port(context, (byte) port, attr);
            } else {
                rc = (int) QUERY_PORT_OP.invokeExact(queryPortOp, context, (byte) port, attr,
                        ibv_port_attr.layout().byteSize());
            }
            if (rc != 0) {
                throw new VerbsException("ibv_query_port", rc, "device " + deviceName + " port " + port);
            }
            return new PortAttributes(
                    PortState.of(ibv_port_attr.state(attr)),
                    Mtu.of(ibv_port_attr.max_mtu(attr)),
                    Mtu.of(ibv_port_attr.active_mtu(attr)),
                    ibv_port_attr.gid_tbl_len(attr),
                    ibv_port_attr.port_cap_flags(attr),
                    Integer.toUnsignedLong(ibv_port_attr.max_msg_sz(attr)),
                    Short.toUnsignedInt(ibv_port_attr.lid(attr)),
                    Short.toUnsignedInt(ibv_port_attr.sm_lid(attr)),
                    Byte.toUnsignedInt(ibv_port_attr.lmc(attr)),
                    Byte.toUnsignedInt(ibv_port_attr.active_width(attr)),
                    Byte.toUnsignedInt(ibv_port_attr.active_speed(attr)),
                    Byte.toUnsignedInt(ibv_port_attr.phys_state(attr)),
                    LinkLayer.of(Byte.toUnsignedInt(ibv_port_attr.link_layer(attr))),
                    ibv_port_attr.pkey_tbl_len(attr));
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }
}
