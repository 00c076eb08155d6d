package org.panamaverbs.cm;

import java.util.Arrays;

/**
 * {@code struct rdma_cm_event}, copied out of librdmacm's buffer before the event was acknowledged
 * ({@code rdma_ack_cm_event}), so it stays valid forever.
 *
 * @param type        what happened
 * @param status      the event's status: 0, a negative errno (ADDR_ERROR, ROUTE_ERROR, UNREACHABLE,
 *                    CONNECT_ERROR) or, for REJECTED, the CM reject reason
 * @param id          the id the event is about (for CONNECT_REQUEST: the new id of the request)
 * @param listenId    for CONNECT_REQUEST, the listening id; else null
 * @param privateData what the peer sent (CONNECT_REQUEST, ESTABLISHED, REJECTED, CONNECT_RESPONSE); the
 *                    transport's whole field, so zero padding follows the peer's bytes
 * @param parameters  the connection parameters of a CONNECT_REQUEST / CONNECT_RESPONSE / ESTABLISHED on RC
 *                    ids, else null
 * @param udPeer      for ESTABLISHED on UD ids, where the peer's datagrams go; else null
 */
public record CmEvent(CmEventType type, int status, CmId id, CmId listenId, byte[] privateData,
        ConnParam parameters, UdPeer udPeer) {
    /**
     * Copies {@code privateData}, so that later changes to the caller's array do not show here; null
     * becomes an empty array. The other components are taken as given.
     */
    public CmEvent {
        privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    /**
     * {@return a copy of the private data the peer sent, empty if none} As delivered by the transport, the
     * peer's bytes may be followed by zero padding up to the size of the field
     * ({@link ConnParam} lists the sizes); a fresh array on every call.
     */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public String toString() {
        return "CmEvent[" + type.cName() + ", status " + status + ", " + id + ", " + privateData.length
                + " bytes of private data" + (udPeer == null ? "" : ", " + udPeer) + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CmEvent e && type == e.type && status == e.status && id == e.id && listenId == e.listenId
                && Arrays.equals(privateData, e.privateData);
    }

    @Override
    public int hashCode() {
        return type.hashCode() * 31 + status;
    }
}
