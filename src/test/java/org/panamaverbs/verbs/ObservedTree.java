package org.panamaverbs.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.List;

import org.panamaverbs.ffi.ibv_context;
import org.panamaverbs.ffi.ibv_cq;
import org.panamaverbs.ffi.ibv_pd;
import org.panamaverbs.internal.DataPath;
import org.panamaverbs.internal.VerbsBridge;

/**
 * What the observability tests drive without a device: a gate refusal under an emulated PVRDMA HWv13 profile
 * (the policy alone, nothing native), and a foreign tree (context, protection domain, completion queue) adopted
 * through the internal bridge and closed, as {@link AdoptionTest} does. Also the {@code main} of the child JVM
 * that checks the library runs without {@code jdk.jfr} ({@code ObservabilityTest}).
 */
final class ObservedTree {
    static final String DEVICE = "fake0";
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MemorySegment SCHED_YIELD = LINKER.defaultLookup().find("sched_yield").orElseThrow();
    private static final MethodHandle EVENTFD = LINKER.downcallHandle(LINKER.defaultLookup().find("eventfd").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle CLOSE = LINKER.downcallHandle(LINKER.defaultLookup().find("close").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private ObservedTree() {
    }

    /** ESXi 6.5's attributes: vendor 0x15ad, part 2080, no shared receive queues. */
    static DeviceAttributes esxi65Attributes() {
        return new DeviceAttributes("3.0.000", 1, 1, -1, 4096, 0x15ad, 2080, 1, 32768, 1024, 0x00201400,
                16, 16, 4096, 262144, 262144, 4096, 16, 16, AtomicCapability.NONE, 4096, 0, 0, 0, 1, 1);
    }

    /** {@code ibv_create_srq} on a HWv13-class device: the gate refuses it (and reports the refusal). */
    static UnsupportedVerbException refuseSharedReceiveQueue() {
        DeviceAttributes attributes = esxi65Attributes();
        DevicePolicy policy = DeviceProfile.detect(attributes, List.of()).policy(attributes, DEVICE);
        try {
            policy.requireSharedReceiveQueues();
        } catch (UnsupportedVerbException refused) {
            return refused;
        }
        throw new AssertionError("the HWv13 gate let ibv_create_srq through");
    }

    /** Adopts a foreign context with a protection domain and a completion queue, then closes the context. */
    static void adoptAndClose() throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ctx = arena.allocate(ibv_context.layout());
            ctx.set(ADDRESS, DataPath.POLL_CQ_OFFSET, SCHED_YIELD);
            ctx.set(ADDRESS, DataPath.POST_SEND_OFFSET, SCHED_YIELD);
            ctx.set(ADDRESS, DataPath.POST_RECV_OFFSET, SCHED_YIELD);
            int fd = (int) EVENTFD.invokeExact(0, 0);
            if (fd < 0) {
                throw new AssertionError("eventfd failed");
            }
            ibv_context.async_fd(ctx, fd);
            MemorySegment pd = arena.allocate(ibv_pd.layout());
            ibv_pd.context(pd, ctx);
            MemorySegment cq = arena.allocate(ibv_cq.layout());
            ibv_cq.context(cq, ctx);
            ibv_cq.cqe(cq, 64);
            DeviceAttributes attributes = new DeviceAttributes("fake", 1, 1, -1, 4096, 0x1234, 1, 0, 16, 64, 0, 2, 2,
                    16, 256, 16, 16, 4, 4, AtomicCapability.of(0), 0, 0, 0, 0, 1, 1);
            VerbsBridge bridge = VerbsBridge.get();
            Context context = bridge.adoptContext(ctx, new RdmaDevice(DEVICE, 1, Transport.IB), attributes, "test", () -> {
                try {
                    int rc = (int) CLOSE.invokeExact(fd);
                } catch (Throwable t) {
                    throw new AssertionError(t);
                }
            });
            bridge.adoptProtectionDomain(context, pd, "test", () -> { });
            bridge.adoptCompletionQueue(context, cq, "test", () -> { });
            context.close();
        }
    }

    /**
     * The child JVM of {@code ObservabilityTest.theLibraryRunsWithoutJdkJfr}: runs both paths and prints what it
     * saw, one {@code key=value} per line.
     */
    public static void main(String[] args) throws Throwable {
        System.out.println("jdk.jfr.present=" + ModuleLayer.boot().findModule("jdk.jfr").isPresent());
        System.out.println("jfr.usable=" + org.panamaverbs.internal.ControlEvents.JFR_PRESENT);
        System.out.println("refused=" + refuseSharedReceiveQueue().verb());
        adoptAndClose();
        System.out.println("adopted.closed=true");
    }
}
