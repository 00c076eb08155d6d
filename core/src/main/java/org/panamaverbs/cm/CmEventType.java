package org.panamaverbs.cm;

/** {@code enum rdma_cm_event_type}: what an rdma_cm event reports ({@code rdma_event_str} gives the C name). */
public enum CmEventType {
    ADDR_RESOLVED(0),
    ADDR_ERROR(1),
    ROUTE_RESOLVED(2),
    ROUTE_ERROR(3),
    CONNECT_REQUEST(4),
    CONNECT_RESPONSE(5),
    CONNECT_ERROR(6),
    UNREACHABLE(7),
    REJECTED(8),
    ESTABLISHED(9),
    DISCONNECTED(10),
    DEVICE_REMOVAL(11),
    MULTICAST_JOIN(12),
    MULTICAST_ERROR(13),
    ADDR_CHANGE(14),
    TIMEWAIT_EXIT(15),
    /** A value this library does not know (a newer librdmacm). */
    UNKNOWN(-1);

    private static final CmEventType[] BY_CODE = values();

    private final int code;

    CmEventType(int code) {
        this.code = code;
    }

    /** The C value. */
    public int code() {
        return code;
    }

    /** The constant for a C value, or {@link #UNKNOWN}. */
    public static CmEventType of(int code) {
        return code >= 0 && code < BY_CODE.length - 1 ? BY_CODE[code] : UNKNOWN;
    }

    /** The C name, e.g. {@code RDMA_CM_EVENT_REJECTED}. */
    public String cName() {
        return "RDMA_CM_EVENT_" + name();
    }
}
