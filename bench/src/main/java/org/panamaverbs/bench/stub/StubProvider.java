package org.panamaverbs.bench.stub;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.Rdma;

/**
 * The stand-in libibverbs of {@code src/test/c/stand-in}, opened as any device is, through the public API:
 * {@code Rdma.open("stub0")}, a {@link ProtectionDomain}, one {@link CompletionQueue} for both directions, an RC
 * {@link QueuePair} connected to itself (RTS) and a {@link MemoryRegion} of {@link #REGION_SIZE} bytes.
 *
 * <p>The stand-in is {@code bench/target/native/libibverbs.so.1}; {@code bench/native-datapath} puts that directory
 * first on {@code LD_LIBRARY_PATH} for the benchmark's JVMs only (JMH's forks inherit it), so the library's
 * {@code dlopen("libibverbs.so.1")} maps the stand-in instead of rdma-core's. The stub's own controls (feeding the
 * completion queue, counters, the C floor's loops) are looked up in that same loaded library and given the objects'
 * public {@code handle()} views. Closing the context closes the tree.
 */
public final class StubProvider implements AutoCloseable {
    /** The stand-in's only device. */
    public static final String DEVICE = "stub0";
    /** Bytes of the registered region. */
    public static final long REGION_SIZE = 1 << 16;
    /** Queue pair depths and SGEs per request (the stub allows 4). */
    public static final int DEPTH = 1024;
    public static final int MAX_SGE = 1;
    /** Completion queue entries asked for (the stub's ring holds 4096). */
    public static final int CQ_ENTRIES = 4095;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup STUB = standIn();

    private static final MethodHandle CQ_FEED = handle("stub_cq_feed", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle QP_SENDS = handle("stub_qp_sends", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    private static final MethodHandle QP_RECVS = handle("stub_qp_recvs", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    private static final MethodHandle CQ_POLLED = handle("stub_cq_polled", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    private static final MethodHandle CQ_CALLS = handle("stub_cq_calls", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    private static final MethodHandle FEED_ALL = handle("stub_feed_all", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle TOTAL_CALLS = handle("stub_total_calls", FunctionDescriptor.of(JAVA_LONG));
    private static final MethodHandle POST_SEND_OP = handle("stub_post_send_op", FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle POST_RECV_OP = handle("stub_post_recv_op", FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle POLL_CQ_OP = handle("stub_poll_cq_op", FunctionDescriptor.of(ADDRESS, ADDRESS));

    /** The C floor's loops, linked critical: one call per JMH invocation, so the link type hardly matters. */
    private static final MethodHandle C_POST_SEND_LOOP = critical("stub_c_post_send_loop",
            FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle C_POST_RECV_LOOP = critical("stub_c_post_recv_loop",
            FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle C_POLL_LOOP = critical("stub_c_poll_loop",
            FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG));

    public final Context context;
    public final ProtectionDomain pd;
    public final CompletionQueue cq;
    public final QueuePair qp;
    public final MemoryRegion region;
    /** The provider's {@code ctx->ops.post_send}, {@code post_recv} and {@code poll_cq}, for the bare FFM calls. */
    public final MemorySegment postSendFunction;
    public final MemorySegment postRecvFunction;
    public final MemorySegment pollCqFunction;

    /** Opens the stand-in's device and makes the tree; {@link #close()} frees everything. */
    public StubProvider() {
        context = Rdma.open(DEVICE);
        try {
            pd = context.allocateProtectionDomain();
            cq = context.createCompletionQueue(CQ_ENTRIES);
            qp = pd.createQueuePair(QpConfig.builder(cq)
                    .capabilities(QpCapabilities.of(DEPTH, DEPTH).withMaxSendSge(MAX_SGE).withMaxRecvSge(MAX_SGE))
                    .build());
            QueuePair.connectLoopback(qp, qp);
            region = pd.allocateAndRegister(REGION_SIZE, Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
            postSendFunction = (MemorySegment) POST_SEND_OP.invokeExact(context.handle());
            postRecvFunction = (MemorySegment) POST_RECV_OP.invokeExact(context.handle());
            pollCqFunction = (MemorySegment) POLL_CQ_OP.invokeExact(context.handle());
        } catch (Throwable t) {
            context.close();
            throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
        }
    }

    /** Makes every poll of the completion queue find {@code perPoll} completions (0: only what posts queued). */
    public void feed(int perPoll) {
        check((int) invoke(() -> (int) CQ_FEED.invokeExact(cq.handle(), perPoll)), "stub_cq_feed");
    }

    /**
     * {@link #feed} for every completion queue of the stand-in alive now, whoever made it: for programs whose API
     * hands out no native handles (DiSNI's).
     */
    public static void feedAll(int perPoll) {
        check((int) invoke(() -> (int) FEED_ALL.invokeExact(perPoll)), "stub_feed_all");
    }

    /** Requests accepted and poll_cq calls, summed over every live queue pair and completion queue of the stand-in. */
    public static long totalCalls() {
        return invoke(() -> (long) TOTAL_CALLS.invokeExact());
    }

    public long sends() {
        return invoke(() -> (long) QP_SENDS.invokeExact(qp.handle()));
    }

    public long recvs() {
        return invoke(() -> (long) QP_RECVS.invokeExact(qp.handle()));
    }

    public long polled() {
        return invoke(() -> (long) CQ_POLLED.invokeExact(cq.handle()));
    }

    /** poll_cq calls so far, empty ones included. */
    public long pollCalls() {
        return invoke(() -> (long) CQ_CALLS.invokeExact(cq.handle()));
    }

    /** The C floor: {@code n} {@code ibv_post_send}s of {@code wr}; returns the number that failed. */
    public static long cPostSendLoop(MemorySegment qp, MemorySegment wr, long n) {
        return invoke(() -> (long) C_POST_SEND_LOOP.invokeExact(qp, wr, n));
    }

    /** The C floor: {@code n} {@code ibv_post_recv}s of {@code wr}; returns the number that failed. */
    public static long cPostRecvLoop(MemorySegment qp, MemorySegment wr, long n) {
        return invoke(() -> (long) C_POST_RECV_LOOP.invokeExact(qp, wr, n));
    }

    /** The C floor: {@code n} {@code ibv_poll_cq(cq, entries, wc)}; returns the sum of the wr_ids read. */
    public static long cPollLoop(MemorySegment cq, int entries, MemorySegment wc, long n) {
        return invoke(() -> (long) C_POLL_LOOP.invokeExact(cq, entries, wc, n));
    }

    @Override
    public void close() {
        context.close();
    }

    /**
     * Sizes and offsets of the verbs structs the benchmark lays out itself (work requests of its C, JNI and bare FFM
     * rows, completions it reads), as the compiler of the stand-in saw verbs.h ({@code stub_layout}): how DiSNI's
     * Java side learns them from its JNI library, and without the library's internal layouts.
     */
    public static final class Layout {
        private static final MethodHandle STUB_LAYOUT = handle("stub_layout", FunctionDescriptor.of(JAVA_LONG, JAVA_INT));

        public static final long SEND_WR_SIZE = item(0);
        public static final long SEND_WR_WR_ID = item(1);
        public static final long SEND_WR_NEXT = item(2);
        public static final long SEND_WR_SG_LIST = item(3);
        public static final long SEND_WR_NUM_SGE = item(4);
        public static final long SEND_WR_OPCODE = item(5);
        public static final long SEND_WR_SEND_FLAGS = item(6);
        public static final long SEND_WR_IMM_DATA = item(7);
        public static final long SEND_WR_REMOTE_ADDR = item(8);
        public static final long SEND_WR_RKEY = item(9);
        public static final long RECV_WR_SIZE = item(10);
        public static final long RECV_WR_WR_ID = item(11);
        public static final long RECV_WR_NEXT = item(12);
        public static final long RECV_WR_SG_LIST = item(13);
        public static final long RECV_WR_NUM_SGE = item(14);
        public static final long SGE_SIZE = item(15);
        public static final long SGE_ADDR = item(16);
        public static final long SGE_LENGTH = item(17);
        public static final long SGE_LKEY = item(18);
        public static final long WC_SIZE = item(19);
        public static final long WC_WR_ID = item(20);

        private Layout() {
        }

        /** Item {@code index} of {@code enum stub_layout_item} (stub_provider.h, in that order). */
        private static long item(int index) {
            long value = invoke(() -> (long) STUB_LAYOUT.invokeExact(index));
            if (value < 0) {
                throw new IllegalStateException("stub_layout(" + index + ") is unknown to the stand-in");
            }
            return value;
        }
    }

    private interface Call {
        long run() throws Throwable;
    }

    private static long invoke(Call call) {
        try {
            return call.run();
        } catch (Throwable t) {
            throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
        }
    }

    private static void check(int rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " failed: " + rc);
        }
    }

    /**
     * The libibverbs.so.1 this process loads, which must be the stand-in: with rdma-core's, {@code Rdma.open("stub0")}
     * would find no such device, and the stub's controls are not there.
     */
    private static SymbolLookup standIn() {
        String problem = "libibverbs.so.1 here is not the stand-in of src/test/c/stand-in: run through"
                + " bench/native-datapath, which builds it into bench/target/native and puts that directory first on"
                + " LD_LIBRARY_PATH (now " + System.getenv("LD_LIBRARY_PATH") + ")";
        SymbolLookup library;
        try {
            library = SymbolLookup.libraryLookup("libibverbs.so.1", Arena.global());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(problem, e);
        }
        Optional<MemorySegment> marker = library.find("stub_cq_feed");
        if (marker.isEmpty()) {
            throw new IllegalStateException(problem);
        }
        return library;
    }

    private static MemorySegment symbol(String name) {
        return STUB.find(name).orElseThrow(() -> new IllegalStateException(name + " is not in the stand-in libibverbs.so.1"));
    }

    private static MethodHandle handle(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(symbol(name), descriptor);
    }

    private static MethodHandle critical(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(symbol(name), descriptor, Linker.Option.critical(false));
    }
}
