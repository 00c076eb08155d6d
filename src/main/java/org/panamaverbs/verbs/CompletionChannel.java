package org.panamaverbs.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.time.Duration;
import java.util.Arrays;
import java.util.function.Supplier;

import org.panamaverbs.ffi.ibv_comp_channel;
import org.panamaverbs.ffi.ibverbs_h;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.FdPoller;
import org.panamaverbs.internal.Libc;
import org.panamaverbs.internal.NativeFunction;
import org.panamaverbs.internal.Unchecked;

/**
 * {@code struct ibv_comp_channel} from {@code ibv_create_comp_channel}, destroyed with
 * {@code ibv_destroy_comp_channel}: the file descriptor on which armed completion queues signal that a
 * completion arrived. Completion queues created with this channel depend on it and are closed first.
 *
 * <p>{@link #awaitEvent(Duration)} is {@code ibv_get_cq_event} on a non-blocking descriptor: the
 * waiting thread parks (a virtual thread unmounts) while one shared poller thread watches the
 * descriptor, so waiting never blocks a carrier thread inside native code. Each event must be
 * acknowledged ({@link CompletionQueue#acknowledgeEvents()}, done for you every
 * {@link CompletionQueue#ACK_BATCH} events and before the queue is destroyed, since
 * {@code ibv_destroy_cq} waits for all acknowledgements).
 *
 * <p>Errors: {@link VerbsException} naming {@code ibv_create_comp_channel}, {@code ibv_get_cq_event} or
 * {@code ibv_destroy_comp_channel}.
 */
public final class CompletionChannel extends VerbsResource {
    private final Context context;
    /** The struct, unscoped: queues are made with it under the tree lock, events read under {@link #errnoCapture}. */
    private final MemorySegment handle;
    private final int fd;
    /** The channel's queues, replaced whole under {@link #queuesChange}; the reader scans them lock-free. */
    private volatile CompletionQueue[] queues = new CompletionQueue[0];
    private final Object queuesChange = new Object();
    /** {@link #tryGetEvent}, bound once. */
    private final Supplier<CompletionQueue> eventReader = this::tryGetEvent;
    /** What {@code ibv_get_cq_event} writes, made once (a read must not allocate); readers take turns. */
    private final MemorySegment errnoCapture;
    private final MemorySegment cqOut;
    private final MemorySegment contextOut;

    private static final class Native {
        static final MethodHandle CREATE = CallState.capturingErrno(NativeFunction.IBV_CREATE_COMP_CHANNEL);
        static final MethodHandle GET_CQ_EVENT = CallState.capturingErrno(NativeFunction.IBV_GET_CQ_EVENT);
    }

    private CompletionChannel(Context context, MemorySegment handle) {
        super(context.treeLock(), context);
        this.context = context;
        this.handle = handle;
        this.fd = ibv_comp_channel.fd(handle);
        Arena eventCall = Arena.ofAuto();
        this.errnoCapture = CallState.allocateBuffer(eventCall);
        this.cqOut = eventCall.allocate(ADDRESS);
        this.contextOut = eventCall.allocate(ADDRESS);
        MemorySegment raw = raw(handle);
        String what = toString();
        own(what, () -> check("ibv_destroy_comp_channel", ibverbs_h.ibv_destroy_comp_channel(raw), what));
    }

    static CompletionChannel create(Context context) {
        MemorySegment channel;
        try (CallState state = CallState.open()) {
            channel = (MemorySegment) Native.CREATE.invokeExact(state.segment(), context.handle());
            if (channel.equals(MemorySegment.NULL)) {
                throw new VerbsException("ibv_create_comp_channel", state.errno(), "device " + context.name()
                        + " (EMFILE: too many open files)");
            }
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
        channel = channel.reinterpret(ibv_comp_channel.layout().byteSize());
        int rc = Libc.setNonBlocking(ibv_comp_channel.fd(channel));
        if (rc != 0) {
            ibverbs_h.ibv_destroy_comp_channel(channel);
            throw new VerbsException("fcntl", rc, "making the completion channel's descriptor non-blocking");
        }
        return new CompletionChannel(context, channel);
    }

    /** {@return the context this channel belongs to} */
    public Context context() {
        return context;
    }

    /**
     * The channel's file descriptor (non-blocking), for applications that multiplex it themselves. It
     * becomes readable when an armed queue signals; reading the event is still {@link #awaitEvent(Duration)}'s
     * job (with a zero timeout after the application's own poll), so that the event is counted for
     * acknowledgement. The descriptor is closed with the channel.
     *
     * @return the file descriptor, {@code ibv_comp_channel.fd}
     * @throws IllegalStateException if the channel is closed
     */
    public int fd() {
        ensureOpen();
        return fd;
    }

    /** The struct for {@code ibv_create_cq}, which runs under the tree lock (a close frees it under the same lock). */
    MemorySegment handleForCq() {
        return handle;
    }

    /** A queue created with this channel. */
    void attach(CompletionQueue cq) {
        synchronized (queuesChange) {
            CompletionQueue[] now = queues;
            CompletionQueue[] more = Arrays.copyOf(now, now.length + 1);
            more[now.length] = cq;
            queues = more;
        }
    }

    /** After the queue was destroyed: no event of it can arrive any more ({@code ibv_destroy_cq} drained them). */
    void detach(CompletionQueue cq) {
        synchronized (queuesChange) {
            CompletionQueue[] now = queues;
            for (int i = 0; i < now.length; i++) {
                if (now[i] == cq) {
                    CompletionQueue[] fewer = new CompletionQueue[now.length - 1];
                    System.arraycopy(now, 0, fewer, 0, i);
                    System.arraycopy(now, i + 1, fewer, i, now.length - i - 1);
                    queues = fewer;
                    return;
                }
            }
        }
    }

    int attachedCount() {
        return queues.length;
    }

    /**
     * {@code ibv_get_cq_event}: waits up to {@code timeout} for an armed completion queue of this channel to
     * signal, and returns it (its event counted for acknowledgement). The queue must be re-armed with
     * {@link CompletionQueue#requestNotification(boolean)} to signal again.
     *
     * @param timeout how long to wait at most; zero or negative makes one non-blocking attempt; not null
     * @return the completion queue that signalled, or null on timeout or if the thread is interrupted (its
     *         interrupt status stays set)
     * @throws VerbsException        naming {@code ibv_get_cq_event} on failure
     * @throws IllegalStateException if the channel is closed, including by another thread while this one waits
     *                               (the close wakes every waiter)
     */
    public CompletionQueue awaitEvent(Duration timeout) {
        return FdPoller.instance().awaitNonBlocking(fd, timeout.toNanos(), eventReader);
    }

    /**
     * {@link #awaitEvent} for {@link CompletionQueue#awaitCompletions}: {@code reader} checks that queue is open
     * before each {@link #tryGetEvent}, so that its close ends the wait too.
     */
    CompletionQueue awaitEvent(long timeoutNanos, Supplier<CompletionQueue> reader) {
        return FdPoller.instance().awaitNonBlocking(fd, timeoutNanos, reader);
    }

    /** Wakes every thread waiting on this channel: each retries, and throws if what it waits for is closed. */
    void wakeWaiters() {
        FdPoller.wakeAllWaitingFor(fd);
    }

    /**
     * A close wakes the waiters after the flag is set, so none parks past it (each next attempt throws), and waits
     * for a read in flight: a read checks the flag under the same lock, so none reaches the channel after this.
     */
    @Override
    void beforeHandshake() {
        wakeWaiters();
        synchronized (errnoCapture) {
            // nothing: the read that held the lock has returned
        }
    }

    /** One non-blocking {@code ibv_get_cq_event}; null when no event is pending. Allocates nothing. */
    CompletionQueue tryGetEvent() {
        int rc;
        int errno = 0;
        long address = 0;
        // the descriptor is non-blocking, so a reader holds the buffer for one short call
        synchronized (errnoCapture) {
            ensureOpen(); // under the lock the close waits for: the channel is not destroyed during the call
            try {
                rc = (int) Native.GET_CQ_EVENT.invokeExact(errnoCapture, handle, cqOut, contextOut);
            } catch (Throwable t) {
                throw Unchecked.rethrow(t);
            }
            if (rc != 0) {
                errno = CallState.errnoIn(errnoCapture);
            } else {
                address = cqOut.get(JAVA_LONG, 0);
            }
        }
        if (rc != 0) {
            if (errno == Errno.EAGAIN) {
                return null;
            }
            throw new VerbsException("ibv_get_cq_event", errno, toString());
        }
        // no lock of the tree here: a close of this CQ holds it while ibv_destroy_cq waits for this very event
        for (CompletionQueue cq : queues) {
            if (cq.address() == address) {
                cq.eventReceived();
                return cq;
            }
        }
        throw new IllegalStateException("completion event for an unknown CQ at 0x" + Long.toHexString(address));
    }

    @Override
    public String toString() {
        return "CompletionChannel[" + context.name() + ", fd " + fd + "]";
    }
}
