package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.panamaverbs.ffi.ibverbs_h;

/**
 * The facade's enums carry C values as literals (so they can be used without loading libibverbs); this
 * checks every one against the constant jextract generated from verbs.h.
 */
class ConstantsTest {
    /** Everything here loads libibverbs (a machine without rdma-core skips it, naming the package). */
    @BeforeAll
    static void needsLibibverbs() {
        RequiredTools.libibverbs();
    }

    private static int generated(String name) throws Exception {
        Method m = ibverbs_h.class.getMethod(name);
        return (int) m.invoke(null);
    }

    private static <E extends Enum<E>> void check(Class<E> type, Function<E, String> cName, ToIntFunction<E> code)
            throws Exception {
        for (E constant : type.getEnumConstants()) {
            if (constant.name().equals("UNKNOWN") && code.applyAsInt(constant) == -1) {
                continue; // the library's own marker for values C may add later
            }
            assertEquals(generated(cName.apply(constant)), code.applyAsInt(constant), type.getSimpleName() + "." + constant);
        }
    }

    @Test
    void enumsMatchVerbsH() throws Exception {
        check(WcStatus.class, e -> "IBV_WC_" + e.name(), WcStatus::code);
        check(WcOpcode.class, e -> "IBV_WC_" + e.name(), WcOpcode::code);
        check(WrOpcode.class, e -> "IBV_WR_" + e.name(), WrOpcode::code);
        check(QpState.class, e -> "IBV_QPS_" + e.name(), QpState::code);
        check(QpType.class, e -> "IBV_QPT_" + e.name(), QpType::code);
        check(PortState.class, e -> "IBV_PORT_" + e.name(), PortState::code);
        check(Mtu.class, e -> "IBV_" + e.name(), Mtu::code);
        check(Access.class, e -> "IBV_ACCESS_" + e.name(), Access::bit);
        check(AtomicCapability.class, e -> "IBV_ATOMIC_" + e.name(), AtomicCapability::code);
        check(GidType.class, e -> "IBV_GID_TYPE_" + e.name(), GidType::code);
        check(LinkLayer.class, e -> "IBV_LINK_LAYER_" + e.name(), LinkLayer::code);
        check(Transport.class, e -> "IBV_TRANSPORT_" + e.name(), Transport::code);
        check(AsyncEventType.class, e -> "IBV_EVENT_" + e.name(), AsyncEventType::code);
    }

    /** One enum's lookup: its constants, code accessor, {@code of}, and UNKNOWN (null where of throws instead). */
    private record Lookup<E extends Enum<E>>(E[] constants, ToIntFunction<E> code, IntFunction<E> of, E unknown) {
        void check() {
            for (E constant : constants) {
                if (constant != unknown) {
                    assertSame(constant, of.apply(code.applyAsInt(constant)));
                }
            }
            for (int value : new int[] {-2, 999, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
                if (unknown != null) {
                    assertSame(unknown, of.apply(value), unknown.getDeclaringClass().getSimpleName() + " " + value);
                } else {
                    assertThrows(IllegalArgumentException.class, () -> of.apply(value));
                }
            }
        }
    }

    /**
     * One policy: values C returns at run time map to UNKNOWN when this library does not know them (a newer
     * kernel or provider may add some); values only Java writes have no UNKNOWN, so an unknown one throws.
     */
    @Test
    void unknownValuesFollowOnePolicy() {
        List.of(new Lookup<>(AsyncEventType.values(), AsyncEventType::code, AsyncEventType::of, AsyncEventType.UNKNOWN),
                new Lookup<>(AtomicCapability.values(), AtomicCapability::code, AtomicCapability::of, AtomicCapability.UNKNOWN),
                new Lookup<>(GidType.values(), GidType::code, GidType::of, GidType.UNKNOWN),
                new Lookup<>(LinkLayer.values(), LinkLayer::code, LinkLayer::of, LinkLayer.UNKNOWN),
                new Lookup<>(Mtu.values(), Mtu::code, Mtu::of, Mtu.UNKNOWN),
                new Lookup<>(PortState.values(), PortState::code, PortState::of, PortState.UNKNOWN),
                new Lookup<>(QpState.values(), QpState::code, QpState::of, QpState.UNKNOWN),
                new Lookup<>(Transport.values(), Transport::code, Transport::of, Transport.UNKNOWN),
                new Lookup<>(WcOpcode.values(), WcOpcode::code, WcOpcode::of, WcOpcode.UNKNOWN),
                new Lookup<>(WcStatus.values(), WcStatus::code, WcStatus::of, WcStatus.UNKNOWN),
                new Lookup<>(QpType.values(), QpType::code, QpType::of, null),
                new Lookup<>(WrOpcode.values(), WrOpcode::code, WrOpcode::of, null))
                .forEach(Lookup::check);
        assertSame(Mtu.UNKNOWN, Mtu.of(0), "ibv_mtu starts at 1");
        assertSame(WcOpcode.UNKNOWN, WcOpcode.of(64), "between the send and the receive opcodes");
        assertSame(QpState.UNKNOWN, QpState.of(7), "C's own IBV_QPS_UNKNOWN");
        assertSame(Transport.UNKNOWN, Transport.of(-1), "C's own IBV_TRANSPORT_UNKNOWN");
        assertThrows(IllegalArgumentException.class, () -> QpType.of(0), "ibv_qp_type starts at 2");
    }

    @Test
    void unknownMtuLimitsNothingAndIsNoPathMtu() {
        assertSame(Mtu.MTU_1024, Mtu.min(Mtu.MTU_1024, Mtu.UNKNOWN));
        assertSame(Mtu.MTU_1024, Mtu.min(Mtu.UNKNOWN, Mtu.MTU_1024));
        assertSame(Mtu.UNKNOWN, Mtu.min(Mtu.UNKNOWN, Mtu.UNKNOWN));
        assertThrows(IllegalArgumentException.class,
                () -> QpConnectOptions.builder().pathMtu(Mtu.UNKNOWN));
        assertFalse(AtomicCapability.UNKNOWN.isSupported());
        assertTrue(AtomicCapability.HCA.isSupported());
    }

    @Test
    void flagsMatchVerbsH() throws Exception {
        assertEquals(generated("IBV_SEND_FENCE"), SendFlags.FENCE);
        assertEquals(generated("IBV_SEND_SIGNALED"), SendFlags.SIGNALED);
        assertEquals(generated("IBV_SEND_SOLICITED"), SendFlags.SOLICITED);
        assertEquals(generated("IBV_SEND_INLINE"), SendFlags.INLINE);
        assertEquals(generated("IBV_WC_WITH_IMM"), WorkCompletion.WC_WITH_IMM);
    }

    @Test
    void lookupsRoundTripWithoutAllocation() {
        for (WcStatus s : WcStatus.values()) {
            if (s.code() >= 0) {
                assertSame(s, WcStatus.of(s.code()));
            }
        }
        assertSame(WcStatus.UNKNOWN, WcStatus.of(999));
        assertSame(WcOpcode.RECV, WcOpcode.of(128));
        assertSame(WcOpcode.UNKNOWN, WcOpcode.of(-5));
        assertEquals(Mtu.MTU_1024, Mtu.min(Mtu.MTU_4096, Mtu.MTU_1024));
        assertEquals(Access.LOCAL_WRITE.bit() | Access.REMOTE_READ.bit(), Access.bits(Access.LOCAL_WRITE, Access.REMOTE_READ));
    }
}
