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
import java.nio.file.Files;
import java.nio.file.Path;

import org.panamaverbs.internal.VerbsBridge;
import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.AtomicCapability;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.DeviceAttributes;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.RdmaDevice;
import org.panamaverbs.verbs.Transport;

/**
 * The stub provider of {@code bench/native/stub_provider.c} ({@code libpvstub.so}, found on
 * {@code java.library.path}), opened as an ordinary library tree: a {@link Context}, a
 * {@link ProtectionDomain}, one {@link CompletionQueue} for both directions, an RC {@link QueuePair} in RTS
 * and a {@link MemoryRegion} of {@link #REGION_SIZE} bytes. The stub makes the native objects; they are
 * wrapped with the internal {@link VerbsBridge}'s {@code adopt*} methods (reachable because the benchmark
 * runs on the class path: a benchmark-only path), so the library's public data path runs against the stub
 * unchanged. Closing the context closes the tree and gives every object back to the stub.
 */
public final class StubProvider implements AutoCloseable {
    /** Bytes of the registered region. */
    public static final long REGION_SIZE = 1 << 16;
    /** Queue pair depths and SGEs per request (the stub allows 4). */
    public static final int DEPTH = 1024;
    public static final int MAX_SGE = 1;

    private static final String OWNER = "the stub provider (bench/native/stub_provider.c)";
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup STUB = SymbolLookup.libraryLookup(findLibrary("pvstub"), Arena.global());

    private static final MethodHandle OPEN = handle("stub_open", FunctionDescriptor.of(ADDRESS));
    private static final MethodHandle CLOSE = handle("stub_close", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle ALLOC_PD = handle("stub_alloc_pd", FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle DEALLOC_PD = handle("stub_dealloc_pd", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle CREATE_CQ = handle("stub_create_cq", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle DESTROY_CQ = handle("stub_destroy_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle CREATE_QP = handle("stub_create_qp", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS,
            ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle DESTROY_QP = handle("stub_destroy_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle REG_MR = handle("stub_reg_mr", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle DEREG_MR = handle("stub_dereg_mr", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle CQ_FEED = handle("stub_cq_feed", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle QP_SENDS = handle("stub_qp_sends", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    private static final MethodHandle QP_RECVS = handle("stub_qp_recvs", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    private static final MethodHandle CQ_POLLED = handle("stub_cq_polled", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    private static final MethodHandle CQ_CALLS = handle("stub_cq_calls", FunctionDescriptor.of(JAVA_LONG, ADDRESS));

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
    /** Raw addresses of the native objects (global scope), for the C and JNI paths. */
    public final MemorySegment rawContext;
    public final MemorySegment rawQp;
    public final MemorySegment rawCq;
    private final Arena memory = Arena.ofShared();

    /** Opens the stub and wraps it; {@link #close()} frees everything. */
    public StubProvider() {
        try {
            rawContext = (MemorySegment) OPEN.invokeExact();
            require(rawContext, "stub_open");
            DeviceAttributes attributes = attributes();
            context = VerbsBridge.get().adoptContext(rawContext, new RdmaDevice("stub0", 0x5eedL, Transport.IB),
                    attributes, OWNER, () -> call(CLOSE, rawContext));
            MemorySegment rawPd = (MemorySegment) ALLOC_PD.invokeExact(rawContext);
            require(rawPd, "stub_alloc_pd");
            pd = VerbsBridge.get().adoptProtectionDomain(context, rawPd, OWNER, () -> call(DEALLOC_PD, rawPd));
            rawCq = (MemorySegment) CREATE_CQ.invokeExact(rawContext, 4096);
            require(rawCq, "stub_create_cq");
            cq = VerbsBridge.get().adoptCompletionQueue(context, rawCq, OWNER, () -> call(DESTROY_CQ, rawCq));
            rawQp = (MemorySegment) CREATE_QP.invokeExact(rawPd, rawCq, rawCq, DEPTH, DEPTH, MAX_SGE, 0);
            require(rawQp, "stub_create_qp");
            QpConfig config = QpConfig.builder(cq).maxSendWr(DEPTH).maxRecvWr(DEPTH).maxSendSge(MAX_SGE)
                    .maxRecvSge(MAX_SGE).gidIndex(0).build();
            qp = VerbsBridge.get().adoptQueuePair(pd, rawQp, config,
                    new QpCapabilities(DEPTH, DEPTH, MAX_SGE, MAX_SGE, 0), OWNER, () -> call(DESTROY_QP, rawQp));
            MemorySegment buffer = memory.allocate(REGION_SIZE, 4096);
            MemorySegment rawMr = (MemorySegment) REG_MR.invokeExact(rawPd, buffer, REGION_SIZE);
            require(rawMr, "stub_reg_mr");
            region = VerbsBridge.get().adoptMemoryRegion(pd, rawMr, buffer,
                    Access.bits(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ), OWNER,
                    () -> call(DEREG_MR, rawMr));
        } catch (Throwable t) {
            throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
        }
    }

    /** What {@code ibv_query_device} would say of the stub: generic, not PVRDMA, generous limits. */
    private static DeviceAttributes attributes() {
        return new DeviceAttributes("stub", 0x5eedL, 0x5eedL, -1L, 4096, 0x5eed, 1, 0, 1024, DEPTH, 0, 4, 4, 64,
                4096, 1024, 64, 16, 16, AtomicCapability.of(0), 0, 0, 0, 0, 1, 1);
    }

    /** Makes every poll of the completion queue find {@code perPoll} completions (0: only what posts queued). */
    public void feed(int perPoll) {
        check((int) invoke(() -> (int) CQ_FEED.invokeExact(rawCq, perPoll)), "stub_cq_feed");
    }

    public long sends() {
        return invoke(() -> (long) QP_SENDS.invokeExact(rawQp));
    }

    public long recvs() {
        return invoke(() -> (long) QP_RECVS.invokeExact(rawQp));
    }

    public long polled() {
        return invoke(() -> (long) CQ_POLLED.invokeExact(rawCq));
    }

    /** poll_cq calls so far, empty ones included. */
    public long pollCalls() {
        return invoke(() -> (long) CQ_CALLS.invokeExact(rawCq));
    }

    /** The C floor: {@code n} {@code ibv_post_send}s of {@code wr}; returns the number that failed. */
    public static long cPostSendLoop(MemorySegment qp, MemorySegment wr, long n) {
        try {
            return (long) C_POST_SEND_LOOP.invokeExact(qp, wr, n);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The C floor: {@code n} {@code ibv_post_recv}s of {@code wr}; returns the number that failed. */
    public static long cPostRecvLoop(MemorySegment qp, MemorySegment wr, long n) {
        try {
            return (long) C_POST_RECV_LOOP.invokeExact(qp, wr, n);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The C floor: {@code n} {@code ibv_poll_cq(cq, entries, wc)}; returns the sum of the wr_ids read. */
    public static long cPollLoop(MemorySegment cq, int entries, MemorySegment wc, long n) {
        try {
            return (long) C_POLL_LOOP.invokeExact(cq, entries, wc, n);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    @Override
    public void close() {
        context.close();
        memory.close();
    }

    private interface Call {
        long run() throws Throwable;
    }

    private static long invoke(Call call) {
        try {
            return call.run();
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static void call(MethodHandle destroy, MemorySegment object) {
        try {
            check((int) destroy.invokeExact(object), "stub destroy");
        } catch (Throwable t) {
            throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
        }
    }

    private static void check(int rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " failed: " + rc);
        }
    }

    private static void require(MemorySegment object, String what) {
        if (object.equals(MemorySegment.NULL)) {
            throw new IllegalStateException(what + " returned NULL");
        }
    }

    private static MethodHandle handle(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(STUB.find(name).orElseThrow(() -> new IllegalStateException(name + " not in libpvstub.so")), descriptor);
    }

    private static MethodHandle critical(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(STUB.find(name).orElseThrow(() -> new IllegalStateException(name + " not in libpvstub.so")), descriptor, Linker.Option.critical(false));
    }

    /** {@code lib<name>.so} in a directory of {@code java.library.path} (where bench/native-datapath builds it). */
    static Path findLibrary(String name) {
        String file = System.mapLibraryName(name);
        for (String dir : System.getProperty("java.library.path", "").split(java.io.File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, file);
            if (Files.isRegularFile(candidate)) {
                return candidate.toAbsolutePath();
            }
        }
        throw new IllegalStateException(file + " is not on java.library.path (" + System.getProperty("java.library.path")
                + "): build it with bench/native-datapath, which passes -Djava.library.path=bench/target/native");
    }
}
