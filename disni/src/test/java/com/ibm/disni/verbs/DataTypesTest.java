package com.ibm.disni.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.LinkedList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.WcOpcode;
import org.panamaverbs.verbs.WcStatus;
import org.panamaverbs.verbs.WrOpcode;

/**
 * The plain data types of the DiSNI 2.1 drop-in: their constants against C's values (through Panama Verbs'
 * enums, which are checked against verbs.h), enum orders, and every getter/setter pair.
 */
class DataTypesTest {

    @Test
    void sendOpcodesAndFlagsAreCsValues() {
        int[] constants = {IbvSendWR.IBV_WR_RDMA_WRITE, IbvSendWR.IBV_WR_RDMA_WRITE_WITH_IMM, IbvSendWR.IBV_WR_SEND,
                IbvSendWR.IBV_WR_SEND_WITH_IMM, IbvSendWR.IBV_WR_RDMA_READ, IbvSendWR.IBV_WR_ATOMIC_CMP_AND_SWP,
                IbvSendWR.IBV_WR_ATOMIC_FETCH_AND_ADD};
        for (IbvSendWR.IbvWrOcode o : IbvSendWR.IbvWrOcode.values()) {
            String c = o.name().substring("IBV_WR_".length());
            assertEquals(WrOpcode.valueOf(c).code(), o.ordinal(), o.name());
            assertEquals(o.ordinal(), constants[o.ordinal()], o.name());
        }
        assertEquals(7, IbvSendWR.IbvWrOcode.values().length);
        assertEquals(1, IbvSendWR.IBV_SEND_FENCE);
        assertEquals(SendFlags.SIGNALED, IbvSendWR.IBV_SEND_SIGNALED);
        assertEquals(SendFlags.SOLICITED, IbvSendWR.IBV_SEND_SOLICITED);
        assertEquals(SendFlags.INLINE, IbvSendWR.IBV_SEND_INLINE);
        assertEquals(SendFlags.FENCE, IbvSendWR.IBV_SEND_FENCE);
    }

    @Test
    void completionEnumsAreCsValuesInCsOrder() {
        for (IbvWC.IbvWcStatus s : IbvWC.IbvWcStatus.values()) {
            assertEquals(WcStatus.valueOf(s.name().substring("IBV_WC_".length())).code(), s.ordinal(), s.name());
            assertSame(s, IbvWC.IbvWcStatus.valueOf(s.ordinal()));
        }
        assertEquals(22, IbvWC.IbvWcStatus.values().length);
        assertEquals(5, IbvWC.IbvWcStatus.IBV_WC_WR_FLUSH_ERR.ordinal());
        assertThrows(IllegalArgumentException.class, () -> IbvWC.IbvWcStatus.valueOf(22));
        for (IbvWC.IbvWcOpcode o : IbvWC.IbvWcOpcode.values()) {
            assertEquals(WcOpcode.valueOf(o.name().substring("IBV_WC_".length())).code(), o.getOpcode(), o.name());
            assertSame(o, IbvWC.IbvWcOpcode.valueOf(o.getOpcode()));
        }
        assertEquals(128, IbvWC.IbvWcOpcode.IBV_WC_RECV.getOpcode());
        assertEquals(129, IbvWC.IbvWcOpcode.IBV_WC_RECV_RDMA_WITH_IMM.getOpcode());
        assertThrows(IllegalArgumentException.class, () -> IbvWC.IbvWcOpcode.valueOf(6));
        assertEquals(48, IbvWC.CSIZE);
        assertEquals(0, IbvWC.CQ_OK);
        assertEquals(-1, IbvWC.CQ_EMPTY);
        assertEquals(-2, IbvWC.CQ_POLL_ERR);
    }

    @Test
    void sendWorkRequestCopiesItsListAndCountsIt() {
        IbvSendWR wr = new IbvSendWR();
        assertNotNull(wr.getRdma());
        assertNotNull(wr.getAtomic());
        assertNotNull(wr.getUd());
        assertTrue(wr.getSg_list().isEmpty());
        assertEquals(0, wr.getNum_sge());
        IbvSge a = new IbvSge();
        IbvSge b = new IbvSge();
        LinkedList<IbvSge> list = new LinkedList<>(List.of(a, b));
        wr.setSg_list(list);
        assertEquals(2, wr.getNum_sge());
        assertNotSame(list, wr.getSg_list(), "IbvSendWR copies the list");
        assertSame(a, wr.getSge(0), "but keeps the entries themselves");
        assertSame(b, wr.getSge(1));
        list.clear();
        assertEquals(2, wr.getSg_list().size());
        wr.setSg_list(new LinkedList<>(List.of(b)));
        assertEquals(1, wr.getNum_sge());
        assertSame(b, wr.getSge(0));
        assertThrows(IndexOutOfBoundsException.class, () -> wr.getSge(1));
        wr.setSg_list(wr.getSg_list());
        assertEquals(1, wr.getNum_sge());
    }

    @Test
    void receiveWorkRequestKeepsItsListByReference() {
        IbvRecvWR wr = new IbvRecvWR();
        assertNull(wr.getSg_list(), "null until set, as in DiSNI");
        LinkedList<IbvSge> list = new LinkedList<>(List.of(new IbvSge()));
        wr.setSg_list(list);
        assertSame(list, wr.getSg_list());
        assertEquals(1, wr.getNum_sge());
    }

    @Test
    void cloneCopiesEveryFieldOfACompletion() throws Exception {
        IbvWC wc = new IbvWC();
        int n = fill(wc);
        wc.setSend(true);
        IbvWC copy = wc.clone();
        assertNotSame(wc, copy);
        assertEquals(n, roundTrip(copy, false), "every getter of the clone returns what was set on the original");
        assertTrue(copy.isSend());
        assertEquals("IbvWC", wc.getClassName());
    }

    @Test
    void everyAccessorPairRoundTrips() throws Exception {
        IbvQPCap cap = new IbvQPCap();
        IbvGlobalRoute grh = new IbvGlobalRoute();
        assertEquals(16, grh.getDgid().length);
        Object[] objects = {new IbvSge(), new IbvSendWR(), new IbvSendWR.Rdma(), new IbvSendWR.Atomic(),
                new IbvSendWR.Ud(), new IbvRecvWR(), new IbvWC(), cap, grh, new IbvAhAttr(grh),
                new IbvQpAttr(new IbvAhAttr(grh), new IbvAhAttr(grh), cap), new RdmaConnParam(), new IbvQPInitAttr()};
        int pairs = 0;
        for (Object o : objects) {
            pairs += fill(o);
            roundTrip(o, true);
        }
        assertEquals(98, pairs, "getter/setter pairs of the 13 data types");
        assertEquals("IbvSge", new IbvSge().getClassName());
        assertEquals("Rdma", new IbvSendWR.Rdma().getClassName());
        assertEquals("Atomic", new IbvSendWR.Atomic().getClassName());
        assertEquals("Ud", new IbvSendWR.Ud().getClassName());
    }

    @Test
    void connectionParametersKeepWhatDisniRefused() throws Exception {
        RdmaConnParam p = new RdmaConnParam();
        assertEquals(0, p.getRetry_count());
        assertEquals(0, p.getRnr_retry_count());
        assertEquals(0L, p.getPrivate_data());
        p.setInitiator_depth((byte) 4);
        p.setResponder_resources((byte) 3);
        p.setQp_num(77);
        assertEquals(4, p.getInitiator_depth());
        assertEquals(3, p.getResponder_resources());
        assertEquals(77, p.getQp_num());
    }

    /** Sets every setter whose getter exists to a distinct value; returns how many pairs there were. */
    private static int fill(Object o) throws Exception {
        int n = 0;
        for (Method set : o.getClass().getMethods()) {
            Method get = getter(o, set);
            if (get == null) {
                continue;
            }
            set.invoke(o, value(set.getParameterTypes()[0], set.getName()));
            n++;
        }
        return n;
    }

    /** Checks every getter returns its distinct value; returns how many were checked. */
    private static int roundTrip(Object o, boolean strict) throws Exception {
        int n = 0;
        for (Method set : o.getClass().getMethods()) {
            Method get = getter(o, set);
            if (get == null) {
                continue;
            }
            Object expected = value(set.getParameterTypes()[0], set.getName());
            Object actual = get.invoke(o);
            if (expected instanceof byte[] bytes) {
                assertEquals(bytes.length, ((byte[]) actual).length, o.getClass() + "." + get.getName());
            } else if (set.getParameterTypes()[0].isPrimitive()) {
                assertEquals(expected, actual, o.getClass().getSimpleName() + "." + get.getName());
            }
            n++;
        }
        return n;
    }

    private static Method getter(Object o, Method set) {
        if (!set.getName().startsWith("set") || set.getParameterCount() != 1 || Modifier.isStatic(set.getModifiers())
                || set.getName().equals("setSg_list")) {
            return null;
        }
        String property = set.getName().substring(3);
        for (String prefix : new String[] {"get", "is"}) {
            try {
                Method get = o.getClass().getMethod(prefix + property);
                if (get.getReturnType() == set.getParameterTypes()[0]) {
                    return get;
                }
            } catch (NoSuchMethodException e) {
                // try the next prefix
            }
        }
        return null;
    }

    /** A value derived from the setter's name, so that two fields never hold the same value by accident. */
    private static Object value(Class<?> type, String name) {
        int h = name.hashCode() & 0x3f | 1;
        if (type == long.class) return 0x1000_0000_0000L + h;
        if (type == int.class) return 0x10000 + h;
        if (type == short.class) return (short) (0x100 + h);
        if (type == byte.class) return (byte) h;
        if (type == boolean.class) return Boolean.TRUE;
        if (type == byte[].class) return new byte[16];
        return null;
    }
}
