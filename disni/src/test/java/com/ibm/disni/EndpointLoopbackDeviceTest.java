package com.ibm.disni;

import static com.ibm.disni.DeviceUnderTest.host;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostSend;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.panamaverbs.junit.RequiresRdmaDevice;

/**
 * The endpoint layer on a real device, server and client in one JVM (in the Soft-RoCE guest): an active
 * pair exchanging SENDs through CQ callbacks, a passive pair polling their own CQs for a SEND and an RDMA
 * READ, and a connect to a port nobody listens on failing with REJECTED instead of hanging.
 */
@RequiresRdmaDevice
class EndpointLoopbackDeviceTest {
    private static final int SIZE = 64;
    private static final long RECV_ID = 7, SEND_ID = 8, READ_ID = 9;

    private static IbvSendWR send(IbvMr mr, int length, long wrId, int opcode) {
        IbvSge sge = new IbvSge();
        sge.setAddr(mr.getAddr());
        sge.setLength(length);
        sge.setLkey(mr.getLkey());
        LinkedList<IbvSge> sges = new LinkedList<>();
        sges.add(sge);
        IbvSendWR wr = new IbvSendWR();
        wr.setWr_id(wrId);
        wr.setSg_list(sges);
        wr.setOpcode(opcode);
        wr.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        return wr;
    }

    private static IbvRecvWR recv(IbvMr mr) {
        IbvSge sge = new IbvSge();
        sge.setAddr(mr.getAddr());
        sge.setLength(mr.getLength());
        sge.setLkey(mr.getLkey());
        LinkedList<IbvSge> sges = new LinkedList<>();
        sges.add(sge);
        IbvRecvWR wr = new IbvRecvWR();
        wr.setWr_id(RECV_ID);
        wr.setSg_list(sges);
        return wr;
    }

    private static byte[] bytes(ByteBuffer buffer, int length) {
        byte[] out = new byte[length];
        buffer.duplicate().clear().get(out);
        return out;
    }

    /** Registers a send and a receive buffer and posts one receive in init(), as DiSNI's examples do. */
    static final class ActiveEp extends RdmaActiveEndpoint {
        final ArrayBlockingQueue<IbvWC> completions = new ArrayBlockingQueue<>(16);
        final ByteBuffer sendBuf = ByteBuffer.allocateDirect(SIZE);
        final ByteBuffer recvBuf = ByteBuffer.allocateDirect(SIZE);
        IbvMr sendMr, recvMr;
        boolean initRan;

        ActiveEp(RdmaActiveEndpointGroup<ActiveEp> group, RdmaCmId id, boolean serverSide) throws IOException {
            super(group, id, serverSide);
        }

        @Override
        protected synchronized void init() throws IOException {
            initRan = true;
            assertFalse(isConnected(), "init runs before the connection is established");
            sendMr = registerMemory(sendBuf).execute().free().getMr();
            recvMr = registerMemory(recvBuf).execute().free().getMr();
            postRecv(List.of(recv(recvMr))).execute().free();
        }

        @Override
        public void dispatchCqEvent(IbvWC wc) {
            completions.add(wc.clone());
        }

        IbvWC take() throws InterruptedException {
            IbvWC wc = completions.poll(30, TimeUnit.SECONDS);
            assertNotNull(wc, "no completion within 30 s");
            assertEquals(0, wc.getStatus(), "completion status");
            return wc;
        }

        void sendText(String text, long wrId) throws IOException {
            byte[] b = text.getBytes(StandardCharsets.UTF_8);
            sendBuf.clear().put(b);
            SVCPostSend post = postSend(List.of(send(sendMr, b.length, 0, IbvSendWR.IBV_WR_SEND)));
            post.getWrMod(0).setWr_id(wrId);
            post.execute().free();
        }
    }

    /** The device (and address) the project's JUnit kit chose. */
    @BeforeAll
    static void chosenDevice(InetAddress address) {
        DeviceUnderTest.use(address);
    }

    @Test
    void activeEndpointsExchangeSendsThroughCqCallbacks() throws Exception {
        assertTimeoutPreemptively(Duration.ofMinutes(2), () -> {
            InetSocketAddress address = new InetSocketAddress(host(), 19881);
            RdmaActiveEndpointGroup<ActiveEp> serverGroup = new RdmaActiveEndpointGroup<>(1000, false, 16, 1, 32);
            serverGroup.init((id, serverSide) -> new ActiveEp(serverGroup, id, serverSide));
            RdmaServerEndpoint<ActiveEp> server = serverGroup.createServerEndpoint().bind(address, 10);
            CompletableFuture<ActiveEp> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return server.accept();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            RdmaActiveEndpointGroup<ActiveEp> clientGroup = new RdmaActiveEndpointGroup<>(1000, false, 16, 1, 32);
            clientGroup.init((id, serverSide) -> new ActiveEp(clientGroup, id, serverSide));
            ActiveEp client = clientGroup.createEndpoint();
            client.connect(address, 2000);
            ActiveEp serverSide = accepted.get(30, TimeUnit.SECONDS);
            assertTrue(client.initRan && serverSide.initRan);
            assertTrue(client.isConnected() && serverSide.isConnected());
            assertTrue(serverSide.isServerSide() && !client.isServerSide());
            assertEquals(4, client.getConnState());
            assertSame(client.getPd(), server.getPd(), "one protection domain per device in the JVM");
            assertNotNull(client.getDstAddr());

            client.sendText("hello from the client", 4444);
            IbvWC sent = client.take();
            assertEquals(4444, sent.getWr_id());
            assertEquals(IbvWC.IbvWcOpcode.IBV_WC_SEND.getOpcode(), sent.getOpcode());
            IbvWC got = serverSide.take();
            assertEquals(128, got.getOpcode());
            assertEquals(RECV_ID, got.getWr_id());
            assertEquals(21, got.getByte_len());
            assertEquals("hello from the client",
                    new String(bytes(serverSide.recvBuf, got.getByte_len()), StandardCharsets.UTF_8));

            serverSide.sendText("hello from the server", SEND_ID);
            assertEquals(SEND_ID, serverSide.take().getWr_id());
            IbvWC reply = client.take();
            assertEquals("hello from the server",
                    new String(bytes(client.recvBuf, reply.getByte_len()), StandardCharsets.UTF_8));

            client.close();
            assertFalse(client.isConnected());
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!serverSide.isClosed() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(serverSide.isClosed(), "DISCONNECTED reached the server side");
            serverSide.close();
            server.close();
            serverGroup.close();
            clientGroup.close();
        });
    }

    /** Polls its own CQ; the server side's data buffer is read by the client with RDMA READ. */
    static final class PassiveEp extends RdmaEndpoint {
        final ByteBuffer dataBuf = ByteBuffer.allocateDirect(SIZE);
        final ByteBuffer sendBuf = ByteBuffer.allocateDirect(SIZE);
        final ByteBuffer recvBuf = ByteBuffer.allocateDirect(SIZE);
        IbvMr dataMr, sendMr, recvMr;
        IbvWC[] wcs;
        SVCPollCq poll;

        PassiveEp(RdmaPassiveEndpointGroup<PassiveEp> group, RdmaCmId id, boolean serverSide) throws IOException {
            super(group, id, serverSide);
        }

        @Override
        protected synchronized void init() throws IOException {
            dataMr = registerMemory(dataBuf).execute().free().getMr();
            sendMr = registerMemory(sendBuf).execute().free().getMr();
            recvMr = registerMemory(recvBuf).execute().free().getMr();
            postRecv(List.of(recv(recvMr))).execute().free();
            int n = getCqProvider().getCqSize();
            wcs = new IbvWC[n];
            for (int i = 0; i < n; i++) {
                wcs[i] = new IbvWC();
            }
            poll = getCqProvider().getCQ().poll(wcs, n);
        }

        IbvWC take() throws IOException {
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (poll.execute().getPolls() == 0) {
                assertTrue(System.nanoTime() < deadline, "no completion within 30 s");
                Thread.onSpinWait();
            }
            IbvWC wc = wcs[0].clone();
            assertEquals(0, wc.getStatus(), "completion status");
            return wc;
        }
    }

    @Test
    void passiveEndpointsPollTheirOwnQueuesForSendAndRdmaRead() throws Exception {
        assertTimeoutPreemptively(Duration.ofMinutes(2), () -> {
            InetSocketAddress address = new InetSocketAddress(host(), 19882);
            RdmaPassiveEndpointGroup<PassiveEp> serverGroup = new RdmaPassiveEndpointGroup<>(1000, 16, 1, 32);
            serverGroup.init((id, serverSide) -> new PassiveEp(serverGroup, id, serverSide));
            RdmaServerEndpoint<PassiveEp> server = serverGroup.createServerEndpoint().bind(address, 10);
            CompletableFuture<PassiveEp> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return server.accept();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            RdmaPassiveEndpointGroup<PassiveEp> clientGroup = new RdmaPassiveEndpointGroup<>(1000, 16, 1, 32);
            clientGroup.init((id, serverSide) -> new PassiveEp(clientGroup, id, serverSide));
            PassiveEp client = clientGroup.createEndpoint();
            client.connect(address, 2000);
            PassiveEp serverSide = accepted.get(30, TimeUnit.SECONDS);
            assertTrue(client.getCqProvider() != serverSide.getCqProvider(), "one CQ per passive endpoint");

            // the server describes its data buffer: [long addr][int length][int key], as DiSNI's ReadServer (which
            // sends the lkey, equal to the rkey on mlx4/mlx5/siw/rxe; the rkey here)
            byte[] data = new byte[SIZE];
            for (int i = 0; i < SIZE; i++) {
                data[i] = (byte) (i * 7 + 3);
            }
            serverSide.dataBuf.clear().put(data);
            serverSide.sendBuf.clear().putLong(serverSide.dataMr.getAddr()).putInt(serverSide.dataMr.getLength())
                    .putInt(serverSide.dataMr.getRkey());
            serverSide.postSend(List.of(send(serverSide.sendMr, 16, SEND_ID, IbvSendWR.IBV_WR_SEND))).execute()
                    .free();
            assertEquals(SEND_ID, serverSide.take().getWr_id());
            IbvWC descriptor = client.take();
            assertEquals(16, descriptor.getByte_len());
            ByteBuffer d = client.recvBuf.duplicate().clear();
            long addr = d.getLong();
            int length = d.getInt();
            int key = d.getInt();
            assertEquals(SIZE, length);

            IbvSendWR read = send(client.dataMr, SIZE, READ_ID, IbvSendWR.IBV_WR_RDMA_READ);
            read.getRdma().setRemote_addr(addr);
            read.getRdma().setRkey(key);
            SVCPostSend post = client.postSend(List.of(read));
            for (int len = 16; len <= SIZE; len += 16) {
                client.dataBuf.clear().put(new byte[SIZE]);
                post.getWrMod(0).getSgeMod(0).setLength(len);
                post.execute();
                IbvWC wc = client.take();
                assertEquals(READ_ID, wc.getWr_id());
                byte[] expected = new byte[SIZE];
                System.arraycopy(data, 0, expected, 0, len);
                assertArrayEquals(expected, bytes(client.dataBuf, SIZE), "READ of " + len + " bytes");
            }
            post.free();

            client.close();
            client.deregisterMemory(client.dataMr); // after close, as DiSNI's benchmarks do
            serverSide.close();
            server.close();
            clientGroup.close();
            serverGroup.close();
        });
    }

    @Test
    void connectToAPortNobodyListensOnFailsWithRejected() throws Exception {
        RdmaActiveEndpointGroup<ActiveEp> group = new RdmaActiveEndpointGroup<>(1000, false, 4, 1, 8);
        group.init((id, serverSide) -> new ActiveEp(group, id, serverSide));
        ActiveEp client = group.createEndpoint();
        IOException e = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertThrows(IOException.class,
                () -> client.connect(new InetSocketAddress(host(), 19883), 2000)));
        assertTrue(e.getMessage().contains("REJECTED"), e.getMessage());
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            client.close();
            group.close();
        });
    }
}
