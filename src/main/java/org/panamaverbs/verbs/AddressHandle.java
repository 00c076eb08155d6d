package org.panamaverbs.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import org.panamaverbs.ffi.ibv_ah_attr;
import org.panamaverbs.ffi.ibv_global_route;
import org.panamaverbs.ffi.ibverbs_h;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.ControlEvents;
import org.panamaverbs.internal.NativeFunction;
import org.panamaverbs.internal.Unchecked;

/**
 * {@code struct ibv_ah} from {@code ibv_create_ah}, destroyed with {@code ibv_destroy_ah}: the route to a
 * peer for unreliable-datagram sends ({@link SendWorkRequest#ud}). On RoCE the global route header
 * (destination GID, source GID index, hop limit, traffic class, flow label) is required, and this library always
 * sets it there.
 * Posting a request whose address handle is closed is refused before it reaches the provider.
 *
 * <p>Errors: {@link VerbsException} naming {@code ibv_create_ah} (EINVAL for an unusable GID or port,
 * for example a destination the port cannot reach).
 */
public final class AddressHandle extends VerbsResource {
    private final ProtectionDomain pd;
    private final MemorySegment handle;
    private final Target target;

    private static final class Native {
        static final MethodHandle CREATE_AH = CallState.capturingErrno(NativeFunction.IBV_CREATE_AH);
    }

    /**
     * Where datagrams go.
     *
     * @param gid          the destination GID (on RoCE: an IPv6 or IPv4-mapped address of the peer)
     * @param sourceGidIndex the local GID index to send from
     * @param port         the local port
     * @param lid          the destination LID (InfiniBand only; 0 on RoCE)
     * @param hopLimit     GRH hop limit
     * @param serviceLevel service level
     * @param trafficClass GRH traffic class, 0..255 (on RoCE v2 the IP header's DSCP and ECN bits)
     * @param flowLabel    GRH flow label, 0..0xFFFFF (0: none)
     */
    public record Target(Gid gid, int sourceGidIndex, int port, int lid, int hopLimit, int serviceLevel,
            int trafficClass, int flowLabel) {
        /**
         * Checks the GRH fields' ranges, which C would truncate silently.
         *
         * @throws IllegalArgumentException for a traffic class outside 0..255 or a flow label outside 0..0xFFFFF
         */
        public Target {
            if (trafficClass < 0 || trafficClass > 255) {
                throw new IllegalArgumentException("trafficClass must be in 0..255, not " + trafficClass);
            }
            if (flowLabel < 0 || flowLabel > 0xFFFFF) {
                throw new IllegalArgumentException("flowLabel must be in 0..0xFFFFF, not " + flowLabel);
            }
        }

        /**
         * A target with traffic class 0 and no flow label.
         *
         * @param gid            the destination GID
         * @param sourceGidIndex the local GID index to send from
         * @param port           the local port
         * @param lid            the destination LID (InfiniBand only; 0 on RoCE)
         * @param hopLimit       GRH hop limit
         * @param serviceLevel   service level
         */
        public Target(Gid gid, int sourceGidIndex, int port, int lid, int hopLimit, int serviceLevel) {
            this(gid, sourceGidIndex, port, lid, hopLimit, serviceLevel, 0, 0);
        }

        /**
         * This target with another traffic class and flow label.
         *
         * @param newTrafficClass 0..255
         * @param newFlowLabel    0..0xFFFFF
         * @return a new target
         * @throws IllegalArgumentException outside those ranges
         */
        public Target withGrh(int newTrafficClass, int newFlowLabel) {
            return new Target(gid, sourceGidIndex, port, lid, hopLimit, serviceLevel, newTrafficClass, newFlowLabel);
        }

        /**
         * A target on RoCE or InfiniBand with a GRH: hop limit 64, service level 0. Its LID is 0, which is
         * what RoCE wants; an InfiniBand destination needs its LID, given through the canonical constructor.
         *
         * @param gid            the destination GID, for example the GID the peer sent out of band; not null
         * @param sourceGidIndex the populated index of {@code port}'s GID table to send from
         *                       ({@link Context#defaultGidIndex(int)} picks one)
         * @param port           the local port number, from 1
         * @return the target: LID 0, hop limit 64, service level 0
         */
        public static Target of(Gid gid, int sourceGidIndex, int port) {
            return new Target(gid, sourceGidIndex, port, 0, 64, 0);
        }
    }

    private AddressHandle(ProtectionDomain pd, MemorySegment handle, Target target) {
        super(pd.treeLock(), pd);
        this.pd = pd;
        this.handle = scoped(handle);
        this.target = target;
        MemorySegment raw = raw(handle);
        String what = toString();
        own(what, () -> check("ibv_destroy_ah", ibverbs_h.ibv_destroy_ah(raw), what));
    }

    static AddressHandle create(ProtectionDomain pd, Target target) {
        Context context = pd.context();
        context.checkPort(target.port());
        PortAttributes port = context.queryPort(target.port());
        boolean global = port.linkLayer() == LinkLayer.ETHERNET || !target.gid().isZero();
        if (global) {
            context.gid(target.port(), target.sourceGidIndex()); // throws naming the populated indices
        }
        try (Arena arena = Arena.ofConfined(); CallState state = CallState.open()) {
            MemorySegment attr = arena.allocate(ibv_ah_attr.layout());
            ibv_ah_attr.dlid(attr, (short) target.lid());
            ibv_ah_attr.sl(attr, (byte) target.serviceLevel());
            ibv_ah_attr.port_num(attr, (byte) target.port());
            if (global) {
                ibv_ah_attr.is_global(attr, (byte) 1);
                MemorySegment grh = ibv_ah_attr.grh(attr);
                target.gid().write(grh, ibv_global_route.dgid$offset());
                ibv_global_route.sgid_index(grh, (byte) target.sourceGidIndex());
                ibv_global_route.hop_limit(grh, (byte) target.hopLimit());
                ibv_global_route.traffic_class(grh, (byte) target.trafficClass());
                ibv_global_route.flow_label(grh, target.flowLabel());
            }
            Object event = ControlEvents.begin(ControlEvents.Kind.ADDRESS_HANDLE_CREATE);
            MemorySegment ah = (MemorySegment) Native.CREATE_AH.invokeExact(state.segment(), pd.handleUnchecked(), attr);
            if (ah.equals(MemorySegment.NULL)) {
                throw new VerbsException("ibv_create_ah", state.errno(), "to GID " + target.gid() + " from GID index "
                        + target.sourceGidIndex() + " on " + context.name() + " port " + target.port()
                        + " (the destination must be reachable from the source GID's network device)");
            }
            AddressHandle created = new AddressHandle(pd, ah, target);
            ControlEvents.addressHandleCreated(event, context.name(), created.toString(), target.port(),
                    target.sourceGidIndex(), target.gid().toString());
            return created;
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /** {@return where this handle sends: the target it was created with} */
    public Target target() {
        return target;
    }

    /**
     * {@return the protection domain the handle was created in} The verbs require a UD queue pair of the
     * same protection domain to send with it.
     */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /** A UD post reads this handle inside its work request, naming only its queue pair in its marker. */
    @Override
    boolean mayBeNamedByCalls() {
        return true;
    }

    /** A UD post reads this handle inside its work request: closing it waits for every call in flight. */
    @Override
    boolean waitsFor(int inside) {
        return true;
    }

    MemorySegment handleUnchecked() {
        return handle;
    }

    @Override
    public String toString() {
        return "AddressHandle[" + target.gid() + " via GID index " + target.sourceGidIndex() + "]";
    }
}
