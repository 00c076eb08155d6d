package com.ibm.disni.verbs;

import static com.ibm.disni.DeviceUnderTest.host;
import static com.ibm.disni.DeviceUnderTest.open;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.ibm.disni.DeviceUnderTest;
import com.ibm.disni.util.MemoryUtils;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.panamaverbs.junit.RequiresRdmaDevice;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.RdmaDevice;

/**
 * Misuse of the drop-in's raw-address API on a real device: private data and memory registrations named by
 * address, scatter-gather counts that overflow, and stateful calls executed from a new thread per request.
 * Each ends in an {@link IOException} (or is bounded) instead of a crash or unbounded growth.
 */
@RequiresRdmaDevice
class DropInMisuseDeviceTest {
    private static final int ACCESS = IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE
            | IbvMr.IBV_ACCESS_REMOTE_READ;
    /** An address no process maps (above the 47-bit user space of x86-64 with 4-level paging). */
    private static final long UNMAPPED = 1L << 47;

    private static void expect(RdmaEventChannel channel, RdmaCmEvent.EventType type) throws IOException {
        RdmaCmEvent event = channel.getCmEvent(15_000);
        assertNotNull(event, "no event within 15 s, expected " + type);
        assertEquals(type.ordinal(), event.getEvent());
        event.ackEvent();
    }

    /** The device (and address) the project's JUnit kit chose. */
    @BeforeAll
    static void chosenDevice(RdmaDevice device, InetAddress address) {
        DeviceUnderTest.use(device);
        DeviceUnderTest.use(address);
    }

    /**
     * {@code RdmaConnParam.setPrivate_data(long)} takes any address: an unmapped one and one whose length runs past
     * its region are refused with {@code IOException} when connecting (the first was a SIGSEGV in the copy).
     */
    @Test
    void privateDataNamedByABadAddressIsRefused() throws Exception {
        RdmaEventChannel channel = RdmaEventChannel.createEventChannel();
        RdmaCmId client = channel.createId(RdmaCm.RDMA_PS_TCP);
        client.resolveAddr(null, new InetSocketAddress(host(), 19874), 2000);
        expect(channel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_RESOLVED);
        client.resolveRoute(2000);
        expect(channel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_RESOLVED);
        IbvContext context = client.getVerbs();
        IbvPd pd = context.allocPd();
        IbvCQ cq = context.createCQ(null, 8, 0);
        IbvQPInitAttr attr = new IbvQPInitAttr();
        attr.cap().setMax_send_wr(4);
        attr.cap().setMax_recv_wr(4);
        attr.cap().setMax_send_sge(1);
        attr.cap().setMax_recv_sge(1);
        attr.setQp_type(IbvQP.IBV_QPT_RC);
        attr.setSend_cq(cq);
        attr.setRecv_cq(cq);
        client.createQP(pd, attr);

        RdmaConnParam param = new RdmaConnParam();
        param.setPrivate_data(UNMAPPED);
        param.setPrivate_data_len((byte) 8);
        IOException unmapped = assertThrows(IOException.class, () -> client.connect(param));
        assertTrue(unmapped.getMessage().contains("private data"), unmapped.getMessage());

        ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
        IbvMr mr = pd.regMr(buffer, ACCESS).execute().free().getMr();
        param.setPrivate_data(MemoryUtils.getAddress(buffer) + 4090);
        param.setPrivate_data_len((byte) 16);
        IOException pastTheEnd = assertThrows(IOException.class, () -> client.connect(param));
        assertTrue(pastTheEnd.getMessage().contains("private data"), pastTheEnd.getMessage());

        mr.deregMr().execute().free();
        assertEquals(0, client.destroyQP());
        assertEquals(0, client.destroyId());
        assertEquals(0, channel.destroyEventChannel());
        cq.destroyCQ();
        pd.deallocPd();
    }

    /**
     * A buffer of an arena is refused ({@code IOException}): the arena could free it under the device. A region
     * registered by address inside a registered buffer keeps that buffer's memory (an inline send from it was a
     * SIGSEGV in the provider's copy once the buffer's arena closed): with the buffer's own region deregistered and
     * the buffer unreachable, an inline send from the inner region still carries the buffer's bytes. A length
     * running past the buffer is refused.
     */
    @Test
    void aRegionRegisteredByAddressInsideABufferKeepsItsMemory() throws Exception {
        try (Context device = open(); Arena arena = Arena.ofShared()) {
            IbvContext context = IbvContext.of(device);
            IbvPd pd = context.allocPd();
            IOException arenaBuffer = assertThrows(IOException.class,
                    () -> pd.regMr(arena.allocate(4096).asByteBuffer(), ACCESS).execute());
            assertTrue(arenaBuffer.getMessage().contains("register(arena, segment)"), arenaBuffer.getMessage());

            IbvCQ cq = context.createCQ(null, 16, 0);
            QueuePair qp = pd.pv.createQueuePair(QpConfig.builder(cq.pv)
                    .capabilities(QpCapabilities.of(8, 8).withMaxInlineData(64)).build());
            assumeTrue(qp.capabilities().maxInlineData() >= 16, "the queue pair has no inline room");
            QueuePair.connectLoopback(qp, qp);
            IbvQP wrapped = new IbvQP(qp, pd, cq, cq, 1);

            ByteBuffer big = ByteBuffer.allocateDirect(2 * 4096);
            for (int i = 0; i < 16; i++) {
                big.put(4096 + i, (byte) (0x40 + i));
            }
            IbvMr whole = pd.regMr(big, ACCESS).execute().free().getMr();
            long inside = MemoryUtils.getAddress(big) + 4096;
            assertThrows(IOException.class, () -> pd.regMr(inside, 2 * 4096, ACCESS).execute(),
                    "a length running past the registered buffer");
            IbvMr part = pd.regMr(inside, 4096, ACCESS).execute().free().getMr();
            whole.deregMr().execute().free();
            big = null;
            System.gc(); // the buffer is reachable through the inner region alone now
            ByteBuffer in = ByteBuffer.allocateDirect(256);
            IbvMr inMr = pd.regMr(in, ACCESS).execute().free().getMr();

            IbvRecvWR recv = new IbvRecvWR();
            recv.setWr_id(1);
            recv.setSg_list(new LinkedList<>(List.of(CmLoopbackDeviceTest.sge(inMr, 0, 256))));
            wrapped.postRecv(List.of(recv), null).execute();
            IbvSendWR send = new IbvSendWR();
            send.setWr_id(2);
            send.setOpcode(IbvSendWR.IBV_WR_SEND);
            send.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED | IbvSendWR.IBV_SEND_INLINE);
            send.setSg_list(new LinkedList<>(List.of(CmLoopbackDeviceTest.sge(part, 0, 16))));
            wrapped.postSend(List.of(send), null).execute();
            IbvWC[] wcs = new IbvWC[4];
            SVCPollCq poll = cq.poll(wcs, wcs.length);
            int done = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (done < 2 && System.nanoTime() < deadline) {
                done += poll.execute().getPolls();
            }
            assertEquals(2, done, "the send from the region inside the buffer and its receive completed");
            for (int i = 0; i < 16; i++) {
                assertEquals((byte) (0x40 + i), in.get(i), "byte " + i + " of the inline send");
            }
            part.deregMr().execute().free();
            inMr.deregMr().execute().free();
            qp.close();
            cq.destroyCQ();
            pd.deallocPd();
        }
    }

    /**
     * A thread per request, each executing the same stateful call once: a thread's native chain is released once
     * the thread has ended (at the latest when the next new thread executes the call), so the chains held stay
     * at the threads alive, not at every thread that ever executed the call.
     */
    @Test
    void chainsOfEndedThreadsAreReleased() throws Exception {
        try (Context device = open()) {
            IbvContext context = IbvContext.of(device);
            IbvCQ cq = context.createCQ(null, 16, 0);
            IbvWC[] wcs = new IbvWC[4];
            PollCqCall poll = (PollCqCall) cq.poll(wcs, wcs.length);
            for (int i = 0; i < 200; i++) {
                AtomicReference<Throwable> failed = new AtomicReference<>();
                Thread request = Thread.ofVirtual().start(() -> {
                    try {
                        poll.execute();
                    } catch (Throwable e) {
                        failed.set(e);
                    }
                });
                request.join();
                assertEquals(null, failed.get());
            }
            poll.execute(); // this thread's chain; the ended threads' are released by now
            assertTrue(poll.chainsHeld() <= 2, poll.chainsHeld() + " chains held after 200 ended threads");
            poll.free();
            cq.destroyCQ();
        }
    }

    /**
     * A thread in {@code getCqEvent(cq, -1)} (no timeout) while another destroys the queue and the channel, as
     * DiSNI's {@code RdmaCqProcessor} shutdown does: it ends at once in {@code IOException}. Before, it stayed
     * blocked after both destroys returned.
     */
    @Test
    void aWaitForACompletionEventEndsWhenTheChannelIsDestroyed() throws Exception {
        try (Context device = open()) {
            IbvContext context = IbvContext.of(device);
            IbvCompChannel channel = context.createCompChannel();
            IbvCQ cq = context.createCQ(channel, 16, 0);
            cq.reqNotification(false).execute().free();
            java.util.concurrent.CompletableFuture<Throwable> ended = new java.util.concurrent.CompletableFuture<>();
            Thread waiter = Thread.ofPlatform().start(() -> {
                try {
                    channel.getCqEvent(cq, -1);
                    ended.complete(null);
                } catch (Throwable t) {
                    ended.complete(t);
                }
            });
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (waiter.getState() != Thread.State.WAITING && waiter.getState() != Thread.State.TIMED_WAITING) {
                assertTrue(System.nanoTime() < deadline && waiter.isAlive(), "the waiter did not park: " + ended.getNow(null));
                Thread.sleep(10);
            }
            Thread.sleep(100);
            cq.destroyCQ();
            channel.destroyCompChannel();
            Throwable outcome = ended.get(20, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(outcome instanceof IOException, "the waiter ended with IOException: " + outcome);
            assertTrue(outcome.getMessage().contains("ibv_get_cq_event"), outcome.getMessage());
        }
    }

    /**
     * A thread in {@code getCmEvent(-1)} (no timeout) while another destroys the event channel: it ends at once in
     * {@code IOException}, and so does every later wait. Before, it stayed blocked for good.
     */
    @Test
    void aWaitForAnRdmaCmEventEndsWhenTheChannelIsDestroyed() throws Exception {
        RdmaEventChannel channel = RdmaEventChannel.createEventChannel();
        channel.createId(RdmaCm.RDMA_PS_TCP);
        java.util.concurrent.CompletableFuture<Throwable> ended = new java.util.concurrent.CompletableFuture<>();
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                channel.getCmEvent(-1);
                ended.complete(null);
            } catch (Throwable t) {
                ended.complete(t);
            }
        });
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (waiter.getState() != Thread.State.WAITING) {
            assertTrue(System.nanoTime() < deadline && waiter.isAlive(), "the waiter did not park: " + ended.getNow(null));
            Thread.sleep(10);
        }
        channel.destroyEventChannel();
        Throwable outcome = ended.get(20, java.util.concurrent.TimeUnit.SECONDS);
        assertTrue(outcome instanceof IOException, "the waiter ended with IOException: " + outcome);
        assertTrue(outcome.getMessage().contains("closed"), outcome.getMessage());
        assertThrows(IOException.class, () -> channel.getCmEvent(1000), "a later wait on the destroyed channel");
    }

    /** A {@code num_sge} far beyond its list, in more than one request: IOException, not NegativeArraySizeException. */
    @Test
    void scatterGatherCountsBeyondTheirListsAreRefused() throws Exception {
        try (Context device = open()) {
            IbvContext context = IbvContext.of(device);
            IbvPd pd = context.allocPd();
            IbvCQ cq = context.createCQ(null, 16, 0);
            QueuePair qp = pd.pv.createQueuePair(QpConfig.builder(cq.pv).build());
            IbvQP wrapped = new IbvQP(qp, pd, cq, cq, 1);
            ByteBuffer buffer = ByteBuffer.allocateDirect(64);
            IbvMr mr = pd.regMr(buffer, ACCESS).execute().free().getMr();
            List<IbvSendWR> sends = new LinkedList<>();
            List<IbvRecvWR> recvs = new LinkedList<>();
            for (int i = 0; i < 2; i++) {
                IbvSendWR send = new IbvSendWR();
                send.setOpcode(IbvSendWR.IBV_WR_SEND);
                send.setSg_list(new LinkedList<>(List.of(CmLoopbackDeviceTest.sge(mr, 0, 8))));
                send.setNum_sge(Integer.MAX_VALUE);
                sends.add(send);
                IbvRecvWR recv = new IbvRecvWR();
                recv.setSg_list(new LinkedList<>(List.of(CmLoopbackDeviceTest.sge(mr, 0, 8))));
                recv.setNum_sge(Integer.MAX_VALUE);
                recvs.add(recv);
            }
            IOException send = assertThrows(IOException.class, () -> wrapped.postSend(sends, null));
            assertTrue(send.getMessage().contains("num_sge"), send.getMessage());
            IOException recv = assertThrows(IOException.class, () -> wrapped.postRecv(recvs, null));
            assertTrue(recv.getMessage().contains("num_sge"), recv.getMessage());
            mr.deregMr().execute().free();
            qp.close();
            cq.destroyCQ();
            pd.deallocPd();
        }
    }
}
