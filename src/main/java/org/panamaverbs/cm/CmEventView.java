package org.panamaverbs.cm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;

import org.panamaverbs.ffi.ibv_ah_attr;
import org.panamaverbs.ffi.ibv_global_route;
import org.panamaverbs.ffi.rdmacm.rdma_cm_event;
import org.panamaverbs.ffi.rdmacm.rdma_cm_id;
import org.panamaverbs.ffi.rdmacm.rdma_conn_param;
import org.panamaverbs.ffi.rdmacm.rdma_ud_param;
import org.panamaverbs.verbs.AddressHandle;
import org.panamaverbs.verbs.Gid;

/**
 * One {@code struct rdma_cm_event} as {@link CmEventChannel#poll} hands it to its {@link CmEventHandler}: a
 * flyweight the channel reuses for every event, so that handling an event allocates nothing (except the new
 * {@link CmId} of a connection request, and a {@link UdPeer} for ESTABLISHED on a UD id).
 *
 * <p>The channel copies the event out of librdmacm's buffer and acknowledges it ({@code rdma_ack_cm_event})
 * before the handler runs, so the handler may close the event's id at once. The view is valid only while the
 * handler runs: afterwards every method throws {@link IllegalStateException}; keep {@link #toEvent()} (a copy)
 * to use an event later.
 */
public final class CmEventView {
    /** The largest private data any transport carries (iWARP's 255 bytes; the length field is a byte). */
    private static final int MAX_PRIVATE_DATA = 255;
    /** The process's memory, for reading librdmacm's event through the pointers it gave (no segment per read). */
    private static final MemorySegment MEMORY = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    private static final long PARAM = rdma_cm_event.param$offset();
    private static final long UD = PARAM + rdma_cm_event.param.ud$offset();
    private static final long CONN = PARAM + rdma_cm_event.param.conn$offset();

    private boolean valid;
    private CmEventType type;
    private int status;
    private CmId id;
    private CmId listenId;
    private final byte[] privateData = new byte[MAX_PRIVATE_DATA];
    private int privateDataLength;
    private boolean hasParameters;
    private int responderResources;
    private int initiatorDepth;
    private int retryCount;
    private int rnrRetryCount;
    private UdPeer udPeer;
    /** For a connection request: the new native id (made into {@link #id} after the acknowledgement), else 0. */
    private long requestAddress;
    private PortSpace requestSpace;

    CmEventView() {
    }

    /**
     * Copies the event at {@code event} (not yet acknowledged) into this view.
     *
     * @return false for an event of an id that is no longer open (closed from Java while its event was in flight)
     */
    boolean copy(long event, CmIdTable ids) {
        valid = false;
        udPeer = null;
        type = CmEventType.of(MEMORY.get(JAVA_INT, event + rdma_cm_event.event$offset()));
        status = MEMORY.get(JAVA_INT, event + rdma_cm_event.status$offset());
        long idAddress = MEMORY.get(JAVA_LONG, event + rdma_cm_event.id$offset());
        long listenAddress = MEMORY.get(JAVA_LONG, event + rdma_cm_event.listen_id$offset());
        id = find(ids, idAddress);
        listenId = null;
        requestAddress = 0;
        if (type == CmEventType.CONNECT_REQUEST && id == null) {
            listenId = find(ids, listenAddress);
            requestAddress = idAddress; // librdmacm's new id: the application learns of it only through this event
            requestSpace = listenId != null ? listenId.portSpace()
                    : MEMORY.get(JAVA_INT, idAddress + rdma_cm_id.ps$offset()) == PortSpace.UDP.code()
                    ? PortSpace.UDP : PortSpace.TCP;
        } else if (id == null) {
            return false;
        }
        PortSpace space = requestAddress != 0 ? requestSpace : id.portSpace();
        hasParameters = false;
        if (space == PortSpace.UDP) {
            copyPrivateData(UD + rdma_ud_param.private_data$offset(), UD + rdma_ud_param.private_data_len$offset(), event);
            if (type == CmEventType.ESTABLISHED) {
                udPeer = udPeer(MemorySegment.ofAddress(event + UD).reinterpret(rdma_ud_param.layout().byteSize()));
            }
        } else {
            copyPrivateData(CONN + rdma_conn_param.private_data$offset(), CONN + rdma_conn_param.private_data_len$offset(),
                    event);
            if (type == CmEventType.CONNECT_REQUEST || type == CmEventType.CONNECT_RESPONSE
                    || type == CmEventType.ESTABLISHED) {
                hasParameters = true;
                responderResources = unsignedByte(event + CONN + rdma_conn_param.responder_resources$offset());
                initiatorDepth = unsignedByte(event + CONN + rdma_conn_param.initiator_depth$offset());
                retryCount = Math.min(7, unsignedByte(event + CONN + rdma_conn_param.retry_count$offset()));
                rnrRetryCount = Math.min(7, unsignedByte(event + CONN + rdma_conn_param.rnr_retry_count$offset()));
            }
        }
        return true;
    }

    private static CmId find(CmIdTable ids, long address) {
        if (address == 0) {
            return null;
        }
        return ids.find(MEMORY.get(JAVA_LONG, address + rdma_cm_id.context$offset()), address);
    }

    private void copyPrivateData(long dataField, long lengthField, long event) {
        long data = MEMORY.get(JAVA_LONG, event + dataField);
        int length = data == 0 ? 0 : unsignedByte(event + lengthField);
        // byte by byte: MemorySegment.copy to an array makes a heap segment, which only C2 optimizes away
        for (int i = 0; i < length; i++) {
            privateData[i] = MEMORY.get(JAVA_BYTE, data + i);
        }
        privateDataLength = length;
    }

    private static int unsignedByte(long address) {
        return Byte.toUnsignedInt(MEMORY.get(JAVA_BYTE, address));
    }

    private static UdPeer udPeer(MemorySegment ud) {
        MemorySegment ah = rdma_ud_param.ah_attr(ud);
        MemorySegment grh = ibv_ah_attr.grh(ah);
        Gid gid = Gid.read(grh, ibv_global_route.dgid$offset());
        AddressHandle.Target target = new AddressHandle.Target(gid, Byte.toUnsignedInt(ibv_global_route.sgid_index(grh)),
                Byte.toUnsignedInt(ibv_ah_attr.port_num(ah)), Short.toUnsignedInt(ibv_ah_attr.dlid(ah)),
                Byte.toUnsignedInt(ibv_global_route.hop_limit(grh)), Byte.toUnsignedInt(ibv_ah_attr.sl(ah)),
                Byte.toUnsignedInt(ibv_global_route.traffic_class(grh)), ibv_global_route.flow_label(grh) & 0xFFFFF);
        return new UdPeer(target, rdma_ud_param.qp_num(ud), rdma_ud_param.qkey(ud));
    }

    /** For a connection request, the native id of the request (0 otherwise); read by the channel. */
    long requestAddress() {
        return requestAddress;
    }

    PortSpace requestSpace() {
        return requestSpace;
    }

    /** Makes the view readable with {@code requestId} as the id of a connection request, or as copied. */
    void open(CmId requestId) {
        if (requestId != null) {
            id = requestId;
        }
        valid = true;
    }

    /** After the handler: every read throws from here on. */
    void invalidate() {
        valid = false;
    }

    private void checkValid() {
        if (!valid) {
            throw new IllegalStateException("a CmEventView is valid only while the handler that CmEventChannel.poll"
                    + " called runs; keep toEvent() to use an event later");
        }
    }

    /**
     * {@return what happened}
     *
     * @throws IllegalStateException outside the handler
     */
    public CmEventType type() {
        checkValid();
        return type;
    }

    /**
     * {@return the event's status: 0, a negative errno (ADDR_ERROR, ROUTE_ERROR, UNREACHABLE, CONNECT_ERROR) or,
     * for REJECTED, the CM reject reason}
     *
     * @throws IllegalStateException outside the handler
     */
    public int status() {
        checkValid();
        return status;
    }

    /**
     * {@return the id the event is about; for CONNECT_REQUEST the request's new id, registered with the channel,
     * which the application accepts (or rejects) and closes}
     *
     * @throws IllegalStateException outside the handler
     */
    public CmId id() {
        checkValid();
        return id;
    }

    /**
     * {@return for CONNECT_REQUEST the listening id, else null}
     *
     * @throws IllegalStateException outside the handler
     */
    public CmId listenId() {
        checkValid();
        return listenId;
    }

    /**
     * {@return how many bytes of private data the peer's transport delivered (zero padding included)}
     *
     * @throws IllegalStateException outside the handler
     */
    public int privateDataLength() {
        checkValid();
        return privateDataLength;
    }

    /**
     * Copies the private data into {@code destination} from {@code offset}, at most as much as fits.
     *
     * @param destination the array to copy into
     * @param offset      where in {@code destination} the first byte goes
     * @return how many bytes were copied
     * @throws IllegalStateException     outside the handler
     * @throws IndexOutOfBoundsException if {@code offset} is outside {@code destination}
     */
    public int copyPrivateData(byte[] destination, int offset) {
        checkValid();
        java.util.Objects.checkIndex(offset, destination.length + 1);
        int length = Math.min(privateDataLength, destination.length - offset);
        System.arraycopy(privateData, 0, destination, offset, length);
        return length;
    }

    /**
     * {@return the connection parameters of CONNECT_REQUEST, CONNECT_RESPONSE or ESTABLISHED on an RC id (a new
     * object), else null}
     *
     * @throws IllegalStateException outside the handler
     */
    public ConnParam parameters() {
        checkValid();
        return hasParameters ? new ConnParam(privateDataCopy(), responderResources, initiatorDepth,
                retryCount, rnrRetryCount) : null;
    }

    /**
     * {@return for ESTABLISHED on a UD id, where the peer's datagrams go; else null}
     *
     * @throws IllegalStateException outside the handler
     */
    public UdPeer udPeer() {
        checkValid();
        return udPeer;
    }

    /**
     * {@return a copy of this event that stays valid, as {@link CmId#awaitEvent} returns it (allocates)}
     *
     * @throws IllegalStateException outside the handler
     */
    public CmEvent toEvent() {
        checkValid();
        return new CmEvent(type, status, id, listenId, privateDataCopy(), parameters(), udPeer);
    }

    private byte[] privateDataCopy() {
        return java.util.Arrays.copyOf(privateData, privateDataLength);
    }

    @Override
    public String toString() {
        return valid ? "CmEventView[" + type.cName() + ", status " + status + ", " + id + "]" : "CmEventView[not valid]";
    }
}
