package com.ibm.disni.verbs;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.RdmaCmEvent}: one rdma_cm event
 * ({@code struct rdma_cm_event}) as {@code RdmaEventChannel.getCmEvent} returns it. Panama Verbs copies
 * every event out and acknowledges it ({@code rdma_ack_cm_event}) as soon as it is read, so
 * {@link #ackEvent()} has nothing left to do (as in DiSNI 2.1, where it was a no-op too).
 *
 * <p>Unlike DiSNI 2.1, {@link #getStatus()} is the event's status (a CM reject reason for
 * {@code REJECTED}, a negative errno for errors) and {@link #getConn()} carries the peer's private data: its
 * {@code getPrivate_data()} is the address of a native copy that stays valid while this event is reachable.
 */
public class RdmaCmEvent {

    /**
     * Stands in for DiSNI 2.1's {@code RdmaCmEvent.EventType}: C's {@code enum rdma_cm_event_type} in C order,
     * so {@code ordinal()} is the C value that {@link RdmaCmEvent#getEvent()} returns.
     */
    public enum EventType {
        /** 0. */
        RDMA_CM_EVENT_ADDR_RESOLVED,
        /** 1. */
        RDMA_CM_EVENT_ADDR_ERROR,
        /** 2. */
        RDMA_CM_EVENT_ROUTE_RESOLVED,
        /** 3. */
        RDMA_CM_EVENT_ROUTE_ERROR,
        /** 4. */
        RDMA_CM_EVENT_CONNECT_REQUEST,
        /** 5. */
        RDMA_CM_EVENT_CONNECT_RESPONSE,
        /** 6. */
        RDMA_CM_EVENT_CONNECT_ERROR,
        /** 7. */
        RDMA_CM_EVENT_UNREACHABLE,
        /** 8. */
        RDMA_CM_EVENT_REJECTED,
        /** 9. */
        RDMA_CM_EVENT_ESTABLISHED,
        /** 10. */
        RDMA_CM_EVENT_DISCONNECTED,
        /** 11. */
        RDMA_CM_EVENT_DEVICE_REMOVAL,
        /** 12. */
        RDMA_CM_EVENT_MULTICAST_JOIN,
        /** 13. */
        RDMA_CM_EVENT_MULTICAST_ERROR,
        /** 14. */
        RDMA_CM_EVENT_ADDR_CHANGE,
        /** 15. */
        RDMA_CM_EVENT_TIMEWAIT_EXIT
    }

    private RdmaCm cm;
    /** The event type ({@code rdma_cm_event.event}): an {@link EventType} ordinal, which is C's value. */
    protected int event;
    /**
     * The event's status ({@code rdma_cm_event.status}): 0 on success, a CM reject reason for {@code REJECTED}, a
     * negative errno for failures ({@code -110}, {@code ETIMEDOUT}, when this module's bounded wait for the outcome
     * ran out; -1 when the failure carried no errno). -1 for an event made with the public constructor.
     */
    protected int status;
    /** For {@code CONNECT_REQUEST}, the listening id the request arrived on; null for every other event. */
    protected RdmaCmId listenIdPriv;
    /**
     * The id the event concerns; for {@code CONNECT_REQUEST}, the new id of the incoming connection, to accept or
     * destroy.
     */
    protected RdmaCmId connIdPriv;
    /**
     * The event's connection parameters, never null: only the peer's private data is filled in (the address of a
     * native copy that lives as long as this event, and its length); every other field is 0.
     */
    protected RdmaConnParam conn;

    /** Keeps the native copy of the private data alive as long as this event. */
    MemorySegment privateData;

    /**
     * An event of type {@code event} for {@code connIdPriv} (on a connection request, the new id) and, for a
     * connection request, the listening {@code listenIdPriv}; status -1 and no private data, as DiSNI made them.
     *
     * @param event the type, an {@link EventType} ordinal
     * @param listenIdPriv the listening id, or null
     * @param connIdPriv the id the event concerns
     * @throws IOException never
     */
    public RdmaCmEvent(int event, RdmaCmId listenIdPriv, RdmaCmId connIdPriv) throws IOException {
        this.cm = RdmaCm.open();
        this.event = event;
        this.status = -1;
        this.listenIdPriv = listenIdPriv;
        this.connIdPriv = connIdPriv;
        this.conn = new RdmaConnParam();
    }

    /**
     * Returns the type.
     *
     * @return an {@link EventType} ordinal
     */
    public int getEvent() {
        return event;
    }

    /**
     * Returns the event's status ({@code rdma_cm_event.status}).
     *
     * @return 0 on success, a CM reject reason for {@code REJECTED}, a negative errno for errors
     */
    public int getStatus() {
        return status;
    }

    /**
     * Returns the listening id of a connection request.
     *
     * @return the id, or null for other events
     */
    public RdmaCmId getListenIdPriv() {
        return listenIdPriv;
    }

    /**
     * Returns the id the event concerns (for a connection request, the new id to accept).
     *
     * @return the id
     */
    public RdmaCmId getConnIdPriv() {
        return connIdPriv;
    }

    /**
     * Returns the connection parameters the event carried, with the peer's private data.
     *
     * @return the parameters (private data address 0 and length 0 when there was none)
     */
    public RdmaConnParam getConn() {
        return conn;
    }

    /**
     * Acknowledges the event: nothing to do, Panama Verbs acknowledged it when it read it.
     *
     * @throws IOException never
     */
    public void ackEvent() throws IOException {
        cm.ackCmEvent(this);
    }
}
