package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.reflect.Method;
import java.util.function.Function;
import java.util.function.ToIntFunction;

import org.junit.jupiter.api.Test;
import org.panamaverbs.ffi.ibverbs_h;

/**
 * The facade's enums carry C values as literals (so they can be used without loading libibverbs); this
 * checks every one against the constant jextract generated from verbs.h.
 */
class ConstantsTest {

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
