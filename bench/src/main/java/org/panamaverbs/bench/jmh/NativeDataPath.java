package org.panamaverbs.bench.jmh;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

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
import org.panamaverbs.bench.jni.DisniDispatcher;
import org.panamaverbs.bench.jni.DisniStyle;
import org.panamaverbs.bench.stub.BareDownCalls;
import org.panamaverbs.bench.stub.StubProvider;
import org.panamaverbs.bench.stub.StubProvider.Layout;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.WrOpcode;

/**
 * Issue 9: what Java adds to {@code ibv_post_send}, {@code ibv_post_recv} and {@code ibv_poll_cq} over C,
 * with no device: every implementation calls the same stub provider ({@link StubProvider}, the stand-in
 * libibverbs of {@code src/test/c/stand-in}) through the same {@code ctx->ops} pointers.
 *
 * <ul>
 *   <li>{@code *C}: the floor, a C loop of the inline verbs.h calls ({@value #LOOP} per invocation, so one
 *       downcall is spread over {@value #LOOP} operations).</li>
 *   <li>{@code *Java}: Panama Verbs' public API ({@code QueuePair.postSend/postRecv},
 *       {@code CompletionQueue.poll}) on the stand-in's device, opened with {@code Rdma.open} like any other:
 *       the library's own flyweights, in-flight markers and provider-pointer downcalls.</li>
 *   <li>{@code *Jni}: DiSNI's way ({@link DisniStyle}): a JNI native per post taking the address of a work
 *       request list serialized once from Java objects and patched in place; polls decoded into Java objects.</li>
 *   <li>Evidence, not contenders: {@code *JavaRawShared} calls the provider's function with a bare
 *       downcall ({@link BareDownCalls}) given the queue
 *       pair's scoped handle and a chain in a shared arena (what the public API passed before the in-flight
 *       markers: two shared scopes per call, without the API's checks and bookkeeping), {@code *JavaRawLong}
 *       with the pointers as {@code long}s (what the public API passes now, without its checks: the floor
 *       for an FFM call), and {@code postSendJavaPatchAll} re-sets flags and the SGE of request 0 on every post
 *       (the setter path: refreshSpecial and the SGE checks); {@code postSendJavaNoId} and
 *       {@code postSendJavaRawLongNoId} post without writing {@code wr_id}, which splits the flyweight write from
 *       the post path. {@link NativeDataPathNonCritical} runs the Java
 *       benchmarks with the downcalls linked without {@code Linker.Option.critical}.</li>
 * </ul>
 * Every implementation runs the same loop of {@value #LOOP} operations per invocation (the C one in C, the
 * others in Java), so JMH's own per-invocation cost is spread alike. Each writes {@code wr_id} of request 0 before each post and sums the {@code wr_id} of
 * every completion it polls, as an application would. Sends are unsignaled RDMA WRITEs of 64 bytes (so
 * posting queues no completion); receives are 64-byte buffers; every poll offers 16 slots and the stub
 * hands out {@code poll} completions ({@link StubProvider#feed}). Run with {@code -prof gc} for B/op:
 * {@code bench/native-datapath} does.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class NativeDataPath {
    /** Operations per invocation, in every implementation's loop. */
    public static final int LOOP = 1000;
    /** Completion slots offered to every poll. */
    public static final int SLOTS = 16;
    private static final int MESSAGE = 64;
    private static final long SEND_WR = Layout.SEND_WR_SIZE;
    private static final long RECV_WR = Layout.RECV_WR_SIZE;
    private static final long SGE = Layout.SGE_SIZE;

    /** The stub provider, opened once per trial and wrapped as an ordinary library tree. */
    @State(Scope.Thread)
    public static class Stub {
        StubProvider stub;

        @Setup(Level.Trial)
        public void open() {
            stub = new StubProvider();
        }

        @TearDown(Level.Trial)
        public void close() {
            if (stub.sends() + stub.recvs() + stub.pollCalls() == 0) {
                throw new IllegalStateException("nothing reached the stub provider");
            }
            stub.close();
        }
    }

    /** The chains, in each implementation's own form, with the same content. */
    @State(Scope.Thread)
    public static class Posts {
        @Param({"1", "16"})
        public int chain;

        StubProvider stub;
        SendChain sends;
        RecvChain recvs;
        DisniStyle.PostSend jniSend;
        DisniStyle.PostRecv jniRecv;
        Arena arena;
        MemorySegment sendShared;
        MemorySegment recvShared;
        MemorySegment badShared;
        MemorySegment sendGlobal;
        MemorySegment recvGlobal;
        MemorySegment badGlobal;
        MemorySegment qpShared;
        MemorySegment qpGlobal;
        MemorySegment postSendFunction;
        MemorySegment postRecvFunction;

        @Setup(Level.Trial)
        public void build(Stub holder) {
            stub = holder.stub;
            long base = stub.region.address();
            int lkey = stub.region.lkey();
            sends = SendChain.allocate(chain, 1);
            recvs = RecvChain.allocate(chain, 1);
            List<DisniStyle.SendWr> disniSends = new ArrayList<>();
            List<DisniStyle.RecvWr> disniRecvs = new ArrayList<>();
            arena = Arena.ofShared();
            sendShared = arena.allocate(SEND_WR * chain + SGE * chain, 8);
            recvShared = arena.allocate(RECV_WR * chain + SGE * chain, 8);
            badShared = arena.allocate(ADDRESS);
            for (int i = 0; i < chain; i++) {
                long offset = (long) i * MESSAGE;
                long remote = 0x10000L + offset;
                sends.get(i).wrId(i).opcode(WrOpcode.RDMA_WRITE).flags(0).sge(stub.region, offset, MESSAGE)
                        .remote(remote, 0x1234);
                recvs.get(i).wrId(i).sge(stub.region, 4096 + offset, MESSAGE);
                disniSends.add(new DisniStyle.SendWr(i, WrOpcode.RDMA_WRITE.code(), 0, remote, 0x1234,
                        new DisniStyle.Sge(base + offset, MESSAGE, lkey)));
                disniRecvs.add(new DisniStyle.RecvWr(i, new DisniStyle.Sge(base + 4096 + offset, MESSAGE, lkey)));
                writeSend(sendShared, i, chain, base + offset, lkey, remote);
                writeRecv(recvShared, i, chain, base + 4096 + offset, lkey);
            }
            DisniDispatcher dispatcher = new DisniDispatcher();
            qpShared = stub.qp.handle();
            qpGlobal = MemorySegment.ofAddress(qpShared.address());
            jniSend = new DisniStyle.PostSend(dispatcher, qpGlobal.address(), disniSends);
            jniRecv = new DisniStyle.PostRecv(dispatcher, qpGlobal.address(), disniRecvs);
            sendGlobal = MemorySegment.ofAddress(sendShared.address()).reinterpret(sendShared.byteSize());
            recvGlobal = MemorySegment.ofAddress(recvShared.address()).reinterpret(recvShared.byteSize());
            badGlobal = MemorySegment.ofAddress(badShared.address()).reinterpret(8);
            postSendFunction = stub.postSendFunction;
            postRecvFunction = stub.postRecvFunction;
        }

        private static void writeSend(MemorySegment wrs, int i, int n, long addr, int lkey, long remote) {
            long at = i * SEND_WR;
            long sge = n * SEND_WR + i * SGE;
            wrs.set(JAVA_LONG, at + Layout.SEND_WR_WR_ID, i);
            wrs.set(JAVA_LONG, at + Layout.SEND_WR_NEXT, i + 1 < n ? wrs.address() + at + SEND_WR : 0);
            wrs.set(JAVA_LONG, at + Layout.SEND_WR_SG_LIST, wrs.address() + sge);
            wrs.set(JAVA_INT, at + Layout.SEND_WR_NUM_SGE, 1);
            wrs.set(JAVA_INT, at + Layout.SEND_WR_OPCODE, WrOpcode.RDMA_WRITE.code());
            wrs.set(JAVA_INT, at + Layout.SEND_WR_SEND_FLAGS, 0);
            wrs.set(JAVA_LONG, at + Layout.SEND_WR_REMOTE_ADDR, remote);
            wrs.set(JAVA_INT, at + Layout.SEND_WR_RKEY, 0x1234);
            writeSge(wrs, sge, addr, lkey);
        }

        private static void writeRecv(MemorySegment wrs, int i, int n, long addr, int lkey) {
            long at = i * RECV_WR;
            long sge = n * RECV_WR + i * SGE;
            wrs.set(JAVA_LONG, at + Layout.RECV_WR_WR_ID, i);
            wrs.set(JAVA_LONG, at + Layout.RECV_WR_NEXT, i + 1 < n ? wrs.address() + at + RECV_WR : 0);
            wrs.set(JAVA_LONG, at + Layout.RECV_WR_SG_LIST, wrs.address() + sge);
            wrs.set(JAVA_INT, at + Layout.RECV_WR_NUM_SGE, 1);
            writeSge(wrs, sge, addr, lkey);
        }

        private static void writeSge(MemorySegment wrs, long at, long addr, int lkey) {
            wrs.set(JAVA_LONG, at + Layout.SGE_ADDR, addr);
            wrs.set(JAVA_INT, at + Layout.SGE_LENGTH, MESSAGE);
            wrs.set(JAVA_INT, at + Layout.SGE_LKEY, lkey);
        }

        @TearDown(Level.Trial)
        public void free() {
            sends.close();
            recvs.close();
            arena.close();
        }
    }

    /** The completion arrays, in each implementation's own form, and the stub fed with {@code poll} per poll. */
    @State(Scope.Thread)
    public static class Polls {
        @Param({"0", "1", "16"})
        public int poll;

        StubProvider stub;
        CompletionArray completions;
        DisniStyle.PollCq jniPoll;
        DisniStyle.Wc[] jniWcs;
        Arena arena;
        MemorySegment wcShared;
        MemorySegment wcGlobal;
        MemorySegment cqShared;
        MemorySegment cqGlobal;
        MemorySegment pollFunction;

        @Setup(Level.Trial)
        public void build(Stub holder) {
            stub = holder.stub;
            stub.feed(poll);
            completions = CompletionArray.allocate(SLOTS);
            jniWcs = new DisniStyle.Wc[SLOTS];
            for (int i = 0; i < SLOTS; i++) {
                jniWcs[i] = new DisniStyle.Wc();
            }
            cqShared = stub.cq.handle();
            cqGlobal = MemorySegment.ofAddress(cqShared.address());
            jniPoll = new DisniStyle.PollCq(new DisniDispatcher(), cqGlobal.address(), jniWcs, SLOTS);
            arena = Arena.ofShared();
            wcShared = arena.allocate(Layout.WC_SIZE * SLOTS, 8);
            wcGlobal = MemorySegment.ofAddress(wcShared.address()).reinterpret(wcShared.byteSize());
            pollFunction = stub.pollCqFunction;
        }

        @TearDown(Level.Trial)
        public void free() {
            completions.close();
            arena.close();
        }
    }

    // ---- post_send ----
    // Every implementation runs the same loop as the C floor: LOOP posts per invocation, each writing wr_id
    // of request 0 first, counting failed posts; so JMH's own per-invocation cost is spread the same way.

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long postSendC(Posts p) {
        return StubProvider.cPostSendLoop(p.qpGlobal, p.sendGlobal, LOOP);
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long postSendJava(Posts p) {
        QueuePair qp = p.stub.qp;
        SendChain sends = p.sends;
        long failed = 0;
        for (int i = 0; i < LOOP; i++) {
            sends.get(0).wrId(i);
            failed += qp.postSend(sends, p.chain) != 0 ? 1 : 0;
        }
        return failed;
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long postSendJni(Posts p) throws IOException {
        for (int i = 0; i < LOOP; i++) {
            p.jniSend.getWrMod(0).setWr_id(i);
            p.jniSend.execute(); // DiSNI's execute() throws IOException when the post fails
        }
        return LOOP;
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long postSendJavaRawShared(Posts p) {
        long failed = 0;
        for (int i = 0; i < LOOP; i++) {
            p.sendShared.set(JAVA_LONG, Layout.SEND_WR_WR_ID, i);
            failed += BareDownCalls.post(p.postSendFunction, p.qpShared, p.sendShared, p.badShared) != 0 ? 1 : 0;
        }
        return failed;
    }

    /** As {@link #postSendJava} without writing {@code wr_id}: the post path alone, without the flyweight write. */
    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long postSendJavaNoId(Posts p) {
        QueuePair qp = p.stub.qp;
        SendChain sends = p.sends;
        long failed = 0;
        for (int i = 0; i < LOOP; i++) {
            failed += qp.postSend(sends, p.chain) != 0 ? 1 : 0;
        }
        return failed;
    }

    /** As {@link #postSendJavaRawLong} without writing {@code wr_id}: the FFM call alone. */
    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long postSendJavaRawLongNoId(Posts p) {
        long qp = p.qpGlobal.address();
        long wr = p.sendGlobal.address();
        long bad = p.badGlobal.address();
        long failed = 0;
        for (int i = 0; i < LOOP; i++) {
            failed += BareDownCalls.post(p.postSendFunction, qp, wr, bad) != 0 ? 1 : 0;
        }
        return failed;
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long postSendJavaRawLong(Posts p) {
        long qp = p.qpGlobal.address();
        long wr = p.sendGlobal.address();
        long bad = p.badGlobal.address();
        long failed = 0;
        for (int i = 0; i < LOOP; i++) {
            p.sendGlobal.set(JAVA_LONG, Layout.SEND_WR_WR_ID, i);
            failed += BareDownCalls.post(p.postSendFunction, qp, wr, bad) != 0 ? 1 : 0;
        }
        return failed;
    }

    /** As {@link #postSendJava}, re-setting flags and SGE of request 0 each time: the setters' own cost. */
    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long postSendJavaPatchAll(Posts p) {
        QueuePair qp = p.stub.qp;
        SendChain sends = p.sends;
        long failed = 0;
        for (int i = 0; i < LOOP; i++) {
            sends.get(0).wrId(i).flags(0).sge(p.stub.region, 0, MESSAGE);
            failed += qp.postSend(sends, p.chain) != 0 ? 1 : 0;
        }
        return failed;
    }

    // ---- post_recv ----

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long postRecvC(Posts p) {
        return StubProvider.cPostRecvLoop(p.qpGlobal, p.recvGlobal, LOOP);
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long postRecvJava(Posts p) {
        QueuePair qp = p.stub.qp;
        RecvChain recvs = p.recvs;
        long failed = 0;
        for (int i = 0; i < LOOP; i++) {
            recvs.get(0).wrId(i);
            failed += qp.postRecv(recvs, p.chain) != 0 ? 1 : 0;
        }
        return failed;
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long postRecvJni(Posts p) throws IOException {
        for (int i = 0; i < LOOP; i++) {
            p.jniRecv.setWrId(0, i);
            p.jniRecv.execute();
        }
        return LOOP;
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long postRecvJavaRawShared(Posts p) {
        long failed = 0;
        for (int i = 0; i < LOOP; i++) {
            p.recvShared.set(JAVA_LONG, Layout.RECV_WR_WR_ID, i);
            failed += BareDownCalls.post(p.postRecvFunction, p.qpShared, p.recvShared, p.badShared) != 0 ? 1 : 0;
        }
        return failed;
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long postRecvJavaRawLong(Posts p) {
        long qp = p.qpGlobal.address();
        long wr = p.recvGlobal.address();
        long bad = p.badGlobal.address();
        long failed = 0;
        for (int i = 0; i < LOOP; i++) {
            p.recvGlobal.set(JAVA_LONG, Layout.RECV_WR_WR_ID, i);
            failed += BareDownCalls.post(p.postRecvFunction, qp, wr, bad) != 0 ? 1 : 0;
        }
        return failed;
    }

    // ---- poll_cq ----

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long pollC(Polls s) {
        return StubProvider.cPollLoop(s.cqGlobal, SLOTS, s.wcGlobal, LOOP);
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long pollJava(Polls s) {
        CompletionQueue cq = s.stub.cq;
        CompletionArray completions = s.completions;
        long sum = 0;
        for (int i = 0; i < LOOP; i++) {
            int n = cq.poll(completions);
            for (int j = 0; j < n; j++) {
                sum += completions.get(j).wrId();
            }
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long pollJni(Polls s) throws IOException {
        long sum = 0;
        for (int i = 0; i < LOOP; i++) {
            int n = s.jniPoll.execute().getPolls();
            for (int j = 0; j < n; j++) {
                sum += s.jniWcs[j].getWr_id();
            }
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long pollJavaRawShared(Polls s) {
        long sum = 0;
        for (int i = 0; i < LOOP; i++) {
            sum += sumWrIds(s.wcShared, BareDownCalls.pollCq(s.pollFunction, s.cqShared, SLOTS, s.wcShared));
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long pollJavaRawLong(Polls s) {
        long cq = s.cqGlobal.address();
        long wc = s.wcGlobal.address();
        long sum = 0;
        for (int i = 0; i < LOOP; i++) {
            sum += sumWrIds(s.wcGlobal, BareDownCalls.pollCq(s.pollFunction, cq, SLOTS, wc));
        }
        return sum;
    }

    private static final long WC_SIZE = Layout.WC_SIZE;
    private static final long WC_WR_ID = Layout.WC_WR_ID;

    private static long sumWrIds(MemorySegment wcs, int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += wcs.get(JAVA_LONG, i * WC_SIZE + WC_WR_ID);
        }
        return sum;
    }
}
