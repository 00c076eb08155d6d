package org.panamaverbs.cm;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.net.InetSocketAddress;
import java.time.Duration;

import org.panamaverbs.ffi.rdmacm.rdma_cma_h;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.NativeFunction;
import org.panamaverbs.internal.Unchecked;
import org.panamaverbs.internal.VerbsBridge;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.QpType;
import org.panamaverbs.verbs.VerbsException;

/**
 * {@link CmId#createEndpoint}: {@code rdma_getaddrinfo}, {@code rdma_create_ep} and {@code rdma_migrate_id}, after
 * the device that would serve the address was found and its policy asked (PVRDMA refuses {@code rdma_create_ep}).
 */
final class CmEndpoints {
    private static final MethodHandle GETADDRINFO = CallState.capturingErrno(NativeFunction.RDMA_GETADDRINFO);
    private static final MethodHandle CREATE_EP = CallState.capturingErrno(NativeFunction.RDMA_CREATE_EP);
    private static final MethodHandle MIGRATE_ID = CallState.capturingErrno(NativeFunction.RDMA_MIGRATE_ID);

    private CmEndpoints() {
    }

    static CmId create(CmEventChannel channel, InetSocketAddress address, boolean passive, PortSpace portSpace,
            Duration timeout) {
        requireCreateEndpoint(channel, address, passive, portSpace, timeout);
        try (Arena arena = Arena.ofConfined(); CallState state = CallState.open()) {
            MemorySegment hints = arena.allocate(org.panamaverbs.ffi.rdmacm.rdma_addrinfo.layout());
            org.panamaverbs.ffi.rdmacm.rdma_addrinfo.ai_flags(hints, (passive ? rdma_cma_h.RAI_PASSIVE() : 0)
                    | rdma_cma_h.RAI_NUMERICHOST());
            org.panamaverbs.ffi.rdmacm.rdma_addrinfo.ai_port_space(hints, portSpace.code());
            org.panamaverbs.ffi.rdmacm.rdma_addrinfo.ai_qp_type(hints, portSpace == PortSpace.TCP ? QpType.RC.code()
                    : QpType.UD.code());
            MemorySegment info = arena.allocate(ADDRESS);
            MemorySegment node = arena.allocateFrom(address.getAddress().getHostAddress());
            MemorySegment service = arena.allocateFrom(Integer.toString(address.getPort()));
            int rc = (int) GETADDRINFO.invokeExact(state.segment(), node, service, hints, info);
            if (rc != 0) {
                throw new VerbsException("rdma_getaddrinfo", rc < 0 ? state.errno() : rc, address
                        + (passive ? " (passive)" : ""));
            }
            MemorySegment res = info.get(ADDRESS, 0);
            try {
                MemorySegment slot = arena.allocate(ADDRESS);
                rc = (int) CREATE_EP.invokeExact(state.segment(), slot, res, MemorySegment.NULL, MemorySegment.NULL);
                if (rc != 0) {
                    throw new VerbsException("rdma_create_ep", state.errno(), address + (passive ? " (passive)" : ""));
                }
                MemorySegment id = slot.get(ADDRESS, 0);
                synchronized (channel) {
                    synchronized (channel.nativeReadLock()) { // the id's handle becomes valid on this channel
                        rc = (int) MIGRATE_ID.invokeExact(state.segment(), id, channel.handle());
                    }
                    if (rc != 0) {
                        int errno = state.errno();
                        rdma_cma_h.rdma_destroy_ep(id);
                        throw new VerbsException("rdma_migrate_id", errno, "moving the endpoint for " + address
                                + " to " + channel);
                    }
                    return CmId.adopt(channel, id, portSpace);
                }
            } finally {
                rdma_cma_h.rdma_freeaddrinfo(res);
            }
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /** Finds the device(s) that would serve {@code address} and asks their policy about {@code rdma_create_ep}. */
    private static void requireCreateEndpoint(CmEventChannel channel, InetSocketAddress address, boolean passive,
            PortSpace portSpace, Duration timeout) {
        if (passive && address.getAddress().isAnyLocalAddress()) {
            for (org.panamaverbs.verbs.RdmaDevice device : org.panamaverbs.verbs.Rdma.devices()) {
                try (Context context = org.panamaverbs.verbs.Rdma.open(device.name())) {
                    VerbsBridge.get().requireCreateEndpoint(context);
                }
            }
            return;
        }
        try (CmId probe = CmId.create(channel, portSpace)) {
            if (passive) {
                probe.bind(address);
            } else {
                probe.resolveAddress(address, timeout);
            }
            VerbsBridge.get().requireCreateEndpoint(probe.context());
        }
    }
}
