package com.ibm.disni.verbs;

import static com.ibm.disni.DeviceUnderTest.open;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.ibm.disni.DeviceUnderTest;
import com.ibm.disni.util.MemoryUtils;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.panamaverbs.junit.RequiresRdmaDevice;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.RdmaDevice;

/**
 * DiSNI's verbs API ({@code IbvPd.regMr}, {@code IbvQP.postSend/postRecv}, {@code IbvCQ.poll},
 * notifications, mods of a reused {@code SVCPostSend}) on a real device, between two RC queue pairs of this
 * process. The queue pairs are made with Panama Verbs and wrapped, since {@code RdmaCmId.createQP} (the
 * DiSNI way) is not in this module yet; everything after that is DiSNI's API.
 */
@RequiresRdmaDevice
class VerbsLoopbackDeviceTest {
    private static final int ACCESS = IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE
            | IbvMr.IBV_ACCESS_REMOTE_READ;

    /** The device (and address) the project's JUnit kit chose. */
    @BeforeAll
    static void chosenDevice(RdmaDevice device) {
        DeviceUnderTest.use(device);
    }

    @Test
    void sendReceiveWriteReadAndNotificationsThroughDisnisApi() throws Exception {
        try (Context device = open()) {
            IbvContext context = IbvContext.of(device);
            assertSame(context, IbvContext.of(device), "one IbvContext per device context");
            IbvPd pd = context.allocPd();
            IbvCompChannel channel = context.createCompChannel();
            IbvCQ cq = context.createCQ(channel, 64, 0);
            assertTrue(cq.getCqe() >= 64);
            assertThrows(IOException.class, () -> context.createCQ(null, 8, 1), "only vector 0 is offered");
            QpConfig config = QpConfig.builder(cq.pv)
                    .capabilities(QpCapabilities.of(16, 16).withMaxSendSge(2).withMaxRecvSge(2)).build();
            QueuePair a = pd.pv.createQueuePair(config);
            QueuePair b = pd.pv.createQueuePair(config);
            QueuePair.connectLoopback(a, b);
            IbvQP qa = new IbvQP(a, pd, cq, cq, 1);
            IbvQP qb = new IbvQP(b, pd, cq, cq, 2);
            assertEquals(IbvQP.IBV_QPS_RTS, qa.getState());
            assertEquals(IbvQP.IBV_QPT_RC, qa.getQp_type());

            ByteBuffer src = ByteBuffer.allocateDirect(4096);
            ByteBuffer dst = ByteBuffer.allocateDirect(4096);
            ByteBuffer in = ByteBuffer.allocateDirect(4096);
            IbvMr srcMr = pd.regMr(src, ACCESS).execute().free().getMr();
            IbvMr dstMr = pd.regMr(dst, ACCESS).execute().free().getMr();
            SVCRegMr inCall = pd.regMr(in, ACCESS);
            IbvMr inMr = inCall.execute().free().getMr();
            assertFalse(inCall.isValid());
            assertNotNull(inCall.getMr(), "getMr() works after free()");
            assertEquals(MemoryUtils.getAddress(src), srcMr.getAddr());
            assertEquals(4096, srcMr.getLength());
            assertSame(context, srcMr.getContext());

            IbvWC[] wcs = new IbvWC[8];
            SVCPollCq poll = cq.poll(wcs, wcs.length);

            // SEND / RECV, with immediate data
            IbvRecvWR recv = new IbvRecvWR();
            recv.setWr_id(100);
            recv.setSg_list(list(sge(inMr, 0, 256)));
            SVCPostRecv postRecv = qb.postRecv(List.of(recv), null);
            assertEquals(100, postRecv.getWrMod(0).getWr_id());
            postRecv.execute();
            byte[] hello = "Hello from DiSNI's API".getBytes(StandardCharsets.UTF_16BE);
            src.put(0, hello);
            IbvSendWR send = new IbvSendWR();
            send.setWr_id(200);
            send.setOpcode(IbvSendWR.IBV_WR_SEND_WITH_IMM);
            send.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
            send.setImm_data(0x12345678);
            send.setSg_list(list(sge(srcMr, 0, hello.length)));
            qa.postSend(List.of(send), null).execute().free();
            Map<Long, IbvWC> done = take(poll, wcs, 2);
            IbvWC sent = done.get(200L);
            IbvWC received = done.get(100L);
            assertEquals(IbvWC.IbvWcStatus.IBV_WC_SUCCESS.ordinal(), sent.getStatus());
            assertEquals(IbvWC.IbvWcOpcode.IBV_WC_SEND.getOpcode(), sent.getOpcode());
            assertEquals(a.qpNumber(), sent.getQp_num());
            assertEquals(IbvWC.IbvWcStatus.IBV_WC_SUCCESS.ordinal(), received.getStatus());
            assertEquals(128, received.getOpcode());
            assertEquals(hello.length, received.getByte_len());
            assertEquals(0x12345678, received.getImm_data(), "immediate data arrives as DiSNI wrote it");
            assertEquals(b.qpNumber(), received.getQp_num());
            assertArrayEquals(hello, bytes(in, 0, hello.length));

            // RDMA WRITE, one SVC reused with its mods: lengths 10..100 to offsets 10..100
            for (int i = 0; i < 256; i++) {
                src.put(i, (byte) (i * 7 + 1));
            }
            IbvSendWR write = new IbvSendWR();
            write.setOpcode(IbvSendWR.IbvWrOcode.IBV_WR_RDMA_WRITE.ordinal());
            write.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
            write.getRdma().setRemote_addr(dstMr.getAddr());
            write.getRdma().setRkey(dstMr.getRkey());
            write.setSg_list(list(sge(srcMr, 0, 1)));
            SVCPostSend writes = qa.postSend(List.of(write), null);
            for (int len = 10; len <= 100; len += 10) {
                SVCPostSend.SendWRMod mod = writes.getWrMod(0);
                mod.setWr_id(1000 + len);
                mod.getSgeMod(0).setLength(len);
                mod.getRdmaMod().setRemote_addr(dstMr.getAddr() + 1000 + len);
                writes.execute();
                IbvWC wc = take(poll, wcs, 1).get(1000L + len);
                assertEquals(0, wc.getStatus());
                assertEquals(IbvWC.IbvWcOpcode.IBV_WC_RDMA_WRITE.getOpcode(), wc.getOpcode());
                assertArrayEquals(bytes(src, 0, len), bytes(dst, 1000 + len, len), "write of " + len + " bytes");
            }

            // each kind of field changed alone reaches the chain (the call rewrites only what changed): the
            // identifier, then the remote address, then the length (the same wr_id after the first); the
            // destination is cleared before each post
            SVCPostSend.SendWRMod mod = writes.getWrMod(0);
            long[][] steps = {{7001, 1100, 100}, {7001, 1700, 100}, {7001, 1700, 30}}; // the loop left 1100 and 100
            for (long[] step : steps) {
                mod.setWr_id(step[0]);
                mod.getRdmaMod().setRemote_addr(dstMr.getAddr() + step[1]);
                mod.getSgeMod(0).setLength((int) step[2]);
                for (int i = 0; i < 200; i++) {
                    dst.put((int) step[1] + i, (byte) 0);
                }
                writes.execute();
                IbvWC wc = take(poll, wcs, 1).get(step[0]);
                assertEquals(0, wc.getStatus(), "write " + step[0]);
                assertArrayEquals(bytes(src, 0, (int) step[2]), bytes(dst, (int) step[1], (int) step[2]), "write " + step[0]);
                assertEquals(0, dst.get((int) (step[1] + step[2])), "write " + step[0] + " wrote no more than its length");
            }

            // RDMA READ back into the receive buffer, several entries in one request
            IbvSendWR read = new IbvSendWR();
            read.setWr_id(3000);
            read.setOpcode(IbvSendWR.IBV_WR_RDMA_READ);
            read.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
            read.getRdma().setRemote_addr(dstMr.getAddr() + 1100);
            read.getRdma().setRkey(dstMr.getRkey());
            read.setSg_list(list(sge(inMr, 2000, 60), sge(inMr, 3000, 40)));
            qa.postSend(List.of(read), null).execute();
            assertEquals(0, take(poll, wcs, 1).get(3000L).getStatus());
            assertArrayEquals(bytes(src, 0, 60), bytes(in, 2000, 60));
            assertArrayEquals(bytes(src, 60, 40), bytes(in, 3000, 40));

            // executing again allocates nothing (after the first execution on this thread)
            SVCPostSend again = qa.postSend(List.of(write), null);
            again.getWrMod(0).getSgeMod(0).setLength(8);
            long allocated = 0;
            for (int round = 0; round < 2; round++) {
                long before = allocatedBytes();
                for (int i = 0; i < 500; i++) {
                    again.getWrMod(0).setWr_id(5000 + i);
                    again.execute();
                    int seen = 0;
                    while (seen == 0) {
                        seen = poll.execute().getPolls();
                    }
                }
                allocated = allocatedBytes() - before;
            }
            System.out.println("disni verbs: " + allocated + " bytes allocated by 500 executions of a reused SVCPostSend"
                    + " and the SVCPollCq executions that took their completions");
            assertTrue(allocated < 4096, allocated + " bytes allocated by 500 executions and polls");

            // completion events: arm, post, wait on the channel, acknowledge
            cq.reqNotification(false).execute().free();
            again.execute();
            assertTrue(channel.getCqEvent(cq, 10_000), "the armed queue signalled its channel");
            assertEquals(0, cq.ackEvents(1));
            take(poll, wcs, 1);

            // a request naming deregistered memory is refused before the provider sees it
            SVCPostSend stale = qa.postSend(List.of(send), null);
            srcMr.deregMr().execute().free();
            IOException e = assertThrows(IOException.class, stale::execute);
            assertTrue(e.getMessage().contains("lkey"), e.getMessage());
            // and so is one whose chain was written (and posted 1000 times) while the region was open
            IOException reused = assertThrows(IOException.class, again::execute);
            assertTrue(reused.getMessage().contains("lkey"), reused.getMessage());

            poll.free();
            assertThrows(IOException.class, poll::execute, "a freed call cannot execute");
            assertEquals(0, cq.destroyCQ());
            assertTrue(a.isClosed(), "destroying the queue closed the queue pairs using it");
            assertEquals(0, channel.destroyCompChannel());
            pd.deallocPd();
            assertTrue(pd.pv.isClosed());
            assertTrue(dstMr.pv.isClosed(), "deallocating the domain closed its regions");
        }
    }

    /**
     * One reused {@code SVCPostSend} executed by two threads, its mods made on either: every execution posts the
     * values of the last mods, whichever thread made them and whichever thread's chain posts (the first thread to
     * execute takes a change of {@code wr_id} made on it straight into its chain; the other thread's chain and a
     * change made on the other thread reach the chain at its next execution). The completions' identifiers and the
     * written bytes show what each post carried.
     */
    @Test
    void aModReachesTheChainOfEveryThreadThatExecutesTheCall() throws Exception {
        ExecutorService other = Executors.newSingleThreadExecutor();
        try (Context device = open()) {
            IbvContext context = IbvContext.of(device);
            IbvPd pd = context.allocPd();
            IbvCQ cq = context.createCQ(null, 32, 0);
            QpConfig config = QpConfig.builder(cq.pv).capabilities(QpCapabilities.of(16, 16)).build();
            QueuePair a = pd.pv.createQueuePair(config);
            QueuePair b = pd.pv.createQueuePair(config);
            QueuePair.connectLoopback(a, b);
            IbvQP qa = new IbvQP(a, pd, cq, cq, 1);
            ByteBuffer src = ByteBuffer.allocateDirect(4096);
            ByteBuffer dst = ByteBuffer.allocateDirect(4096);
            for (int i = 0; i < 64; i++) {
                src.put(i, (byte) (i + 1));
            }
            IbvMr srcMr = pd.regMr(src, ACCESS).execute().free().getMr();
            IbvMr dstMr = pd.regMr(dst, ACCESS).execute().free().getMr();
            IbvWC[] wcs = new IbvWC[4];
            SVCPollCq poll = cq.poll(wcs, wcs.length);

            IbvSendWR write = new IbvSendWR();
            write.setWr_id(1);
            write.setOpcode(IbvSendWR.IBV_WR_RDMA_WRITE);
            write.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
            write.getRdma().setRemote_addr(dstMr.getAddr());
            write.getRdma().setRkey(dstMr.getRkey());
            write.setSg_list(list(sge(srcMr, 0, 64)));
            SVCPostSend writes = qa.postSend(List.of(write), null);
            SVCPostSend.SendWRMod mod = writes.getWrMod(0);
            Callable<Void> executeThere = () -> {
                writes.execute();
                return null;
            };

            writes.execute(); // this thread executes first
            assertEquals(0, take(poll, wcs, 1).get(1L).getStatus());
            mod.setWr_id(2); // on the first thread: into its chain at once
            other.submit(executeThere).get(); // the other thread's first chain, written from the call's values
            assertEquals(0, take(poll, wcs, 1).get(2L).getStatus(), "the other thread posted wr_id 2");
            writes.execute();
            assertEquals(0, take(poll, wcs, 1).get(2L).getStatus(), "the first thread posted wr_id 2");
            other.submit(() -> {
                mod.setWr_id(3); // on the other thread
                return null;
            }).get();
            writes.execute();
            assertEquals(0, take(poll, wcs, 1).get(3L).getStatus(), "the first thread posted the other thread's wr_id 3");
            other.submit(executeThere).get();
            assertEquals(0, take(poll, wcs, 1).get(3L).getStatus(), "the other thread posted wr_id 3");
            mod.setWr_id(4);
            mod.getRdmaMod().setRemote_addr(dstMr.getAddr() + 100);
            other.submit(executeThere).get();
            assertEquals(0, take(poll, wcs, 1).get(4L).getStatus(), "the other thread posted wr_id 4");
            assertArrayEquals(bytes(src, 0, 64), bytes(dst, 100, 64), "the other thread wrote to the new address");
            dst.put(100, new byte[64]);
            writes.execute();
            assertEquals(0, take(poll, wcs, 1).get(4L).getStatus(), "the first thread posted wr_id 4");
            assertArrayEquals(bytes(src, 0, 64), bytes(dst, 100, 64), "the first thread wrote to the new address");
            mod.setWr_id(5); // the first thread's chain was rewritten for the address: the identifier goes in again
            writes.execute();
            assertEquals(0, take(poll, wcs, 1).get(5L).getStatus(), "the first thread posted wr_id 5");

            writes.free();
            assertThrows(IOException.class, writes::execute, "a freed call cannot execute");
            ExecutionException there = assertThrows(ExecutionException.class, () -> other.submit(executeThere).get());
            assertTrue(there.getCause() instanceof IOException, String.valueOf(there.getCause()));
            mod.setWr_id(6); // a mod of a freed call changes nothing native
            poll.free();
            a.close();
            b.close();
            cq.destroyCQ();
            pd.deallocPd();
        } finally {
            other.shutdownNow();
        }
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().threadId());
    }

    private static Map<Long, IbvWC> take(SVCPollCq poll, IbvWC[] wcs, int count) throws IOException {
        Map<Long, IbvWC> done = new HashMap<>();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (done.size() < count) {
            int n = poll.execute().getPolls();
            for (int i = 0; i < n; i++) {
                done.put(wcs[i].getWr_id(), wcs[i].clone());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("only " + done.size() + " of " + count + " completions in 30 s: " + done.keySet());
            }
        }
        return done;
    }

    private static IbvSge sge(IbvMr mr, int offset, int length) {
        IbvSge sge = new IbvSge();
        sge.setAddr(mr.getAddr() + offset);
        sge.setLength(length);
        sge.setLkey(mr.getLkey());
        return sge;
    }

    private static LinkedList<IbvSge> list(IbvSge... sges) {
        return new LinkedList<>(List.of(sges));
    }

    private static byte[] bytes(ByteBuffer buffer, int offset, int length) {
        byte[] b = new byte[length];
        buffer.get(offset, b);
        return b;
    }
}
