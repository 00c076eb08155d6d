package org.panamaverbs.verbs;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.time.Duration;
import java.util.function.Supplier;

import org.panamaverbs.ffi.ibv_cq;
import org.panamaverbs.ffi.ibverbs_h;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.ControlEvents;
import org.panamaverbs.internal.DataPath;
import org.panamaverbs.internal.NativeFunction;
import org.panamaverbs.internal.NativeLayouts;
import org.panamaverbs.internal.Unchecked;

/**
 * {@code struct ibv_cq} from {@code ibv_create_cq}, destroyed with {@code ibv_destroy_cq}. Queue pairs
 * that use it are closed before it.
 *
 * <p>{@link #poll(CompletionArray)} is {@code ibv_poll_cq}, which verbs.h defines inline; it calls the
 * provider's {@code ops.poll_cq} directly, allocates nothing, takes no lock and returns the provider's
 * code instead of throwing. It may be called from any one thread at a time per completion queue.
 *
 * <p>Errors: {@link VerbsException} naming {@code ibv_create_cq} or {@code ibv_destroy_cq}.
 */
public final class CompletionQueue extends VerbsResource {
    /** Events are acknowledged ({@code ibv_ack_cq_events}) in batches of this many, and before destroy. */
    public static final int ACK_BATCH = 64;

    private final Context context;
    private final CompletionChannel channel;
    /** The channel's event reader, refusing once this queue is closed; null without a channel. */
    private final Supplier<CompletionQueue> ownEventReader;
    private final MemorySegment handle;
    /** The handle's address, for polls ({@link InFlight} keeps it alive during them). */
    private final long address;
    /** Held by {@link #requestNotification} and by the destroy: an arm never meets a freed queue. */
    private final Object notifyLock = new Object();
    private final MemorySegment pollFunction;
    private final MemorySegment notifyFunction;
    private final int capacity;
    /** Events received and not yet acknowledged; a holder the backstop can read without this object. */
    private final EventCount events;

    /**
     * The completion events of one CQ a channel reader received, and their acknowledgement, under this object's
     * own monitor, never the tree lock: {@code ibv_destroy_cq} (run under the tree lock) waits until every event
     * the kernel delivered is acknowledged, so a reader that got an event while the CQ is being destroyed must be
     * able to acknowledge it without that lock.
     */
    private static final class EventCount {
        private final MemorySegment cq;
        /** Guarded by this. */
        private int unacknowledged;
        /** The destroy has begun: events are acknowledged as they arrive (the destroy waits for them). Guarded by this. */
        private boolean destroying;

        EventCount(MemorySegment cq) {
            this.cq = cq;
        }

        /** A reader got an event of this CQ from the channel. */
        synchronized void received() {
            if (destroying) {
                ibverbs_h.ibv_ack_cq_events(cq, 1); // ibv_destroy_cq is waiting for exactly this
                return;
            }
            if (++unacknowledged >= ACK_BATCH) {
                acknowledge();
            }
        }

        /** {@code ibv_ack_cq_events} for what was received, unless the destroy began (it acknowledged those). */
        synchronized void acknowledge() {
            if (unacknowledged > 0 && !destroying) {
                ibverbs_h.ibv_ack_cq_events(cq, unacknowledged);
                unacknowledged = 0;
            }
        }

        /** Acknowledges what was received and makes later events acknowledged on arrival; before the destroy. */
        synchronized void destroying() {
            acknowledge();
            destroying = true;
        }

        synchronized int unacknowledged() {
            return unacknowledged;
        }
    }

    private static final class Native {
        static final MethodHandle CREATE_CQ = CallState.capturingErrno(NativeFunction.IBV_CREATE_CQ);
    }

    private CompletionQueue(Context context, CompletionChannel channel, MemorySegment handle) {
        super(context.treeLock(), channel == null ? new VerbsResource[] {context} : new VerbsResource[] {context, channel});
        this.context = context;
        this.channel = channel;
        this.ownEventReader = channel == null ? null : () -> {
            ensureOpen();
            return channel.tryGetEvent();
        };
        this.handle = handle;
        this.address = handle.address();
        this.pollFunction = context.pollCqFunction;
        this.notifyFunction = context.reqNotifyCqFunction;
        this.capacity = ibv_cq.cqe(handle);
        this.events = new EventCount(handle);
        if (channel != null) {
            channel.attach(this); // after every field the reader uses is set
        }
        EventCount pending = events;
        Object arming = notifyLock;
        String what = toString();
        own(what, () -> {
            pending.destroying(); // ibv_destroy_cq waits for every ack: a reader acknowledges what it gets from now on
            synchronized (arming) {
                check("ibv_destroy_cq", ibverbs_h.ibv_destroy_cq(handle), what + " (a queue pair created outside this"
                        + " library may still use it)");
            }
        });
    }

    static CompletionQueue create(Context context, int minEntries, CompletionChannel channel, int completionVector) {
        MemorySegment channelHandle = channel == null ? MemorySegment.NULL : channel.handleForCq();
        Object event = ControlEvents.begin(ControlEvents.Kind.COMPLETION_QUEUE_CREATE);
        try (CallState state = CallState.open()) {
            MemorySegment cq = (MemorySegment) Native.CREATE_CQ.invokeExact(state.segment(), context.handle(),
                    minEntries, MemorySegment.NULL, channelHandle, completionVector);
            if (cq.equals(MemorySegment.NULL)) {
                throw new VerbsException("ibv_create_cq", state.errno(), minEntries + " entries on " + context.name()
                        + " (max_cqe " + context.attributes().maxCqe() + ", max_cq " + context.attributes().maxCq() + ")");
            }
            CompletionQueue created = new CompletionQueue(context, channel, cq.reinterpret(NativeLayouts.selected().ibvCq().byteSize()));
            ControlEvents.completionQueueCreated(event, context.name(), created.toString(), minEntries, created.capacity,
                    channel != null);
            return created;
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /** {@return the context this queue belongs to} */
    public Context context() {
        return context;
    }

    /**
     * The number of entries the device actually gave ({@code cq->cqe}; at least what was asked).
     *
     * @return the capacity in completions; more outstanding completions than this overrun the queue
     *         ({@link AsyncEventType#CQ_ERR})
     */
    public int capacity() {
        return capacity;
    }

    /**
     * The native {@code struct ibv_cq *}, for C code: pass it to a C function through a downcall (which keeps
     * this queue from being freed until the call returns) or read its fields. The view is read-only: a write
     * through it throws {@link IllegalArgumentException} ("Attempt to write a read-only segment"), because the
     * provider owns every field (a changed pointer or count would crash its next call, {@code ibv_destroy_*}
     * included). Freeing it is {@link #close()}'s job; after the close every access through the view throws
     * {@link IllegalStateException}.
     *
     * @return the handle as a read-only segment of {@code sizeof(struct ibv_cq)} bytes, valid while this queue is open
     * @throws IllegalStateException if this queue is closed
     */
    public MemorySegment handle() {
        ensureOpen();
        return scoped(handle);
    }

    /** The raw handle, for calls under the tree lock (creating a queue pair), which a close takes to free it. */
    MemorySegment handleUnchecked() {
        return handle;
    }

    /**
     * {@code ibv_poll_cq(cq, completions.capacity(), wc)}: moves up to {@code completions.capacity()}
     * completions into {@code completions}, oldest first.
     *
     * @param completions where to put them, overwriting what a previous poll left there; used by one thread
     * @return the number polled (also in {@link CompletionArray#count()}), 0 if none, or a negative
     *         value if the provider failed
     * @throws IllegalStateException if this queue or {@code completions} is closed
     */
    public int poll(CompletionArray completions) {
        return completions.pollFrom(this, pollFunction, address, completions.capacity());
    }

    /**
     * {@code ibv_poll_cq(cq, max, wc)}: as {@link #poll(CompletionArray)}, at most {@code max}.
     *
     * @param completions where to put them, from slot 0, overwriting what a previous poll left there
     * @param max         the most completions to take, 0 to {@code completions.capacity()}
     * @return the number polled (also in {@link CompletionArray#count()}), 0 if none, or a negative value
     *         if the provider failed
     * @throws IllegalStateException     if this queue or {@code completions} is closed
     * @throws IndexOutOfBoundsException if {@code max} is negative or above the array's capacity
     */
    public int poll(CompletionArray completions, int max) {
        if (max < 0 || max > completions.capacity()) {
            throw new IndexOutOfBoundsException("cannot poll " + max + " into " + completions.capacity() + " slots");
        }
        return completions.pollFrom(this, pollFunction, address, max);
    }

    long address() {
        return handle.address();
    }

    /** {@return the completion channel this queue signals on, or null if it was created without one} */
    public CompletionChannel channel() {
        return channel;
    }

    /**
     * {@code ibv_req_notify_cq(cq, solicited_only)} (inline in verbs.h: {@code ops.req_notify_cq}): arms
     * the queue to signal its channel once, on the next completion (or the next solicited one).
     *
     * @param solicitedOnly true to signal only for a receive whose sender set the solicited-event flag, or a
     *                      completion in error; false to signal for any next completion
     * @return 0, or the provider's errno value
     * @throws IllegalStateException if the queue is closed or has no channel
     */
    public int requestNotification(boolean solicitedOnly) {
        if (channel == null) {
            throw new IllegalStateException(this + " was created without a completion channel; notifications need one"
                    + " (Context.createCompletionQueue(size, channel))");
        }
        synchronized (notifyLock) { // an uncontended lock: one arm per wake-up, and no handshake for the close
            ensureOpen();
            return DataPath.requestNotify(notifyFunction, handle, solicitedOnly ? 1 : 0);
        }
    }

    /** Counts an event a channel reader got for this queue; takes no lock of the tree (see {@link EventCount}). */
    void eventReceived() {
        events.received();
    }

    /**
     * {@code ibv_ack_cq_events} for every event received and not yet acknowledged. Does nothing once the queue is
     * being destroyed (the destroy acknowledges them).
     */
    public void acknowledgeEvents() {
        events.acknowledge();
    }

    /**
     * Events received from the channel and not yet acknowledged.
     *
     * @return the count, below {@link #ACK_BATCH} (reaching it acknowledges them all); 0 once the queue is destroyed
     */
    public int unacknowledgedEvents() {
        return events.unacknowledged();
    }

    /**
     * The idiomatic event-driven poll that misses nothing: poll; if empty, arm the queue, poll again (a
     * completion may have arrived before the arm), and only then wait for the channel's event and poll.
     * Needs a channel used by this queue alone.
     *
     * @param completions where to put the completions, as {@link #poll(CompletionArray)} does
     * @param timeout     how long to wait in total; zero or negative never waits (the queue is still polled
     *                    and armed); not null
     * @return the number of completions in {@code completions}, or 0 if none arrived within {@code timeout}
     * @throws IllegalStateException if the queue has no channel of its own, or is closed, including by another
     *                               thread while this one waits (the close wakes it)
     * @throws VerbsException        if arming or polling fails
     */
    public int awaitCompletions(CompletionArray completions, Duration timeout) {
        if (channel == null || channel.attachedCount() != 1) {
            throw new IllegalStateException("awaitCompletions needs a completion channel used by " + this
                    + " alone; with a shared channel, use CompletionChannel.awaitEvent and poll the queue it returns");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            int n = pollOrThrow(completions);
            if (n > 0) {
                return n;
            }
            int rc = requestNotification(false);
            if (rc != 0) {
                throw new VerbsException("ibv_req_notify_cq", rc, toString());
            }
            n = pollOrThrow(completions);
            if (n > 0) {
                return n;
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0 || channel.awaitEvent(remaining, ownEventReader) == null) {
                return pollOrThrow(completions);
            }
        }
    }

    private int pollOrThrow(CompletionArray completions) {
        int n = poll(completions);
        if (n < 0) {
            throw new VerbsException("ibv_poll_cq", -n, toString());
        }
        return n;
    }

    /** A thread in {@link #awaitCompletions} waits on the channel: the close wakes it, and its next attempt throws. */
    @Override
    void beforeHandshake() {
        if (channel != null) {
            channel.wakeWaiters();
        }
    }

    @Override
    void afterClose() {
        if (channel != null) {
            channel.detach(this);
        }
    }

    @Override
    public String toString() {
        return "CompletionQueue[" + context.name() + ", " + capacity + " entries]";
    }
}
