package com.ibm.disni.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.panamaverbs.cm.CmEventType;
import org.panamaverbs.cm.PortSpace;

/** The connection-manager types of the DiSNI 2.1 drop-in without a device. */
class CmObjectsTest {

    @Test
    void eventTypesAreCsValuesInCsOrder() {
        for (RdmaCmEvent.EventType t : RdmaCmEvent.EventType.values()) {
            assertEquals(CmEventType.valueOf(t.name().substring("RDMA_CM_EVENT_".length())).code(), t.ordinal(),
                    t.name());
        }
        assertEquals(16, RdmaCmEvent.EventType.values().length);
        assertEquals(PortSpace.TCP.code(), RdmaCm.RDMA_PS_TCP);
        assertEquals(PortSpace.UDP.code(), RdmaCm.RDMA_PS_UDP);
        assertEquals(2, RdmaCm.RDMA_PS_IPOIB);
    }

    @Test
    void oneProviderWithOneCmAndOneVerbs() throws IOException {
        RdmaProvider provider = RdmaProvider.provider();
        assertSame(provider, RdmaProvider.provider());
        assertSame(RdmaCm.open(), provider.openCm());
        assertSame(RdmaVerbs.open(), provider.openVerbs());
        assertEquals(32, provider.getVersion());
    }

    @Test
    void eventsMadeByProgramsAndObjectsWithoutNativeIds() throws IOException {
        RdmaCmEvent event = new RdmaCmEvent(RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED.ordinal(), null, null);
        assertEquals(9, event.getEvent());
        assertEquals(-1, event.getStatus());
        assertEquals(0L, event.getConn().getPrivate_data());
        event.ackEvent();
        assertEquals(0, RdmaCm.open().ackCmEvent(event));

        RdmaEventChannel channel = new RdmaEventChannel(3);
        assertEquals(3, channel.getFd());
        assertThrows(IOException.class, () -> channel.getCmEvent(0), "no channel behind it, as its constructor says");
        assertThrows(IOException.class, () -> channel.createId(RdmaCm.RDMA_PS_TCP));
        assertThrows(IOException.class, () -> channel.createId(RdmaCm.RDMA_PS_UDP), "only RDMA_PS_TCP");
        RdmaCmId id = new RdmaCmId(channel, (IbvContext) null);
        assertSame(channel, id.getCmChannel());
        assertThrows(IOException.class, () -> id.bindAddr(new InetSocketAddress("127.0.0.1", 1)));
        assertThrows(IOException.class, id::getVerbs);
        assertThrows(IOException.class, () -> id.connect(new RdmaConnParam()));
    }
}
