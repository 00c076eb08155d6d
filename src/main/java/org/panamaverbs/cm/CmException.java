package org.panamaverbs.cm;

import org.panamaverbs.verbs.VerbsException;

/**
 * An rdma_cm call or connection step failed: the message names the call, the event that ended it (for
 * example {@code RDMA_CM_EVENT_REJECTED}) with its status, and what to check. {@link #event()} is null
 * when the call itself failed or nothing arrived in time ({@link #timedOut()}).
 */
public class CmException extends VerbsException {
    private static final long serialVersionUID = 1L;

    private final transient CmEventType event;
    /** The event's {@code status}: a negative errno, for REJECTED the CM reject reason, 0 without an event. */
    private final int status;
    /** The private data that came with the failure (a rejection's, typically), never null: empty if none. */
    private final byte[] privateData;
    /** Whether the failure was a connection request its client withdrew before the accept. */
    private final boolean requestWithdrawn;

    /**
     * An exception for a failed rdma_cm call or connection step; the message is formatted from
     * {@code call}, {@code errno} and {@code detail} as for every {@link VerbsException}.
     *
     * @param call        the C call whose outcome failed, e.g. {@code "rdma_connect"}
     * @param errno       the errno (for events: the one that describes the outcome, e.g. ECONNREFUSED); its
     *                    absolute value is kept, as {@link #errno()} returns it
     * @param event       the event that reported the failure, or null
     * @param status      the event's {@code status} (for REJECTED the CM reject reason), 0 without event
     * @param privateData what the peer sent with a rejection (empty otherwise); copied, null is taken as empty
     * @param detail      what happened and what to do
     */
    public CmException(String call, int errno, CmEventType event, int status, byte[] privateData, String detail) {
        this(call, errno, event, status, privateData, detail, false);
    }

    CmException(String call, int errno, CmEventType event, int status, byte[] privateData, String detail,
            boolean requestWithdrawn) {
        super(call, errno, detail);
        this.event = event;
        this.status = status;
        this.privateData = privateData == null ? new byte[0] : privateData.clone();
        this.requestWithdrawn = requestWithdrawn;
    }

    /**
     * The exception the blocking calls throw for a failure event, for code that takes events itself (the handler of
     * a polled channel, {@link CmEventChannel#poll}): the same message, errno and fields.
     *
     * @param call  the C call whose outcome the event reports, e.g. {@code "rdma_connect"}
     * @param event a failure event: ADDR_ERROR, ROUTE_ERROR, UNREACHABLE, REJECTED, CONNECT_ERROR, DISCONNECTED or
     *              DEVICE_REMOVAL (any other type is described as unexpected, with errno EPROTO)
     * @param what  what was being done, for the message, e.g. {@code "connecting to /10.0.0.1:7471"}
     * @return the exception (not thrown): errno ECONNREFUSED for REJECTED, EHOSTUNREACH for the resolution and
     *         unreachable errors, ECONNRESET for DISCONNECTED and DEVICE_REMOVAL, else the event's errno
     */
    public static CmException of(String call, CmEvent event, String what) {
        return CmEventQueue.failure(call, event, what);
    }

    /**
     * The event that reported the failure, or null.
     *
     * @return the failure event's type; null when the call itself failed, nothing arrived in time, or the
     *         exception was deserialized (the field is not serialized)
     */
    public CmEventType event() {
        return event;
    }

    /**
     * The event's status: for {@link CmEventType#REJECTED} the CM reject reason (8: no listener, 28: the peer rejected).
     *
     * @return the {@code status} of the failure event: the reject reason for REJECTED, a negative errno for
     *         the error events (ADDR_ERROR, ROUTE_ERROR, UNREACHABLE, CONNECT_ERROR), 0 without an event
     */
    public int status() {
        return status;
    }

    /**
     * The private data the peer sent with a rejection (a copy; empty if none).
     *
     * @return a fresh copy of the private data that came with the failure, as the transport delivered it
     *         (the peer's bytes may be followed by zero padding): the reject data for REJECTED, else that of
     *         the event that ended the wait, or the malformed private data a {@link Connection} refused;
     *         empty if there was none
     */
    public byte[] privateData() {
        return privateData.clone();
    }

    /**
     * Whether a connection request's client withdrew it before the server accepted it: its connect gave up (its
     * bound passed) or it closed, and the server's {@code rdma_create_qp} or {@code rdma_accept} on the request's
     * id then failed with EINVAL (the kernel reports no event for a request not accepted yet).
     * {@link RdmaServer#accept} skips such requests; a server that accepts by hand goes on to the next one.
     *
     * @return true for a request withdrawn before its accept; the errno is EINVAL then
     */
    public boolean requestWithdrawn() {
        return requestWithdrawn;
    }

    /**
     * Whether the failure is that nothing arrived within the time allowed.
     *
     * @return true if no event arrived before the wait's timeout (the errno is ETIMEDOUT and there is no
     *         event); false for every failure an event reported
     */
    public boolean timedOut() {
        return event == null && errno() == ETIMEDOUT;
    }

    static final int ETIMEDOUT = 110;
    static final int ECONNREFUSED = 111;
    static final int EHOSTUNREACH = 113;
    static final int ECONNRESET = 104;
    static final int EPROTO = 71;
}
