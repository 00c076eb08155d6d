package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.panamaverbs.ffi.ibv_context;
import org.panamaverbs.ffi.ibv_recv_wr;
import org.panamaverbs.ffi.ibv_send_wr;
import org.panamaverbs.ffi.ibv_sge;
import org.panamaverbs.ffi.ibv_wc;
import org.panamaverbs.ffi.verbs_context;
import org.panamaverbs.internal.DataPath;

/** The offsets the data path uses agree with the generated layouts and with the C compiler. */
class DataPathLayoutTest {

    @Test
    void providerPointerOffsetsAreThoseOfX86_64Verbs() {
        assertEquals(8 + 88, DataPath.POLL_CQ_OFFSET, "ibv_context.ops.poll_cq");
        assertEquals(8 + 200, DataPath.POST_SEND_OFFSET, "ibv_context.ops.post_send");
        assertEquals(8 + 208, DataPath.POST_RECV_OFFSET, "ibv_context.ops.post_recv");
    }

    @Test
    void structSizesAreThoseOfX86_64Verbs() {
        assertEquals(128, ibv_send_wr.layout().byteSize());
        assertEquals(32, ibv_recv_wr.layout().byteSize());
        assertEquals(16, ibv_sge.layout().byteSize());
        assertEquals(48, ibv_wc.layout().byteSize());
        assertEquals(SendChain.WR_SIZE, ibv_send_wr.layout().byteSize());
        assertEquals(RecvChain.WR_SIZE, ibv_recv_wr.layout().byteSize());
        assertEquals(CompletionArray.WC_SIZE, ibv_wc.layout().byteSize());
    }

    @Test
    void generatedLayoutsAgreeWithTheCCompiler() throws Exception {
        Map<String, Long> c = new HashMap<>();
        for (String line : CReference.lines("sizes")) {
            String[] parts = line.split(" ");
            c.put(parts[0], Long.parseLong(parts[1]));
        }
        assertEquals(c.get("ibv_send_wr"), ibv_send_wr.layout().byteSize());
        assertEquals(c.get("ibv_recv_wr"), ibv_recv_wr.layout().byteSize());
        assertEquals(c.get("ibv_sge"), ibv_sge.layout().byteSize());
        assertEquals(c.get("ibv_wc"), ibv_wc.layout().byteSize());
        assertEquals(c.get("ops") + c.get("poll_cq"), DataPath.POLL_CQ_OFFSET);
        assertEquals(c.get("ops") + c.get("post_send"), DataPath.POST_SEND_OFFSET);
        assertEquals(c.get("ops") + c.get("post_recv"), DataPath.POST_RECV_OFFSET);
        assertEquals(c.get("odp_caps"), OnDemandPagingQuery.ODP_CAPS_OFFSET);
        assertEquals(c.get("rc_odp_caps"), OnDemandPagingQuery.RC_CAPS_OFFSET);
        assertEquals(c.get("uc_odp_caps"), OnDemandPagingQuery.RC_CAPS_OFFSET + Integer.BYTES);
        assertEquals(c.get("ud_odp_caps"), OnDemandPagingQuery.RC_CAPS_OFFSET + 2 * Integer.BYTES);
        assertEquals(c.get("odp_caps_end"), OnDemandPagingQuery.ATTR_SIZE);
        assertEquals(c.get("odp_support"), OnDemandPaging.SUPPORT);
        assertEquals(c.get("odp_implicit"), OnDemandPaging.SUPPORT_IMPLICIT);
        assertEquals(List.of(c.get("odp_send"), c.get("odp_recv"), c.get("odp_write"), c.get("odp_read"),
                c.get("odp_atomic"), c.get("odp_srq_recv")), List.of((long) OnDemandPaging.SEND, (long) OnDemandPaging.RECV,
                (long) OnDemandPaging.WRITE, (long) OnDemandPaging.READ, (long) OnDemandPaging.ATOMIC,
                (long) OnDemandPaging.SRQ_RECV));
    }

    @Test
    void ibvContextIsTheLastMemberOfVerbsContext() {
        // ExtendedContext.op relies on verbs_get_ctx's container_of: ibv_context ends struct verbs_context.
        assertEquals(verbs_context.layout().byteSize(), verbs_context.context$offset() + ibv_context.layout().byteSize());
    }
}
