package org.panamaverbs.cm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;

import org.panamaverbs.ffi.rdmacm.rdma_cma_h;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.CountedLifetime;
import org.panamaverbs.internal.NativeFunction;
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

    private static final MethodHandle BIND = CallState.capturingErrno(NativeFunction.RDMA_BIND_ADDR);
    private static final MethodHandle RESOLVE_ADDR = CallState.capturingErrno(NativeFunction.RDMA_RESOLVE_ADDR);
    private static final MethodHandle RESOLVE_ROUTE = CallState.capturingErrno(NativeFunction.RDMA_RESOLVE_ROUTE);
    private static final MethodHandle LISTEN = CallState.capturingErrno(NativeFunction.RDMA_LISTEN);
    private static final MethodHandle CREATE_QP = CallState.capturingErrno(NativeFunction.RDMA_CREATE_QP);
    private static final MethodHandle CONNECT = CallState.capturingErrno(NativeFunction.RDMA_CONNECT);
    private static final MethodHandle ACCEPT = CallState.capturingErrno(NativeFunction.RDMA_ACCEPT);
    private static final MethodHandle REJECT = CallState.capturingErrno(NativeFunction.RDMA_REJECT);
    private static final MethodHandle DISCONNECT = CallState.capturingErrno(NativeFunction.RDMA_DISCONNECT);

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

    /** {@code rdma_bind_addr}; {@code what} gives the message of a failure (built only then). */
    void bind(InetSocketAddress local, Supplier<String> what) {
        address("rdma_bind_addr", what, BIND, local, null);
    }

    /** {@code rdma_resolve_addr} with no source address. */
    void resolveAddress(InetSocketAddress destination, Duration timeout, Supplier<String> what) {
        address("rdma_resolve_addr", what, RESOLVE_ADDR, destination, timeout);
    }

    /** An address call with a socket address argument, copied into a {@code sockaddr_storage} for the call. */
    private void address(String name, Supplier<String> what, MethodHandle handle, InetSocketAddress address,
            Duration timeout) {
        inside((errno, arena) -> {
            MemorySegment sockaddr = arena.allocate(SocketAddresses.STORAGE_SIZE, 8);
            SocketAddresses.write(address, sockaddr);
            return timeout == null ? (int) handle.invokeExact(errno, id, sockaddr)
                    : (int) handle.invokeExact(errno, id, MemorySegment.NULL, sockaddr, millis(timeout));
        }, refused(name, what));
    }

    /** {@code rdma_resolve_route}; the id has a device (librdmacm reads {@code cm_id->verbs->device} unchecked). */
    void resolveRoute(Duration timeout, Supplier<String> what) {
        inside((errno, arena) -> (int) RESOLVE_ROUTE.invokeExact(errno, id, millis(timeout)),
                refused("rdma_resolve_route", what));
    }

    /** Looked up on first use: a librdmacm without it (the tests' stand-in) still serves every other call. */
    private static final class OptionCall {
        static final MethodHandle SET_OPTION = CallState.capturingErrno(NativeFunction.RDMA_SET_OPTION);
    }

    /** {@code rdma_set_option(id, RDMA_OPTION_ID, name, &value, 1)}: an option of the id that takes one byte. */
    void setByteOption(int name, String option, int value, Supplier<String> what) {
        inside((errno, arena) -> (int) OptionCall.SET_OPTION.invokeExact(errno, id, rdma_cma_h.RDMA_OPTION_ID(), name,
                arena.allocateFrom(ValueLayout.JAVA_BYTE, (byte) value), 1L), refused("rdma_set_option(" + option + ")", what));
    }

    /** {@code rdma_listen}. */
    void listen(int backlog, Supplier<String> what) {
        inside((errno, arena) -> (int) LISTEN.invokeExact(errno, id, backlog), refused("rdma_listen", what));
    }

    /**
     * {@code rdma_create_qp(id, pd, init)}, which sets {@code id->qp}. On a request's id EINVAL is the client's
     * withdrawal ({@code withdrawn}).
     */
    void createQueuePair(MemorySegment pd, MemorySegment init, Supplier<String> what, Withdrawn withdrawn) {
        inside((errno, arena) -> (int) CREATE_QP.invokeExact(errno, id, pd, init),
                errno -> ofRequest && errno == EINVAL ? withdrawn.exception("rdma_create_qp", what.get())
                        : new VerbsException("rdma_create_qp", errno, what.get()));
    }

    /** {@code rdma_destroy_qp}, never during a call that uses the queue pair. */
    void destroyQueuePair() {
        read(i -> {
            synchronized (queuePairCalls) {
                synchronized (channelRead) {
                    rdma_cma_h.rdma_destroy_qp(i);
                }
            }
            return null;
        });
    }

    /** {@code field} of the id, read inside its lifetime: throws once the id is closed, never reads it freed. */
    <T> T read(Function<MemorySegment, T> field) {
        lifetime.enter(owner);
        try {
            return field.apply(id);
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
        String call = accept ? "rdma_accept" : "rdma_connect";
        inside((errno, arena) -> {
            MemorySegment param = ConnParam.write(parameters, data, device, arena);
            synchronized (queuePairCalls) {
                stillHasQueuePair.run();
                return accept ? (int) ACCEPT.invokeExact(errno, id, param) : (int) CONNECT.invokeExact(errno, id, param);
            }
        }, errno -> ofRequest && accept && errno == EINVAL ? withdrawn.exception(call, what.get())
                : new VerbsException(call, errno, what.get()));
    }

    /** {@code rdma_reject} with {@code data} (checked by the caller; empty for none), copied for the call. */
    void reject(byte[] data, Supplier<String> what) {
        inside((errno, arena) -> {
            MemorySegment copy = data.length == 0 ? MemorySegment.NULL : arena.allocateFrom(ValueLayout.JAVA_BYTE, data);
            return (int) REJECT.invokeExact(errno, id, copy, (byte) data.length);
        }, refused("rdma_reject", what));
    }

    /** {@code rdma_disconnect}, which moves {@code id->qp} to ERR: under the queue-pair lock. */
    void disconnect(Supplier<String> what) {
        inside((errno, arena) -> {
            synchronized (queuePairCalls) {
                return (int) DISCONNECT.invokeExact(errno, id);
            }
        }, refused("rdma_disconnect", what));
    }

    /** One librdmacm call given the errno capture segment and an arena for its arguments; returns its rc. */
    private interface Call {
        int invoke(MemorySegment errno, Arena arena) throws Throwable;
    }

    /**
     * Runs {@code call} inside the id's lifetime (a call after the close throws; the close waits for this one);
     * a non-zero rc throws what {@code failure} makes of the errno.
     */
    private void inside(Call call, IntFunction<RuntimeException> failure) {
        lifetime.enter(owner);
        try (Arena arena = Arena.ofConfined(); CallState state = CallState.open()) {
            if (call.invoke(state.segment(), arena) != 0) {
                throw failure.apply(state.errno());
            }
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        } finally {
            lifetime.exit();
        }
    }

    private static IntFunction<RuntimeException> refused(String name, Supplier<String> what) {
        return errno -> new VerbsException(name, errno, what.get());
    }

    private static int millis(Duration timeout) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    }
}
