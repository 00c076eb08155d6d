package com.ibm.disni.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.LinkedList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamaverbs.verbs.Access;

/**
 * The verbs objects of the DiSNI 2.1 drop-in without a device: constants, the single {@code RdmaVerbs}, and
 * objects made with DiSNI's public or protected constructors (which have no native object behind them and
 * say so with an {@code IOException} instead of crashing).
 */
class VerbsObjectsTest {

    @Test
    void constantsAreCsValues() {
        assertEquals(Access.LOCAL_WRITE.bit(), IbvMr.IBV_ACCESS_LOCAL_WRITE);
        assertEquals(Access.REMOTE_WRITE.bit(), IbvMr.IBV_ACCESS_REMOTE_WRITE);
        assertEquals(Access.REMOTE_READ.bit(), IbvMr.IBV_ACCESS_REMOTE_READ);
        assertEquals(Access.REMOTE_ATOMIC.bit(), IbvMr.IBV_ACCESS_REMOTE_ATOMIC);
        assertEquals(Access.MW_BIND.bit(), IbvMr.IBV_ACCESS_MW_BIND);
        assertEquals(Access.ON_DEMAND.bit(), IbvMr.IBV_ACCESS_ON_DEMAND);
        assertEquals(1, IbvContext.IBV_ODP_SUPPORT_SEND);
        assertEquals(2, IbvContext.IBV_ODP_SUPPORT_RECV);
        assertEquals(4, IbvContext.IBV_ODP_SUPPORT_WRITE);
        assertEquals(8, IbvContext.IBV_ODP_SUPPORT_READ);
        assertEquals(16, IbvContext.IBV_ODP_SUPPORT_ATOMIC);
        assertEquals(org.panamaverbs.verbs.QpType.RC.code(), IbvQP.IBV_QPT_RC);
        assertEquals(org.panamaverbs.verbs.QpType.UC.code(), IbvQP.IBV_QPT_UC);
        assertEquals(org.panamaverbs.verbs.QpType.UD.code(), IbvQP.IBV_QPT_UD);
        assertEquals(org.panamaverbs.verbs.QpState.RESET.code(), IbvQP.IBV_QPS_RESET);
        assertEquals(org.panamaverbs.verbs.QpState.RTS.code(), IbvQP.IBV_QPS_RTS);
        assertEquals(org.panamaverbs.verbs.QpState.ERR.code(), IbvQP.IBV_QPS_ERR);
    }

    @Test
    void oneVerbsObjectPerJvm() throws IOException {
        assertSame(RdmaVerbs.open(), RdmaVerbs.open());
        assertEquals(32, RdmaVerbs.getVersion());
    }

    @Test
    void objectsWithoutANativeObjectRefuseVerbsWithIOException() throws Exception {
        IbvContext context = new IbvContext(5, 2);
        assertEquals(5, context.getCmd_fd());
        assertEquals(2, context.getNumCompVectors());
        assertTrue(context.isOpen());
        IOException e = assertThrows(IOException.class, context::allocPd);
        assertTrue(e.getMessage().contains("not created by this module"), e.getMessage());
        assertThrows(IOException.class, () -> new IbvPd(context));
        assertThrows(IOException.class, context::createCompChannel);
        assertThrows(IOException.class, () -> context.createCQ(null, 16, 0));
        assertEquals(-1, context.queryOdpSupport(), "no ODP query, as DiSNI on upstream rdma-core");
        context.close();
        assertTrue(!context.isOpen());

        IbvQP qp = new IbvQP(7);
        assertEquals(7, qp.getHandle());
        assertNull(qp.getContext());
        IbvSendWR wr = new IbvSendWR();
        assertThrows(IOException.class, () -> qp.postSend(List.of(wr), null));
        assertThrows(IOException.class, () -> qp.postRecv(List.of(new IbvRecvWR()), null));

        IbvMr mr = new IbvMr(null, 0x1000, 64, 7, 11, 12, 13);
        assertEquals(0x1000, mr.getAddr());
        assertEquals(64, mr.getLength());
        assertEquals(11, mr.getLkey());
        assertEquals(12, mr.getRkey());
        assertEquals(13, mr.getHandle());
        mr.setLkey(21);
        assertEquals(21, mr.getLkey());
        assertTrue(mr.toString().contains("lkey 21"), mr.toString());
        assertThrows(IOException.class, mr::deregMr);
        assertEquals(-1, mr.expPrefetchMr(0x1000, 64));

        IbvCompChannel channel = new IbvCompChannel(9, context);
        assertEquals(9, channel.getFd());
        assertThrows(IOException.class, () -> channel.getCqEvent(null, 0));
    }

    @Test
    void scatterGatherListsAreCheckedAgainstNumSge() throws IOException {
        SgeTable table = new SgeTable(3);
        IbvSge a = new IbvSge();
        a.setAddr(0x2000);
        a.setLength(10);
        a.setLkey(5);
        table.copy(new LinkedList<>(List.of(a, a, a)), 3, 0, "test");
        assertEquals(0x2000, table.addr[2]);
        assertEquals(10, table.length[1]);
        assertEquals(5, table.lkey[0]);
        IOException e = assertThrows(IOException.class,
                () -> table.copy(new LinkedList<>(List.of(a)), 2, 0, "request 0"));
        assertTrue(e.getMessage().contains("num_sge is 2"), e.getMessage());
        assertThrows(IOException.class, () -> table.copy(null, 1, 0, "request 0"));
        assertThrows(IOException.class, () -> table.copy(null, -1, 0, "request 0"));
        table.copy(null, 0, 0, "no entries");
    }
}
