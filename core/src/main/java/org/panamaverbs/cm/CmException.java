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
    private final int status;
    private final byte[] privateData;

    /**
     * @param call        the C call whose outcome failed, e.g. {@code "rdma_connect"}
     * @param errno       the errno (for events: the one that describes the outcome, e.g. ECONNREFUSED)
     * @param event       the event that reported the failure, or null
     * @param status      the event's {@code status} (for REJECTED the CM reject reason), 0 without event
     * @param privateData what the peer sent with a rejection (empty otherwise)
     * @param detail      what happened and what to do
     */
    public CmException(String call, int errno, CmEventType event, int status, byte[] privateData, String detail) {
        super(call, errno, detail);
        this.event = event;
        this.status = status;
        this.privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    /** The event that reported the failure, or null. */
    public CmEventType event() {
        return event;
    }

    /** The event's status: for {@link CmEventType#REJECTED} the CM reject reason (8: no listener, 28: the peer rejected). */
    public int status() {
        return status;
    }

    /** The private data the peer sent with a rejection (a copy; empty if none). */
    public byte[] privateData() {
        return privateData.clone();
    }

    /** Whether the failure is that nothing arrived within the time allowed. */
    public boolean timedOut() {
        return event == null && errno() == ETIMEDOUT;
    }

    static final int ETIMEDOUT = 110;
    static final int ECONNREFUSED = 111;
    static final int EHOSTUNREACH = 113;
    static final int ECONNRESET = 104;
    static final int EPROTO = 71;
}
