package com.ibm.disni.verbs;

import static com.ibm.disni.DeviceUnderTest.host;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.ibm.disni.DeviceUnderTest;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.panamaverbs.junit.RequiresRdmaDevice;

/**
 * DiSNI's raw connection-manager API ({@code RdmaEventChannel}, {@code RdmaCmId}, {@code RdmaCmEvent}) in the
 * order DiSNI's verbs examples use it, server and client in this JVM on the Soft-RoCE address of the test
 * guest ({@code RDMA_TEST_ADDRESS}): resolve, connect with private data, accept, SEND /
 * RECV, disconnect seen by both sides; then a connect with nothing listening ends in {@code REJECTED}.
 */
@RequiresRdmaDevice
class CmLoopbackDeviceTest {
    private static final int ACCESS = IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE
            | IbvMr.IBV_ACCESS_REMOTE_READ;

    /**
     * The channel's next event, which must be {@code type}; a TIMEWAIT_EXIT of an earlier connection's id is passed
     * over, as a DiSNI program does (the kernel reports it some time after a disconnect).
     */
    private static RdmaCmEvent expect(RdmaEventChannel channel, RdmaCmEvent.EventType type) throws IOException {
        RdmaCmEvent event = channel.getCmEvent(15_000);
        while (event != null && type != RdmaCmEvent.EventType.RDMA_CM_EVENT_TIMEWAIT_EXIT
                && event.getEvent() == RdmaCmEvent.EventType.RDMA_CM_EVENT_TIMEWAIT_EXIT.ordinal()) {
            event = channel.getCmEvent(15_000);
        }
        assertNotNull(event, "no event within 15 s, expected " + type);
        assertEquals(type.ordinal(), event.getEvent(), "expected " + type + ", got "
                + RdmaCmEvent.EventType.values()[event.getEvent()] + " status " + event.getStatus());
        event.ackEvent();
        return event;
    }

    private static IbvQPInitAttr attributes(IbvCQ cq) {
        IbvQPInitAttr attr = new IbvQPInitAttr();
        attr.cap().setMax_send_wr(10);
        attr.cap().setMax_recv_wr(10);
        attr.cap().setMax_send_sge(1);
        attr.cap().setMax_recv_sge(1);
        attr.setQp_type(IbvQP.IBV_QPT_RC);
        attr.setSend_cq(cq);
        attr.setRecv_cq(cq);
        return attr;
    }

    private static IbvWC take(SVCPollCq poll, IbvWC[] wcs) throws IOException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (poll.execute().getPolls() == 0) {
            assertTrue(System.nanoTime() < deadline, "no completion within 30 s");
        }
        return wcs[0].clone();
    }

    /** The device (and address) the project's JUnit kit chose. */
    @BeforeAll
    static void chosenDevice(InetAddress address) {
        DeviceUnderTest.use(address);
    }

    @Test
    void connectAcceptSendDisconnectAndRejection() throws Exception {
        InetSocketAddress address = new InetSocketAddress(host(), 19871);
        RdmaEventChannel serverChannel = RdmaEventChannel.createEventChannel();
        RdmaCmId listener = serverChannel.createId(RdmaCm.RDMA_PS_TCP);
        listener.bindAddr(address);
        listener.listen(10);

        RdmaEventChannel clientChannel = RdmaEventChannel.createEventChannel();
        RdmaCmId client = clientChannel.createId(RdmaCm.RDMA_PS_TCP);
        client.resolveAddr(null, address, 2000);
        expect(clientChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_RESOLVED);
        client.resolveRoute(2000);
        expect(clientChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_RESOLVED);
        IbvContext context = client.getVerbs();
        IbvPd pd = context.allocPd();
        IbvCompChannel completions = context.createCompChannel();
        IbvCQ cq = context.createCQ(completions, 50, 0);
        cq.reqNotification(false).execute().free();
        IbvQP qp = client.createQP(pd, attributes(cq));
        assertSame(qp, client.getQp());
        ByteBuffer in = ByteBuffer.allocateDirect(256);
        IbvMr inMr = pd.regMr(in, ACCESS).execute().free().getMr();
        IbvRecvWR recv = new IbvRecvWR();
        recv.setWr_id(7);
        recv.setSg_list(new LinkedList<>(List.of(sge(inMr, 0, 256))));
        qp.postRecv(List.of(recv), null).execute().free();

        byte[] hello = "hello from the client".getBytes(StandardCharsets.US_ASCII);
        MemorySegment privateData = java.lang.foreign.Arena.ofAuto().allocateFrom(ValueLayout.JAVA_BYTE, hello);
        RdmaConnParam param = new RdmaConnParam();
        param.setRetry_count((byte) 2);
        param.setPrivate_data(privateData.address());
        param.setPrivate_data_len((byte) hello.length);
        client.connect(param);

        RdmaCmEvent request = expect(serverChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST);
        assertSame(listener, request.getListenIdPriv());
        RdmaConnParam received = request.getConn();
        assertTrue(Byte.toUnsignedInt(received.getPrivate_data_len()) >= hello.length);
        byte[] got = MemorySegment.ofAddress(received.getPrivate_data()).reinterpret(hello.length)
                .toArray(ValueLayout.JAVA_BYTE);
        assertArrayEquals(hello, got, "the server sees the client's private data (DiSNI 2.1 dropped it)");
        RdmaCmId accepted = request.getConnIdPriv();
        IbvContext serverContext = accepted.getVerbs();
        assertSame(context, serverContext, "one IbvContext per device in the JVM");
        IbvPd serverPd = serverContext.allocPd();
        IbvCQ serverCq = serverContext.createCQ(null, 50, 0);
        IbvQP serverQp = accepted.createQP(serverPd, attributes(serverCq));
        RdmaConnParam acceptParam = new RdmaConnParam();
        acceptParam.setRetry_count((byte) 2);
        accepted.accept(acceptParam);
        // the client's first: librdmacm completes the active side (queue pair to RTS, the RTU that establishes the
        // server's side) inside the client's rdma_get_cm_event, so the server's ESTABLISHED follows that read, in C and
        // DiSNI as here
        expect(clientChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED);
        expect(serverChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED);
        assertEquals(address, client.getDestination());
        assertEquals(IbvQP.IBV_QPS_RTS, qp.getState());

        ByteBuffer out = ByteBuffer.allocateDirect(64);
        byte[] message = "Hello from the server".getBytes(StandardCharsets.UTF_16BE);
        out.put(0, message);
        IbvMr outMr = serverPd.regMr(out, ACCESS).execute().free().getMr();
        IbvSendWR send = new IbvSendWR();
        send.setWr_id(8);
        send.setOpcode(IbvSendWR.IBV_WR_SEND);
        send.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        send.setSg_list(new LinkedList<>(List.of(sge(outMr, 0, message.length))));
        serverQp.postSend(List.of(send), null).execute().free();
        IbvWC[] serverWcs = {new IbvWC()};
        assertEquals(8, take(serverCq.poll(serverWcs, 1), serverWcs).getWr_id());
        assertTrue(completions.getCqEvent(cq, 10_000), "the client's armed queue signalled");
        cq.ackEvents(1);
        IbvWC[] wcs = {new IbvWC()};
        IbvWC wc = take(cq.poll(wcs, 1), wcs);
        assertEquals(7, wc.getWr_id());
        assertEquals(128, wc.getOpcode());
        assertEquals(message.length, wc.getByte_len());
        byte[] arrived = new byte[message.length];
        in.get(0, arrived);
        assertArrayEquals(message, arrived);

        // the client's disconnect reaches the server; the server's answers it, and the client sees it too
        assertEquals(0, client.disconnect());
        expect(serverChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED);
        assertEquals(0, accepted.disconnect());
        expect(clientChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED);

        // nothing listening: REJECTED (reason 8) instead of DiSNI's endless wait
        RdmaCmId lonely = clientChannel.createId(RdmaCm.RDMA_PS_TCP);
        InetSocketAddress nobody = new InetSocketAddress(host(), 19872);
        lonely.resolveAddr(null, nobody, 2000);
        expect(clientChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_RESOLVED);
        lonely.resolveRoute(2000);
        expect(clientChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_RESOLVED);
        IbvCQ lonelyCq = context.createCQ(null, 8, 0);
        lonely.createQP(pd, attributes(lonelyCq));
        lonely.connect(new RdmaConnParam());
        RdmaCmEvent rejected = expect(clientChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_REJECTED);
        assertEquals(8, rejected.getStatus(), "reject reason 8: no listener");

        assertEquals(0, lonely.destroyId());
        assertEquals(0, client.destroyQP());
        assertEquals(0, client.destroyId());
        assertEquals(0, accepted.destroyId());
        assertEquals(0, listener.destroyId());
        assertEquals(0, clientChannel.destroyEventChannel());
        assertEquals(0, serverChannel.destroyEventChannel());
        pd.deallocPd();
        serverPd.deallocPd();
        cq.destroyCQ();
        serverCq.destroyCQ();
        lonelyCq.destroyCQ();
        completions.destroyCompChannel();
    }

    static IbvSge sge(IbvMr mr, int offset, int length) {
        IbvSge sge = new IbvSge();
        sge.setAddr(mr.getAddr() + offset);
        sge.setLength(length);
        sge.setLkey(mr.getLkey());
        return sge;
    }
}
