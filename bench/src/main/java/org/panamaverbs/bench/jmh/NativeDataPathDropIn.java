package org.panamaverbs.bench.jmh;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.panamaverbs.bench.stub.StubProvider;

/**
 * The DiSNI drop-in's data path ({@code SVCPostSend}, {@code SVCPostRecv}, {@code SVCPollCq} of
 * {@code panama-verbs-disni}) against the stub provider, the same operations and loop as
 * {@link NativeDataPath}'s C, Java and JNI benchmarks, so {@code bench/native-datapath} can set the drop-in
 * beside DiSNI-style JNI ({@code NativeDataPath.*Jni}) at native speed. The objects are made as a DiSNI program
 * makes them, through the drop-in's public API only ({@link DropInStub}: event channel, id bound to an address,
 * {@code getVerbs()}, protection domain, completion queue, {@code createQP}, {@code regMr}), on the stand-in
 * libibverbs and librdmacm of {@link StubProvider}.
 *
 * <p>Variants: {@code postSendDropIn} patches {@code wr_id} of request 0 through its mod before each post,
 * as {@code postSendJni} does; {@code postSendDropInNoId} executes the call unchanged, as a program that
 * reuses one SVC as it is; {@code postRecvDropIn} executes unchanged (DiSNI's receive mod has no setter);
 * {@code pollDropIn} polls into {@code IbvWC} objects and sums their {@code wr_id}, as {@code pollJni}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class NativeDataPathDropIn {
    private static final int LOOP = NativeDataPath.LOOP;
    private static final int SLOTS = NativeDataPath.SLOTS;
    private static final int MESSAGE = 64;

    /**
     * A DiSNI program's setup on the stand-in's device, opened once per trial: an rdma_cm id bound to the loopback
     * address gives the device ({@code getVerbs()}); on it a protection domain, one completion queue for both
     * directions, an RC queue pair made by {@code createQP} and a registered direct buffer of
     * {@link StubProvider#REGION_SIZE} bytes. Torn down in DiSNI's order.
     */
    @State(Scope.Thread)
    public static class DropInStub {
        RdmaEventChannel channel;
        RdmaCmId id;
        IbvPd pd;
        IbvCQ cq;
        IbvQP qp;
        IbvMr mr;

        @Setup(Level.Trial)
        public void open() throws IOException {
            channel = RdmaEventChannel.createEventChannel();
            id = channel.createId(RdmaCm.RDMA_PS_TCP);
            id.bindAddr(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            IbvContext context = id.getVerbs();
            pd = context.allocPd();
            cq = context.createCQ(null, StubProvider.CQ_ENTRIES, 0);
            IbvQPInitAttr attr = new IbvQPInitAttr();
            attr.cap().setMax_send_wr(StubProvider.DEPTH);
            attr.cap().setMax_recv_wr(StubProvider.DEPTH);
            attr.cap().setMax_send_sge(StubProvider.MAX_SGE);
            attr.cap().setMax_recv_sge(StubProvider.MAX_SGE);
            attr.setQp_type(IbvQP.IBV_QPT_RC);
            attr.setSend_cq(cq);
            attr.setRecv_cq(cq);
            qp = id.createQP(pd, attr);
            ByteBuffer buffer = ByteBuffer.allocateDirect((int) StubProvider.REGION_SIZE);
            mr = pd.regMr(buffer, IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE
                    | IbvMr.IBV_ACCESS_REMOTE_READ).execute().free().getMr();
        }

        @TearDown(Level.Trial)
        public void close() throws Exception {
            if (StubProvider.totalCalls() == 0) {
                throw new IllegalStateException("nothing reached the stub provider");
            }
            mr.deregMr().execute().free();
            id.destroyQP();
            cq.destroyCQ();
            pd.deallocPd();
            id.destroyId();
            channel.destroyEventChannel();
        }
    }

    @State(Scope.Thread)
    public static class Posts {
        @Param({"1", "16"})
        public int chain;

        SVCPostSend send;
        SVCPostSend.SendWRMod firstSend;
        SVCPostRecv recv;

        @Setup(Level.Trial)
        public void build(DropInStub stub) throws IOException {
            long base = stub.mr.getAddr();
            int lkey = stub.mr.getLkey();
            List<IbvSendWR> sends = new ArrayList<>();
            List<IbvRecvWR> recvs = new ArrayList<>();
            for (int i = 0; i < chain; i++) {
                long offset = (long) i * MESSAGE;
                IbvSendWR send = new IbvSendWR();
                send.setWr_id(i);
                send.setOpcode(IbvSendWR.IBV_WR_RDMA_WRITE);
                send.setSend_flags(0);
                send.setSg_list(sge(base + offset, lkey));
                send.setNum_sge(1);
                send.getRdma().setRemote_addr(0x10000L + offset);
                send.getRdma().setRkey(0x1234);
                sends.add(send);
                IbvRecvWR recv = new IbvRecvWR();
                recv.setWr_id(i);
                recv.setSg_list(sge(base + 4096 + offset, lkey));
                recv.setNum_sge(1);
                recvs.add(recv);
            }
            send = stub.qp.postSend(sends, null);
            firstSend = send.getWrMod(0);
            recv = stub.qp.postRecv(recvs, null);
        }

        private static LinkedList<IbvSge> sge(long address, int lkey) {
            IbvSge sge = new IbvSge();
            sge.setAddr(address);
            sge.setLength(MESSAGE);
            sge.setLkey(lkey);
            LinkedList<IbvSge> list = new LinkedList<>();
            list.add(sge);
            return list;
        }

        @TearDown(Level.Trial)
        public void free() {
            send.free();
            recv.free();
        }
    }

    @State(Scope.Thread)
    public static class Polls {
        @Param({"0", "1", "16"})
        public int poll;

        IbvWC[] wcs;
        SVCPollCq svc;

        @Setup(Level.Trial)
        public void build(DropInStub stub) throws IOException {
            StubProvider.feedAll(poll); // the stub's only completion queue is the drop-in's
            wcs = new IbvWC[SLOTS];
            for (int i = 0; i < SLOTS; i++) {
                wcs[i] = new IbvWC();
            }
            svc = stub.cq.poll(wcs, SLOTS);
        }

        @TearDown(Level.Trial)
        public void free() {
            svc.free();
        }
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long postSendDropIn(Posts p) throws IOException {
        for (int i = 0; i < LOOP; i++) {
            p.firstSend.setWr_id(i);
            p.send.execute(); // DiSNI's execute() throws IOException when the post fails
        }
        return LOOP;
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long postSendDropInNoId(Posts p) throws IOException {
        for (int i = 0; i < LOOP; i++) {
            p.send.execute();
        }
        return LOOP;
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long postRecvDropIn(Posts p) throws IOException {
        for (int i = 0; i < LOOP; i++) {
            p.recv.execute();
        }
        return LOOP;
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long pollDropIn(Polls s) throws IOException {
        long sum = 0;
        for (int i = 0; i < LOOP; i++) {
            int n = s.svc.execute().getPolls();
            for (int j = 0; j < n; j++) {
                sum += s.wcs[j].getWr_id();
            }
        }
        return sum;
    }
}
