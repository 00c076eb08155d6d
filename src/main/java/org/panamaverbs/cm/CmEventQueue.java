package org.panamaverbs.cm;

import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The events of one {@link CmId}, queued by the channel's reader, and the bounded waits on them.
 *
 * <p>A call that hands librdmacm a timeout ({@code rdma_resolve_addr}, {@code rdma_resolve_route}) leaves
 * the kernel that long to do its work; the kernel then always reports an event, success or failure. The
 * Java wait for that event is longer by {@link CmId#EVENT_DELIVERY_MARGIN}, because the event still has to
 * reach a Java thread (in a cold or emulated JVM that alone took seconds). If the wait passes anyway it is
 * reported as what it is, a timeout of the wait ({@link CmException#timedOut()}, no event), never as an
 * event the kernel did not send.
 */
final class CmEventQueue {
    /** Queued by {@link #close()} to wake every waiter; never returned. */
    private static final CmEvent CLOSED_WAKE_UP = new CmEvent(CmEventType.UNKNOWN, 0, null, null, null, null, null);

    private final LinkedBlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();

    void deliver(CmEvent event) {
        events.add(event);
    }

    /** Takes every queued event off the queue (for a listener's close, which refuses the requests among them). */
    java.util.List<CmEvent> drain() {
        java.util.List<CmEvent> drained = new java.util.ArrayList<>();
        events.drainTo(drained);
        return drained;
    }

    /** Wakes every thread waiting now or later: each gets {@link IllegalStateException}. */
    void close() {
        events.add(CLOSED_WAKE_UP);
    }

    /**
     * The next event, or null after {@code timeout}.
     *
     * @param owner named in the exceptions
     * @throws IllegalStateException when {@link #close()} ran, or the thread was interrupted (status kept)
     */
    CmEvent await(Duration timeout, Object owner) {
        try {
            CmEvent event = events.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
            if (event == CLOSED_WAKE_UP) {
                events.add(CLOSED_WAKE_UP); // for the next waiter
                throw new IllegalStateException(owner + " was closed while waiting for an rdma_cm event");
            }
            return event;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for an rdma_cm event on " + owner, e);
        }
    }

    /**
     * Waits for the outcome of a call whose only bound is Java's ({@code rdma_connect}, {@code rdma_accept}):
     * {@code wanted}, or a {@link CmException} naming the failure event or the wait that timed out.
     */
    CmEvent expect(CmEventType wanted, String call, Duration timeout, String what, Object owner) {
        long started = System.nanoTime();
        CmEvent event = await(timeout, owner);
        if (event == null) {
            throw waitTimedOut(call, wanted, started, "its bound was " + timeout.toMillis() + " ms", what
                    + " (is the peer alive and reachable?)");
        }
        return outcome(wanted, call, event, what);
    }

    /**
     * Waits for the outcome of a call given {@code nativeTimeout} (the kernel's bound on its own work): at most
     * {@code nativeTimeout + margin}, so an event the kernel sent in time is taken however late it reaches Java.
     */
    CmEvent expectAfterNativeTimeout(CmEventType wanted, String call, Duration nativeTimeout, Duration margin,
            String what, Object owner) {
        long started = System.nanoTime();
        CmEvent event = await(nativeTimeout.plus(margin), owner);
        if (event == null) {
            throw waitTimedOut(call, wanted, started, call + " was given " + nativeTimeout.toMillis()
                    + " ms and the wait " + margin.toMillis() + " ms more for the event's delivery", what
                    + ": the kernel reported neither success nor an error event in that time");
        }
        return outcome(wanted, call, event, what);
    }

    private static CmException waitTimedOut(String call, CmEventType wanted, long started, String bound, String what) {
        long waitedMs = (System.nanoTime() - started) / 1_000_000;
        return new CmException(call, CmException.ETIMEDOUT, null, 0, null, "timed out waiting for "
                + wanted.cName() + " " + what + ": waited " + waitedMs + " ms (" + bound + ")");
    }

    private static CmEvent outcome(CmEventType wanted, String call, CmEvent event, String what) {
        if (event.type() == wanted) {
            return event;
        }
        throw failure(call, event, what);
    }

    /** A failure event as an exception whose message says what to check. */
    static CmException failure(String call, CmEvent event, String what) {
        int status = event.status();
        String cause = switch (event.type()) {
            case ADDR_ERROR -> "address resolution failed " + what + ": no RDMA device has a route to it (status "
                    + status + "; check the address and that the interface holding the route is an RDMA device's:"
                    + " rdma link show)";
            case ROUTE_ERROR -> "route resolution failed " + what + " (status " + status + ")";
            case UNREACHABLE -> "the peer is unreachable " + what + " (status " + status + "; it did not answer the"
                    + " connection manager: is the host up and its RDMA port active?)";
            case REJECTED -> status == REJECT_INVALID_SERVICE_ID
                    ? "nothing is listening on that address and port " + what + " (reject reason 8, invalid service id)"
                    : status == REJECT_CONSUMER ? "the peer rejected the connection " + what + " (with "
                    + trimmed(event.privateData()).length + " bytes of private data)"
                    : "the connection was rejected " + what + " (CM reject reason " + status + ")";
            case CONNECT_ERROR -> "the connection could not be set up " + what + " (status " + status + ")";
            case DISCONNECTED -> "the peer disconnected " + what;
            case DEVICE_REMOVAL -> "the RDMA device was removed " + what;
            default -> "unexpected " + event.type().cName() + " " + what + " (status " + status + ")";
        };
        int errno = switch (event.type()) {
            case REJECTED -> CmException.ECONNREFUSED;
            case ADDR_ERROR, ROUTE_ERROR, UNREACHABLE -> CmException.EHOSTUNREACH;
            case DISCONNECTED, DEVICE_REMOVAL -> CmException.ECONNRESET;
            default -> status < 0 ? -status : CmException.EPROTO;
        };
        return new CmException(call, errno, event.type(), status, event.privateData(), event.type().cName() + ": " + cause);
    }

    /** CM reject reason 8: no listener for the service id (port). */
    static final int REJECT_INVALID_SERVICE_ID = 8;
    /** CM reject reason 28: the consumer (the peer's application) rejected. */
    static final int REJECT_CONSUMER = 28;

    private static byte[] trimmed(byte[] data) {
        int end = data.length;
        while (end > 0 && data[end - 1] == 0) {
            end--;
        }
        return java.util.Arrays.copyOf(data, end);
    }
}
