package org.panamaverbs.cm;

/** {@code enum rdma_cm_event_type}: what an rdma_cm event reports ({@code rdma_event_str} gives the C name). */
public enum CmEventType {
    /**
     * {@code RDMA_CM_EVENT_ADDR_RESOLVED} (0): {@code rdma_resolve_addr} completed; the id is now bound to
     * the local device and port that reach the destination. Next step: route resolution.
     */
    ADDR_RESOLVED(0),
    /**
     * {@code RDMA_CM_EVENT_ADDR_ERROR} (1): address resolution failed, typically because no RDMA device
     * has a route to the destination; the status is a negative errno.
     */
    ADDR_ERROR(1),
    /**
     * {@code RDMA_CM_EVENT_ROUTE_RESOLVED} (2): {@code rdma_resolve_route} completed; the id can now
     * connect.
     */
    ROUTE_RESOLVED(2),
    /**
     * {@code RDMA_CM_EVENT_ROUTE_ERROR} (3): route resolution failed (for example no path record on
     * InfiniBand); the status is a negative errno.
     */
    ROUTE_ERROR(3),
    /**
     * {@code RDMA_CM_EVENT_CONNECT_REQUEST} (4): a peer asked to connect to a listening id. The event
     * carries a new id for the request ({@link CmEvent#id()}) and the listening id
     * ({@link CmEvent#listenId()}), and is delivered to the listening id.
     */
    CONNECT_REQUEST(4),
    /**
     * {@code RDMA_CM_EVENT_CONNECT_RESPONSE} (5): the passive side replied to a connection request made
     * on an id that has no queue pair from {@code rdma_create_qp}. When the id has one, librdmacm finishes
     * the handshake itself and reports {@link #ESTABLISHED} instead, which is what {@link CmId#connect}
     * (which requires a queue pair) waits for.
     */
    CONNECT_RESPONSE(5),
    /**
     * {@code RDMA_CM_EVENT_CONNECT_ERROR} (6): setting up the connection failed after the request was
     * sent or accepted (for example the queue pair could not be moved to RTR/RTS); the status is a negative
     * errno.
     */
    CONNECT_ERROR(6),
    /**
     * {@code RDMA_CM_EVENT_UNREACHABLE} (7): the remote connection manager did not answer (the host is
     * down, or its port is not active); the status is a negative errno.
     */
    UNREACHABLE(7),
    /**
     * {@code RDMA_CM_EVENT_REJECTED} (8): the connection was refused; the status is the CM reject reason
     * (8 on InfiniBand/RoCE when nothing listens on the port, 28 when the peer's application called
     * {@code rdma_reject}), and the peer's reject private data comes with the event.
     */
    REJECTED(8),
    /**
     * {@code RDMA_CM_EVENT_ESTABLISHED} (9): the connection is up. On RC ids the queue pair is in RTS
     * and may post sends; on UD ids the event names the peer's queue pair ({@link CmEvent#udPeer()}).
     */
    ESTABLISHED(9),
    /**
     * {@code RDMA_CM_EVENT_DISCONNECTED} (10): the connection is gone, after either side's
     * {@code rdma_disconnect} or when the connection manager found the peer gone. {@link CmId} marks the id
     * disconnected ({@link CmId#isDisconnected()}).
     */
    DISCONNECTED(10),
    /**
     * {@code RDMA_CM_EVENT_DEVICE_REMOVAL} (11): the RDMA device the id uses is being removed; the id
     * and everything created on the device should be closed.
     */
    DEVICE_REMOVAL(11),
    /**
     * {@code RDMA_CM_EVENT_MULTICAST_JOIN} (12): a multicast join ({@code rdma_join_multicast})
     * completed. This library does not join multicast groups, so its ids do not expect it.
     */
    MULTICAST_JOIN(12),
    /**
     * {@code RDMA_CM_EVENT_MULTICAST_ERROR} (13): a multicast join failed or a joined group became
     * unusable. Not expected on this library's ids (see {@link #MULTICAST_JOIN}).
     */
    MULTICAST_ERROR(13),
    /**
     * {@code RDMA_CM_EVENT_ADDR_CHANGE} (14): the network interface behind the id's address changed (for
     * example a bonding failover to another port); the application decides whether to reconnect.
     */
    ADDR_CHANGE(14),
    /**
     * {@code RDMA_CM_EVENT_TIMEWAIT_EXIT} (15): the queue pair of a disconnected connection has left the
     * timewait state, during which stray packets of the old connection could still arrive.
     */
    TIMEWAIT_EXIT(15),
    /**
     * A value this library does not know (one added by a newer librdmacm); its code is -1,
     * which no C constant has. Logged as a warning by the channel and delivered like any other event.
     */
    UNKNOWN(-1);

    private static final CmEventType[] BY_CODE = values();

    private final int code;

    CmEventType(int code) {
        this.code = code;
    }

    /**
     * The C value.
     *
     * @return the {@code enum rdma_cm_event_type} value, 0 to 15; -1 for {@link #UNKNOWN}
     */
    public int code() {
        return code;
    }

    /**
     * The constant for a C value, or {@link #UNKNOWN}.
     *
     * @param code an {@code enum rdma_cm_event_type} value, as in {@code rdma_cm_event.event}
     * @return the matching constant; {@link #UNKNOWN} for a value outside 0 to 15, never null
     */
    public static CmEventType of(int code) {
        return code >= 0 && code < BY_CODE.length - 1 ? BY_CODE[code] : UNKNOWN;
    }

    /**
     * The C name, e.g. {@code RDMA_CM_EVENT_REJECTED}.
     *
     * @return {@code "RDMA_CM_EVENT_"} followed by the constant's name ({@code RDMA_CM_EVENT_UNKNOWN} for
     *         {@link #UNKNOWN}, which has no C counterpart)
     */
    public String cName() {
        return "RDMA_CM_EVENT_" + name();
    }
}
