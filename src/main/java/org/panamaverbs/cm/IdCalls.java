package org.panamaverbs.cm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Supplier;

import org.panamaverbs.ffi.rdmacm.rdma_cm_id;
import org.panamaverbs.ffi.rdmacm.rdma_cma_h;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.CountedLifetime;
import org.panamaverbs.internal.SocketAddresses;
import org.panamaverbs.internal.Unchecked;
import org.panamaverbs.verbs.DeviceAttributes;
import org.panamaverbs.verbs.VerbsException;

/**
 * The librdmacm calls of one {@link CmId}, with the id's pointer, each inside the id's {@link CountedLifetime} (so that
 * a close waits for the call and a call after the close throws): each call, its errno turned into a
 * {@link VerbsException} naming it, and the lock that keeps the calls which use {@code id->qp} apart from
 * {@code rdma_destroy_qp}. The checks that come first (open, has a device, has a queue pair) are the id's.
 */
final class IdCalls {
    /** errno's EINVAL (the same number on every Linux architecture). */
    static final int EINVAL = 22;

    private static final MethodHandle BIND = capturing(rdma_cma_h.rdma_bind_addr$address(), rdma_cma_h.rdma_bind_addr$descriptor());
    private static final MethodHandle RESOLVE_ADDR = capturing(rdma_cma_h.rdma_resolve_addr$address(), rdma_cma_h.rdma_resolve_addr$descriptor());
    private static final MethodHandle RESOLVE_ROUTE = capturing(rdma_cma_h.rdma_resolve_route$address(), rdma_cma_h.rdma_resolve_route$descriptor());
    private static final MethodHandle LISTEN = capturing(rdma_cma_h.rdma_listen$address(), rdma_cma_h.rdma_listen$descriptor());
    private static final MethodHandle CREATE_QP = capturing(rdma_cma_h.rdma_create_qp$address(), rdma_cma_h.rdma_create_qp$descriptor());
    private static final MethodHandle CONNECT = capturing(rdma_cma_h.rdma_connect$address(), rdma_cma_h.rdma_connect$descriptor());
    private static final MethodHandle ACCEPT = capturing(rdma_cma_h.rdma_accept$address(), rdma_cma_h.rdma_accept$descriptor());
    private static final MethodHandle REJECT = capturing(rdma_cma_h.rdma_reject$address(), rdma_cma_h.rdma_reject$descriptor());
    private static final MethodHandle DISCONNECT = capturing(rdma_cma_h.rdma_disconnect$address(), rdma_cma_h.rdma_disconnect$descriptor());

    private final MemorySegment id;
    /** The id's lifetime: every call runs inside it, so none reaches a freed id. */
    private final CountedLifetime lifetime;
    /** The {@link CmId}, for the message of a call after its close. */
    private final Object owner;
    /** A connection request's id: EINVAL from rdma_create_qp or rdma_accept then means its client withdrew it. */
    private final boolean ofRequest;
    /** Keeps the calls that modify {@code id->qp} (connect, accept, disconnect) apart from {@code rdma_destroy_qp}. */
    private final Object queuePairCalls = new Object();

    /** Held by rdma_destroy_qp too: the channel's read may be moving {@code id->qp} to RTS. */
    private final Object channelRead;

    IdCalls(MemorySegment id, CountedLifetime lifetime, Object owner, boolean ofRequest, Object channelRead) {
        this.id = id;
        this.lifetime = lifetime;
        this.owner = owner;
        this.ofRequest = ofRequest;
        this.channelRead = channelRead;
    }

    private static MethodHandle capturing(MemorySegment address, FunctionDescriptor descriptor) {
        return CallState.capturingErrno(address, descriptor);
    }

    /** {@code rdma_bind_addr}; {@code what} gives the message of a failure (built only then). */
    void bind(InetSocketAddress local, Supplier<String> what) {
        address("rdma_bind_addr", what, BIND, local, null);
    }

    /** {@code rdma_resolve_addr} with no source address. */
    void resolveAddress(InetSocketAddress destination, Duration timeout, Supplier<String> what) {
        address("rdma_resolve_addr", what, RESOLVE_ADDR, destination, timeout);
    }

    /** An address call with a socket address argument, copied into a {@code sockaddr_storage} for the call. */
    private void address(String name, Supplier<String> what, MethodHandle handle, InetSocketAddress address, Duration timeout) {
        lifetime.enter(owner);
        try {
            try (Arena arena = Arena.ofConfined(); CallState state = CallState.open()) {
                MemorySegment sockaddr = arena.allocate(SocketAddresses.STORAGE_SIZE, 8);
                SocketAddresses.write(address, sockaddr);
                int rc = timeout == null ? (int) handle.invokeExact(state.segment(), id, sockaddr)
                        : (int) handle.invokeExact(state.segment(), id, MemorySegment.NULL, sockaddr, millis(timeout));
                if (rc != 0) {
                    throw new VerbsException(name, state.errno(), what.get());
                }
            } catch (Throwable t) {
                throw Unchecked.rethrow(t);
            }
        } finally {
            lifetime.exit();
        }
    }

    /** {@code rdma_resolve_route}; the id has a device (librdmacm reads {@code cm_id->verbs->device} unchecked). */
    void resolveRoute(Duration timeout, Supplier<String> what) {
        lifetime.enter(owner);
        try {
            try (CallState state = CallState.open()) {
                int rc = (int) RESOLVE_ROUTE.invokeExact(state.segment(), id, millis(timeout));
                if (rc != 0) {
                    throw new VerbsException("rdma_resolve_route", state.errno(), what.get());
                }
            } catch (Throwable t) {
                throw Unchecked.rethrow(t);
            }
        } finally {
            lifetime.exit();
        }
    }

    /** {@code rdma_listen}. */
    void listen(int backlog, Supplier<String> what) {
        lifetime.enter(owner);
        try {
            try (CallState state = CallState.open()) {
                int rc = (int) LISTEN.invokeExact(state.segment(), id, backlog);
                if (rc != 0) {
                    throw new VerbsException("rdma_listen", state.errno(), what.get());
                }
            } catch (Throwable t) {
                throw Unchecked.rethrow(t);
            }
        } finally {
            lifetime.exit();
        }
    }

    /**
     * {@code rdma_create_qp(id, pd, init)}; returns {@code id->qp}. On a request's id EINVAL is the client's
     * withdrawal ({@code withdrawn}).
     */
    MemorySegment createQueuePair(MemorySegment pd, MemorySegment init, Supplier<String> what, Withdrawn withdrawn) {
        lifetime.enter(owner);
        try {
            try (CallState state = CallState.open()) {
                int rc = (int) CREATE_QP.invokeExact(state.segment(), id, pd, init);
                if (rc != 0) {
                    throw ofRequest && state.errno() == EINVAL ? withdrawn.exception("rdma_create_qp", what.get())
                            : new VerbsException("rdma_create_qp", state.errno(), what.get());
                }
                return rdma_cm_id.qp(id);
            } catch (Throwable t) {
                throw Unchecked.rethrow(t);
            }
        } finally {
            lifetime.exit();
        }
    }

    /** {@code rdma_destroy_qp}, never during a call that uses the queue pair. */
    void destroyQueuePair() {
        lifetime.enter(owner);
        try {
            synchronized (queuePairCalls) {
                synchronized (channelRead) {
                    rdma_cma_h.rdma_destroy_qp(id);
                }
            }
        } finally {
            lifetime.exit();
        }
    }

    /** The exception for a request its client withdrew. */
    interface Withdrawn {
        CmException exception(String call, String what);
    }

    /**
     * {@code rdma_connect} ({@code accept} false) or {@code rdma_accept} with {@code parameters} (private data
     * checked by the caller), under the queue-pair lock; {@code stillHasQueuePair} runs under it first, since a
     * close of the queue pair may have begun since the caller's own check.
     */
    void connectOrAccept(boolean accept, ConnParam parameters, byte[] data, DeviceAttributes device,
            Runnable stillHasQueuePair, Supplier<String> what, Withdrawn withdrawn) {
        lifetime.enter(owner);
        try {
            String call = accept ? "rdma_accept" : "rdma_connect";
            try (Arena arena = Arena.ofConfined(); CallState state = CallState.open()) {
                MemorySegment param = ConnParam.write(parameters, data, device, arena);
                int rc;
                synchronized (queuePairCalls) {
                    stillHasQueuePair.run();
                    rc = accept ? (int) ACCEPT.invokeExact(state.segment(), id, param)
                            : (int) CONNECT.invokeExact(state.segment(), id, param);
                }
                if (rc != 0) {
                    throw ofRequest && accept && state.errno() == EINVAL ? withdrawn.exception(call, what.get())
                            : new VerbsException(call, state.errno(), what.get());
                }
            } catch (Throwable t) {
                throw Unchecked.rethrow(t);
            }
        } finally {
            lifetime.exit();
        }
    }

    /** {@code rdma_reject} with {@code data} (checked by the caller; empty for none), copied for the call. */
    void reject(byte[] data, Supplier<String> what) {
        lifetime.enter(owner);
        try {
            try (Arena arena = Arena.ofConfined(); CallState state = CallState.open()) {
                MemorySegment copy = data.length == 0 ? MemorySegment.NULL : arena.allocateFrom(ValueLayout.JAVA_BYTE, data);
                int rc = (int) REJECT.invokeExact(state.segment(), id, copy, (byte) data.length);
                if (rc != 0) {
                    throw new VerbsException("rdma_reject", state.errno(), what.get());
                }
            } catch (Throwable t) {
                throw Unchecked.rethrow(t);
            }
        } finally {
            lifetime.exit();
        }
    }

    /** {@code rdma_disconnect}, which moves {@code id->qp} to ERR: under the queue-pair lock. */
    void disconnect(Supplier<String> what) {
        lifetime.enter(owner);
        try {
            try (CallState state = CallState.open()) {
                int rc;
                synchronized (queuePairCalls) {
                    rc = (int) DISCONNECT.invokeExact(state.segment(), id);
                }
                if (rc != 0) {
                    throw new VerbsException("rdma_disconnect", state.errno(), what.get());
                }
            } catch (Throwable t) {
                throw Unchecked.rethrow(t);
            }
        } finally {
            lifetime.exit();
        }
    }

    private static int millis(Duration timeout) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    }
}
