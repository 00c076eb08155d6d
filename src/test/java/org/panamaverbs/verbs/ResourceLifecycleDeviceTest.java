package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The resource tree: registration, creation limits, cascading close, double close, use after close. */
class ResourceLifecycleDeviceTest extends DeviceTest {

    @Test
    void registersCallerMemoryWithKeysAndBounds() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = arena.allocate(8192, 4096);
            try (MemoryRegion mr = pd.register(arena, memory, Access.LOCAL_WRITE, Access.REMOTE_READ)) {
                assertEquals(memory.address(), mr.address());
                assertEquals(8192, mr.length());
                assertNotEquals(0, mr.lkey() | mr.rkey());
                assertEquals(Access.bits(Access.LOCAL_WRITE, Access.REMOTE_READ), mr.access());
                Sge sge = mr.sge(4096, 100);
                assertEquals(memory.address() + 4096, sge.address());
                assertEquals(100, sge.length());
                assertEquals(mr.lkey(), sge.lkey());
                assertEquals(mr, sge.region());
                assertThrows(IndexOutOfBoundsException.class, () -> mr.sge(8100, 100));
                assertThrows(IndexOutOfBoundsException.class, () -> mr.sge(-1, 10));
            }
        }
    }

    @Test
    void remoteWriteImpliesLocalWrite() {
        try (MemoryRegion mr = pd.allocateAndRegister(4096, Access.REMOTE_WRITE)) {
            assertEquals(Access.bits(Access.REMOTE_WRITE, Access.LOCAL_WRITE), mr.access());
        }
    }

    @Test
    void heapEmptyAndDeadSegmentsAreRefused() {
        IllegalArgumentException heap = assertThrows(IllegalArgumentException.class,
                () -> pd.register(MemorySegment.ofArray(new byte[4096]), Access.LOCAL_WRITE));
        assertTrue(heap.getMessage().contains("heap"), heap.getMessage());
        try (Arena arena = Arena.ofConfined()) {
            assertThrows(IllegalArgumentException.class, () -> pd.register(arena.allocate(0), Access.LOCAL_WRITE));
        }
        Arena closed = Arena.ofConfined();
        MemorySegment dead = closed.allocate(4096);
        closed.close();
        assertThrows(IllegalStateException.class, () -> pd.register(dead, Access.LOCAL_WRITE));
        assertThrows(IllegalArgumentException.class, () -> pd.allocateAndRegister(0, Access.LOCAL_WRITE));
    }

    @Test
    void regionOwningItsMemoryFreesItOnClose() {
        MemoryRegion mr = pd.allocateAndRegister(4096, Access.LOCAL_WRITE);
        MemorySegment memory = mr.segment();
        memory.set(ValueLayout.JAVA_INT, 0, 42);
        mr.close();
        assertFalse(memory.scope().isAlive(), "the region's memory is freed after deregistration");
        assertThrows(IllegalStateException.class, mr::lkey);
        assertThrows(IllegalStateException.class, () -> mr.sge(0, 1));
    }

    @Test
    void memoryOfAnArenaIsRegisteredOnlyWithThatArenaWhoseCloseClosesTheRegion() {
        Arena arena = Arena.ofShared();
        MemorySegment memory = arena.allocate(4096);
        IllegalArgumentException untied = assertThrows(IllegalArgumentException.class,
                () -> pd.register(memory, Access.LOCAL_WRITE));
        assertTrue(untied.getMessage().contains("register(arena, segment)"), untied.getMessage());
        try (MemoryRegion mr = pd.register(arena, memory, Access.LOCAL_WRITE);
             SendChain wrs = SendChain.allocate(1, 1)) {
            arena.close();
            assertTrue(mr.isClosed(), "the arena's close closed the region before freeing its memory");
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> wrs.get(0).sge(mr, 0, 64));
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        }
    }

    @Test
    void memoryNothingFreesIsRegisteredWithoutAnArenaAndHeldByTheRegion() {
        java.nio.ByteBuffer direct = java.nio.ByteBuffer.allocateDirect(4096);
        direct.put(0, (byte) 7);
        try (MemoryRegion overBuffer = pd.register(MemorySegment.ofBuffer(direct), Access.LOCAL_WRITE);
             MemoryRegion overAuto = pd.register(Arena.ofAuto().allocate(4096), Access.LOCAL_WRITE);
             MemoryRegion overGlobal = pd.register(Arena.global().allocate(64), Access.LOCAL_WRITE)) {
            direct = null;
            System.gc();
            assertEquals(7, overBuffer.segment().get(ValueLayout.JAVA_BYTE, 0), "the region holds the buffer's memory");
            assertTrue(overAuto.segment().scope().isAlive());
            assertEquals(64, overGlobal.length());
        }
    }

    @Test
    void queuePairStartsInResetWithGrantedCapacities() {
        try (CompletionQueue cq = context.createCompletionQueue(16);
             QueuePair qp = pd.createQueuePair(QpConfig.builder(cq)
                     .capabilities(QpCapabilities.of(16, 8).withMaxSendSge(2)).build())) {
            assertTrue(cq.capacity() >= 16);
            assertEquals(QpState.RESET, qp.state());
            assertNotEquals(0, qp.qpNumber());
            assertEquals(0, qp.psn() & ~0xffffff, "24-bit PSN");
            assertTrue(qp.capabilities().maxSendWr() >= 16);
            assertTrue(qp.capabilities().maxRecvWr() >= 8);
            assertTrue(qp.capabilities().maxSendSge() >= 2);
        }
    }

    @Test
    void capacitiesBeyondTheDeviceAreRefusedWithTheLimit() {
        try (CompletionQueue cq = context.createCompletionQueue(16)) {
            int tooMany = context.attributes().maxQpWr() + 1;
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> pd.createQueuePair(QpConfig.builder(cq)
                            .capabilities(QpCapabilities.defaults().withMaxSendWr(tooMany)).build()));
            assertTrue(e.getMessage().contains("max_qp_wr"), e.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> pd.createQueuePair(QpConfig.builder(cq)
                            .capabilities(QpCapabilities.defaults().withMaxSendSge(context.attributes().maxSge() + 1))
                            .build()));
            assertThrows(IllegalArgumentException.class, () -> context.createCompletionQueue(0));
            assertThrows(UnsupportedVerbException.class,
                    () -> pd.createQueuePair(QpConfig.builder(cq).type(QpType.XRC_SEND).build()));
        }
    }

    @Test
    void connectWalksTheStateMachineToRts() {
        try (CompletionQueue cq = context.createCompletionQueue(16);
             QueuePair a = pd.createQueuePair(QpConfig.builder(cq).build());
             QueuePair b = pd.createQueuePair(QpConfig.builder(cq).build())) {
            a.modifyToInit(Access.bits(Access.LOCAL_WRITE));
            assertEquals(QpState.INIT, a.state());
            a.modifyToRtr(b.localEndpoint(), QpConnectOptions.defaults());
            assertEquals(QpState.RTR, a.state());
            a.modifyToRts(QpConnectOptions.defaults());
            assertEquals(QpState.RTS, a.state());
            b.connect(a.localEndpoint());
            assertEquals(QpState.RTS, b.state());
            VerbsException again = assertThrows(VerbsException.class, () -> a.modifyToInit(0));
            assertEquals("ibv_modify_qp", again.verb());
            assertTrue(again.getMessage().contains("RESET→INIT"), again.getMessage());
        }
    }

    @Test
    void postingOnAQueuePairInResetReturnsAnErrorCodeAndTheFailedRequest() {
        try (CompletionQueue cq = context.createCompletionQueue(16);
             QueuePair qp = pd.createQueuePair(QpConfig.builder(cq).build());
             MemoryRegion mr = pd.allocateAndRegister(4096, Access.LOCAL_WRITE);
             SendChain wrs = SendChain.allocate(2, 1)) {
            wrs.get(0).wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(mr, 0, 64);
            int rc = qp.postSend(wrs, 1);
            assertNotEquals(0, rc, "a RESET queue pair cannot send");
            // rxe queues the request in user space and the kernel refuses the doorbell: bad_wr names no request,
            // and failedIndex says so (-1) instead of guessing 0
            int failed = wrs.failedIndex();
            assertTrue(failed == 0 || failed == -1, "request 0, or none named; not " + failed);
            VerbsException e = assertThrows(VerbsException.class, () -> qp.postSendOrThrow(wrs, 1));
            assertEquals("ibv_post_send", e.verb());
            assertTrue(e.getMessage().contains(failed == 0 ? "work request 0 of 1" : "named no refused request of the 1"),
                    e.getMessage());
            try (CompletionArray wcs = CompletionArray.allocate(4)) {
                assertEquals(0, cq.poll(wcs), "nothing reached the device");
            }
        }
    }

    @Test
    void doubleCloseIsHarmlessForEveryObject() {
        Context ctx = Rdma.open(context.name());
        ProtectionDomain domain = ctx.allocateProtectionDomain();
        CompletionQueue cq = ctx.createCompletionQueue(8);
        QueuePair qp = domain.createQueuePair(QpConfig.builder(cq).build());
        MemoryRegion mr = domain.allocateAndRegister(4096, Access.LOCAL_WRITE);
        CompletionArray wcs = CompletionArray.allocate(4);
        for (AutoCloseable c : new AutoCloseable[] {qp, mr, cq, domain, ctx, wcs}) {
            assertDoesNotThrowTwice(c);
        }
        assertTrue(qp.isClosed() && mr.isClosed() && cq.isClosed() && domain.isClosed() && ctx.isClosed());
    }

    private static void assertDoesNotThrowTwice(AutoCloseable c) {
        try {
            c.close();
            c.close();
        } catch (Exception e) {
            throw new AssertionError(c + " failed to close twice", e);
        }
    }

    @Test
    void closingTheContextClosesEverythingBelowItAndUseAfterCloseThrows() {
        Context ctx = Rdma.open(context.name());
        ProtectionDomain domain = ctx.allocateProtectionDomain();
        CompletionQueue cq = ctx.createCompletionQueue(8);
        QueuePair qp = domain.createQueuePair(QpConfig.builder(cq).build());
        MemoryRegion mr = domain.allocateAndRegister(4096, Access.LOCAL_WRITE);
        MemorySegment memory = mr.segment();
        ctx.close();
        assertTrue(qp.isClosed(), "queue pair");
        assertTrue(mr.isClosed(), "memory region");
        assertTrue(cq.isClosed(), "completion queue");
        assertTrue(domain.isClosed(), "protection domain");
        assertFalse(memory.scope().isAlive());
        try (SendChain wrs = SendChain.allocate(1, 1);
             RecvChain rwrs = RecvChain.allocate(1, 1);
             CompletionArray wcs = CompletionArray.allocate(1)) {
            assertThrows(IllegalStateException.class, () -> qp.postSend(wrs, 1));
            assertThrows(IllegalStateException.class, () -> qp.postRecv(rwrs, 1));
            assertThrows(IllegalStateException.class, qp::state);
            assertThrows(IllegalStateException.class, () -> cq.poll(wcs));
            assertThrows(IllegalStateException.class, () -> domain.allocateAndRegister(64, Access.LOCAL_WRITE));
            assertThrows(IllegalStateException.class, () -> domain.createQueuePair(QpConfig.builder(cq).build()));
            assertThrows(IllegalStateException.class, () -> ctx.queryPort(1));
            assertThrows(IllegalStateException.class, ctx::allocateProtectionDomain);
            assertThrows(IllegalStateException.class, () -> ctx.createCompletionQueue(4));
            assertThrows(IllegalStateException.class, () -> wrs.get(0).sge(mr, 0, 8));
        }
    }

    @Test
    void closingACompletionQueueFirstClosesTheQueuePairsUsingIt() {
        CompletionQueue sendCq = context.createCompletionQueue(8);
        try (CompletionQueue recvCq = context.createCompletionQueue(8)) {
            QueuePair qp = pd.createQueuePair(QpConfig.builder(sendCq, recvCq).build());
            sendCq.close();
            assertTrue(qp.isClosed());
            assertFalse(recvCq.isClosed());
            assertFalse(pd.isClosed());
        }
    }

    @Test
    void closeAllClosesObjectsOfTwoTreesTogetherDependentsFirstSkippingNullsAndClosedOnes() throws Exception {
        try (Context second = DeviceUnderTest.open(); CompletionArray wcs = CompletionArray.allocate(4)) {
            CompletionQueue sendCq = context.createCompletionQueue(8);
            CompletionQueue recvCq = context.createCompletionQueue(8);
            ProtectionDomain domain = context.allocateProtectionDomain();
            QueuePair qp = domain.createQueuePair(QpConfig.builder(sendCq, recvCq).build());
            MemoryRegion region = domain.allocateAndRegister(4096, Access.LOCAL_WRITE);
            CompletionQueue closedBefore = context.createCompletionQueue(8);
            closedBefore.close();
            CompletionQueue ofSecondTree = second.createCompletionQueue(8);
            assertEquals(0, sendCq.poll(wcs)); // named by a poll: the batch needs its handshake
            long queuePairs = ownObjects("qp");
            long queues = ownObjects("cq");

            // the domain first: its queue pair and region are closed before it, as by domain.close()
            VerbsResource.closeAll(domain, null, sendCq, closedBefore, ofSecondTree, recvCq, qp);

            for (VerbsResource r : List.of(domain, sendCq, recvCq, qp, region, ofSecondTree)) {
                assertTrue(r.isClosed(), r.toString());
            }
            assertEquals(queuePairs - 1, ownObjects("qp"), "the queue pair is freed");
            assertEquals(queues - 3, ownObjects("cq"), "both queues and the second tree's are freed");
            assertThrows(IllegalStateException.class, () -> sendCq.poll(wcs));
            assertThrows(IllegalStateException.class, region::lkey);
            assertFalse(second.isClosed(), "the second tree's context stays open");
            assertFalse(pd.isClosed());
            VerbsResource.closeAll(qp, sendCq); // closing again is a no-op, as close() is
        }
    }

    /** How many objects of {@code kind} ({@code rdma resource}'s name: qp, cq, pd, mr) this process holds. */
    private static long ownObjects(String kind) throws Exception {
        return LeakCheck.resourceCounts().stream().filter(l -> l.startsWith("this process: ") && l.endsWith(" " + kind))
                .mapToLong(l -> Long.parseLong(l.split(" ")[2])).sum();
    }
}
