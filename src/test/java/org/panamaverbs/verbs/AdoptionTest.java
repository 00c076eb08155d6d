package org.panamaverbs.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.panamaverbs.ffi.ibv_context;
import org.panamaverbs.ffi.ibv_cq;
import org.panamaverbs.ffi.ibv_mr;
import org.panamaverbs.ffi.ibv_pd;
import org.panamaverbs.ffi.ibv_qp;
import org.panamaverbs.internal.DataPath;
import org.panamaverbs.internal.VerbsBridge;

/**
 * The internal bridge's {@code adopt*} methods, on a foreign tree built here in native memory, no device
 * needed: the provider pointers are libc's {@code sched_yield} (which ignores its arguments and returns 0;
 * upcalls are not allowed from critical downcalls, so a Java stub is out), the async descriptor an eventfd.
 * The native benchmark (bench/native-datapath) runs the same path against a real stub provider.
 */
class AdoptionTest {
    /** Everything here loads libibverbs (a machine without rdma-core skips it, naming the package). */
    @BeforeAll
    static void needsLibibverbs() {
        RequiredTools.libibverbs();
    }
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MemorySegment SCHED_YIELD = LINKER.defaultLookup().find("sched_yield").orElseThrow();
    private static final MethodHandle EVENTFD = LINKER.downcallHandle(LINKER.defaultLookup().find("eventfd").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle CLOSE = LINKER.downcallHandle(LINKER.defaultLookup().find("close").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private static DeviceAttributes attributes() {
        return new DeviceAttributes("fake", 1, 1, -1, 4096, 0x1234, 1, 0, 16, 64, 0, 2, 2, 16, 256, 16, 16, 4, 4,
                AtomicCapability.of(0), 0, 0, 0, 0, 1, 1);
    }

    /** A foreign tree: context, pd, cq, RC qp, mr, with parent pointers set as a provider would. */
    private record Foreign(MemorySegment ctx, MemorySegment pd, MemorySegment cq, MemorySegment qp, MemorySegment mr,
            MemorySegment memory, int fd) {
        static Foreign make(Arena arena) throws Throwable {
            MemorySegment ctx = arena.allocate(ibv_context.layout());
            ctx.set(ADDRESS, DataPath.POLL_CQ_OFFSET, SCHED_YIELD);
            ctx.set(ADDRESS, DataPath.POST_SEND_OFFSET, SCHED_YIELD);
            ctx.set(ADDRESS, DataPath.POST_RECV_OFFSET, SCHED_YIELD);
            int fd = (int) EVENTFD.invokeExact(0, 0);
            assertTrue(fd >= 0);
            ibv_context.async_fd(ctx, fd);
            MemorySegment pd = arena.allocate(ibv_pd.layout());
            ibv_pd.context(pd, ctx);
            MemorySegment cq = arena.allocate(ibv_cq.layout());
            ibv_cq.context(cq, ctx);
            ibv_cq.cqe(cq, 64);
            MemorySegment qp = arena.allocate(ibv_qp.layout());
            ibv_qp.context(qp, ctx);
            ibv_qp.pd(qp, pd);
            ibv_qp.send_cq(qp, cq);
            ibv_qp.recv_cq(qp, cq);
            ibv_qp.qp_type(qp, QpType.RC.code());
            ibv_qp.qp_num(qp, 0x42);
            MemorySegment memory = arena.allocate(4096, 4096);
            MemorySegment mr = arena.allocate(ibv_mr.layout());
            ibv_mr.pd(mr, pd);
            ibv_mr.addr(mr, memory);
            ibv_mr.length(mr, memory.byteSize());
            ibv_mr.lkey(mr, 0x11);
            ibv_mr.rkey(mr, 0x22);
            return new Foreign(ctx, pd, cq, qp, mr, memory, fd);
        }
    }

    /** {@code f}'s context adopted with {@code attributes}; closing it closes its eventfd. */
    private static Context adoptContext(Foreign f, DeviceAttributes attributes) {
        return VerbsBridge.get().adoptContext(f.ctx(), new RdmaDevice("fake0", 1, Transport.IB), attributes, "test", () -> {
            try {
                int rc = (int) CLOSE.invokeExact(f.fd());
            } catch (Throwable t) {
                throw new AssertionError(t);
            }
        });
    }

    @Test
    void adoptedTreeRunsTheDataPathAndGivesObjectsBackInDependencyOrder() throws Throwable {
        VerbsBridge bridge = VerbsBridge.get();
        List<String> givenBack = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            Foreign f = Foreign.make(arena);
            Context context = bridge.adoptContext(f.ctx(), new RdmaDevice("fake0", 1, Transport.IB), attributes(), "test",
                    () -> {
                        givenBack.add("context");
                        try {
                            int rc = (int) CLOSE.invokeExact(f.fd());
                        } catch (Throwable t) {
                            throw new AssertionError(t);
                        }
                    });
            assertEquals(HardwareClass.NOT_PVRDMA, context.profile().hardwareClass());
            assertEquals("test", context.heldBy());
            ProtectionDomain pd = bridge.adoptProtectionDomain(context, f.pd(), "test", () -> givenBack.add("pd"));
            CompletionQueue cq = bridge.adoptCompletionQueue(context, f.cq(), "test", () -> givenBack.add("cq"));
            assertEquals(64, cq.capacity());
            QpConfig config = QpConfig.builder(cq).maxSendWr(8).maxRecvWr(8).build();
            QueuePair qp = bridge.adoptQueuePair(pd, f.qp(), config, new QpCapabilities(8, 8, 1, 1, 0), "test",
                    () -> givenBack.add("qp"));
            assertEquals(0x42, qp.qpNumber());
            MemoryRegion mr = bridge.adoptMemoryRegion(pd, f.mr(), f.memory(), Access.bits(Access.LOCAL_WRITE), "test",
                    () -> givenBack.add("mr"));
            assertEquals(0x11, mr.lkey());
            assertEquals(0x22, mr.rkey());
            try (SendWorkRequests sends = SendWorkRequests.allocate(2, 1);
                    RecvWorkRequests recvs = RecvWorkRequests.allocate(2, 1);
                    WorkCompletions wcs = WorkCompletions.allocate(4)) {
                sends.get(0).wrId(1).opcode(WrOpcode.RDMA_WRITE).sge(mr, 0, 64).remote(0x1000, 7);
                sends.get(1).wrId(2).opcode(WrOpcode.SEND).sge(mr, 64, 64);
                recvs.get(0).wrId(3).sge(mr, 128, 64);
                recvs.get(1).wrId(4).sge(mr, 192, 64);
                assertEquals(0, qp.postSend(sends, 2));
                assertEquals(0, qp.postRecv(recvs, 1));
                assertEquals(0, cq.poll(wcs));
            }
            context.close();
            // The context's dependents newest first (the cq, which closes its qp first; then the pd, which
            // closes its mr first), then the context: every object before its parents, each handed back once.
            assertEquals(List.of("qp", "cq", "mr", "pd", "context"), givenBack);
            assertTrue(qp.isClosed() && mr.isClosed() && cq.isClosed() && pd.isClosed());
        }
    }

    @Test
    void refusesObjectsWhoseParentsDisagree() throws Throwable {
        VerbsBridge bridge = VerbsBridge.get();
        try (Arena arena = Arena.ofConfined()) {
            Foreign f = Foreign.make(arena);
            try (Context context = adoptContext(f, attributes())) {
                ProtectionDomain pd = bridge.adoptProtectionDomain(context, f.pd(), "test", () -> { });
                CompletionQueue cq = bridge.adoptCompletionQueue(context, f.cq(), "test", () -> { });
                ibv_qp.recv_cq(f.qp(), MemorySegment.ofAddress(0x1000));
                QpConfig config = QpConfig.builder(cq).build();
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> bridge.adoptQueuePair(pd,
                        f.qp(), config, new QpCapabilities(8, 8, 1, 1, 0), "test", () -> { }));
                assertTrue(e.getMessage().contains("qp->recv_cq"), e.getMessage());
                MemorySegment other = arena.allocate(64);
                assertThrows(IllegalArgumentException.class, () -> bridge.adoptMemoryRegion(pd, f.mr(), other, 0, "test",
                        () -> { }));
            }
        }
    }

    /**
     * A provider without {@code ops.post_srq_recv} (here the stub context, whose pointer is NULL): creating a
     * shared receive queue is refused before any native call, as a provider without post_send is, instead of a
     * later post calling through NULL.
     */
    @Test
    void refusesSharedReceiveQueuesWithoutPostSrqRecv() throws Throwable {
        VerbsBridge bridge = VerbsBridge.get();
        DeviceAttributes withSrq = new DeviceAttributes("fake", 1, 1, -1, 4096, 0x1234, 1, 0, 16, 64, 0, 2, 2, 16, 256,
                16, 16, 4, 4, AtomicCapability.of(0), 0, 4, 64, 2, 1, 1);
        try (Arena arena = Arena.ofConfined()) {
            Foreign f = Foreign.make(arena);
            try (Context context = adoptContext(f, withSrq)) {
                ProtectionDomain pd = bridge.adoptProtectionDomain(context, f.pd(), "test", () -> { });
                UnsupportedVerbException e = assertThrows(UnsupportedVerbException.class,
                        () -> pd.createSharedReceiveQueue(4, 1));
                assertTrue(e.getMessage().contains("post_srq_recv"), e.getMessage());
            }
        }
    }

    @Test
    void refusesAContextWithoutDataPathOperations() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ctx = arena.allocate(ibv_context.layout());
            assertThrows(UnsupportedVerbException.class, () -> VerbsBridge.get().adoptContext(ctx,
                    new RdmaDevice("fake0", 1, Transport.IB), attributes(), "test", () -> { }));
        }
    }
}
