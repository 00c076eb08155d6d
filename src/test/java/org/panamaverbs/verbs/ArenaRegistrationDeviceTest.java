package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

/**
 * A region registered with its memory's arena ({@link ProtectionDomain#register(Arena, MemorySegment, Access...)})
 * stops the device before the arena frees the memory: what was posted into it fails instead of writing into
 * memory the program has allocated again, and a close racing posts never lets the provider touch freed memory.
 */
class ArenaRegistrationDeviceTest extends DeviceTest {
    private static final int SIZE = 4096;
    private static final byte UNTOUCHED = 0x5A;

    @Test
    void aReceivePostedBeforeTheArenaClosedFailsAndTheMemoryAllocatedAgainIsUntouched() {
        try (Loopback l = new Loopback(SIZE, 1)) {
            Arena arena = Arena.ofConfined();
            MemorySegment memory = arena.allocate(SIZE, MemoryRegion.PAGE_SIZE);
            MemoryRegion region = pd.register(arena, memory, Access.LOCAL_WRITE);
            long oldAddress = memory.address();
            l.recvs.get(0).wrId(77).sge(region, 0, SIZE);
            l.b.postRecvOrThrow(l.recvs, 1);

            arena.close(); // the program thinks it is done with the memory
            assertTrue(region.isClosed(), "closing the arena closed the region first");

            try (Arena again = Arena.ofConfined()) {
                MemorySegment reused = again.allocate(SIZE, MemoryRegion.PAGE_SIZE);
                reused.fill(UNTOUCHED);
                System.out.println("arena: new allocation " + (reused.address() == oldAddress ? "reuses" : "does not reuse")
                        + " the freed address 0x" + Long.toHexString(oldAddress));
                fill(l.mrA, 0, 256, 3);
                l.sends.get(0).wrId(78).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(l.mrA, 0, 256);
                l.a.postSendOrThrow(l.sends, 1);

                Done received = await(l.cqB, 1).getFirst();
                Done sent = await(l.cqA, 1).getFirst();
                System.out.println("arena: receive into the deregistered region completed " + received.status()
                        + "; the sender's SEND completed " + sent.status() + "; receiver queue pair " + l.b.state()
                        + ", sender " + l.a.state());
                assertUntouched(reused);
                assertEquals(77, received.wrId());
                // the device refuses the deregistered lkey: rxe reports a local QP operation error, HCAs a
                // local protection error
                assertTrue(received.status() == WcStatus.LOC_QP_OP_ERR || received.status() == WcStatus.LOC_PROT_ERR,
                        "receive completed " + received.status());
                assertEquals(QpState.ERR, l.b.state(), "a failed receive moves the receiving queue pair to ERR");
                assertEquals(78, sent.wrId());
                assertFalse(sent.status() == WcStatus.SUCCESS, "the SEND found no usable receive: " + sent.status());
            }
        }
    }

    @Test
    void aPeersRdmaWriteWithTheOldRkeyFailsAfterTheArenaClosed() {
        try (Loopback l = new Loopback(SIZE, 1)) {
            Arena arena = Arena.ofShared();
            MemorySegment memory = arena.allocate(SIZE, MemoryRegion.PAGE_SIZE);
            MemoryRegion region = pd.register(arena, memory, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            long remoteAddress = region.address();
            int rkey = region.rkey();
            arena.close();
            assertTrue(region.isClosed());

            try (Arena again = Arena.ofConfined()) {
                MemorySegment reused = again.allocate(SIZE, MemoryRegion.PAGE_SIZE);
                reused.fill(UNTOUCHED);
                fill(l.mrA, 0, 512, 4);
                l.sends.get(0).wrId(5).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(l.mrA, 0, 512)
                        .remote(remoteAddress, rkey);
                l.a.postSendOrThrow(l.sends, 1);
                Done written = await(l.cqA, 1).getFirst();
                System.out.println("arena: RDMA WRITE with the closed region's rkey completed " + written.status());
                assertEquals(WcStatus.REM_ACCESS_ERR, written.status());
                assertUntouched(reused);
            }
        }
    }

    @Test
    void aPostAfterTheArenaClosedIsRefusedBeforeTheProvider() {
        try (Loopback l = new Loopback(SIZE, 1)) {
            Arena arena = Arena.ofConfined();
            MemoryRegion region = pd.register(arena, arena.allocate(SIZE, MemoryRegion.PAGE_SIZE), Access.LOCAL_WRITE);
            l.sends.get(0).wrId(9).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(region, 0, 64)
                    .remote(l.mrB.address(), l.mrB.rkey());
            arena.close();
            assertThrows(IllegalStateException.class, () -> l.a.postSend(l.sends, 1));
            assertThrows(IllegalStateException.class, () -> region.sge(0, 8));
            assertThrows(IllegalStateException.class, region::lkey);
            region.close(); // idempotent after the arena closed it
        }
    }

    @Test
    void registrationChecksTheArena() {
        try (Arena arena = Arena.ofConfined(); Arena other = Arena.ofConfined()) {
            MemorySegment memory = arena.allocate(SIZE);
            assertThrows(IllegalArgumentException.class, () -> pd.register(other, memory, Access.LOCAL_WRITE));
            assertThrows(IllegalArgumentException.class, () -> pd.register(other, other.allocate(0), Access.LOCAL_WRITE));
            // a confined arena adds its cleanups on its own thread only: nothing is registered from another one
            AtomicReference<Throwable> fromOtherThread = new AtomicReference<>();
            Thread t = Thread.ofPlatform().start(() -> {
                try {
                    pd.register(arena, memory, Access.LOCAL_WRITE).close();
                } catch (Throwable e) {
                    fromOtherThread.set(e);
                }
            });
            join(t);
            assertTrue(fromOtherThread.get() instanceof WrongThreadException, String.valueOf(fromOtherThread.get()));
            // the region may be closed before its arena, which then has nothing left to do
            MemoryRegion early = pd.register(arena, memory, Access.LOCAL_WRITE);
            early.close();
        }
        Arena closed = Arena.ofConfined();
        MemorySegment dead = closed.allocate(64);
        closed.close();
        assertThrows(IllegalStateException.class, () -> pd.register(closed, dead, Access.LOCAL_WRITE));
    }

    /**
     * One thread posts inline RDMA WRITEs from a region of a shared arena (the provider copies inline data
     * from that memory inside the post), the other closes the arena at a different moment each round: every
     * post either ran before the deregistration or was refused, and nothing crashes.
     */
    @Test
    @org.junit.jupiter.api.Timeout(600)
    void closingTheArenaWhilePostsRunNeverLetsTheProviderTouchFreedMemory() throws Exception {
        CompletionQueue cq = context.createCompletionQueue(64);
        int inlineBytes = 64;
        QueuePair created;
        try {
            created = pd.createQueuePair(QpConfig.builder(cq)
                    .capabilities(QpCapabilities.of(32, 1).withMaxInlineData(inlineBytes)).build());
        } catch (UnsupportedVerbException | IllegalArgumentException noInline) { // PVRDMA: no inline data
            inlineBytes = 0;
            created = pd.createQueuePair(QpConfig.builder(cq).capabilities(QpCapabilities.of(32, 1)).build());
        }
        int inline = inlineBytes;
        QueuePair a = created;
        QueuePair b = pd.createQueuePair(QpConfig.builder(cq).capabilities(QpCapabilities.of(1, 1)).build());
        QueuePair.connectLoopback(a, b);
        MemoryRegion target = pd.allocateAndRegister(SIZE, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        int rounds = 200;
        AtomicInteger posted = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        try (target; cq) {
            for (int round = 0; round < rounds; round++) {
                Arena arena = Arena.ofShared();
                MemoryRegion source = pd.register(arena, arena.allocate(SIZE, MemoryRegion.PAGE_SIZE), Access.LOCAL_WRITE);
                source.segment().fill((byte) round);
                CountDownLatch started = new CountDownLatch(1);
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread poster = Thread.ofPlatform().start(() -> {
                    try (SendChain sends = SendChain.allocate(1, 1);
                         CompletionArray wcs = CompletionArray.allocate(8)) {
                        sends.get(0).opcode(WrOpcode.RDMA_WRITE).flags(inline > 0 ? SendFlags.SIGNALED | SendFlags.INLINE : SendFlags.SIGNALED)
                                .sge(source, 0, Math.max(inline, 8)).remote(target.address(), target.rkey());
                        started.countDown();
                        while (true) {
                            int rc;
                            try {
                                rc = a.postSend(sends, 1);
                            } catch (IllegalStateException refusedAfterClose) {
                                refused.incrementAndGet();
                                return;
                            }
                            assertEquals(0, rc, "ibv_post_send");
                            posted.incrementAndGet();
                            int seen = 0;
                            long deadline = System.nanoTime() + COMPLETION_TIMEOUT.toNanos();
                            while (seen == 0) {
                                seen = cq.poll(wcs);
                                if (seen == 0 && System.nanoTime() > deadline) {
                                    throw new AssertionError("no completion within " + COMPLETION_TIMEOUT);
                                }
                            }
                            assertEquals(WcStatus.SUCCESS, wcs.get(0).status());
                        }
                    } catch (Throwable e) {
                        failure.set(e);
                        started.countDown();
                    }
                });
                started.await();
                // a different moment each round (no Thread.onSpinWait: under QEMU's TCG every PAUSE switches vCPUs)
                java.util.concurrent.locks.LockSupport.parkNanos(round * 1_000L);
                arena.close();
                join(poster);
                assertTrue(source.isClosed());
                if (failure.get() != null) {
                    throw new AssertionError("round " + round, failure.get());
                }
            }
        } finally {
            a.close();
            b.close();
        }
        System.out.println("arena: " + rounds + " closes raced " + posted.get() + " inline posts; " + refused.get()
                + " posts refused after the close, no crash");
        assertEquals(rounds, refused.get(), "every round ended with a refused post");
    }

    private static void assertUntouched(MemorySegment reused) {
        List<Long> changed = new java.util.ArrayList<>();
        for (long i = 0; i < reused.byteSize(); i++) {
            if (reused.get(ValueLayout.JAVA_BYTE, i) != UNTOUCHED) {
                changed.add(i);
            }
        }
        assertTrue(changed.isEmpty(), changed.size() + " bytes of the new allocation were written, first at offset "
                + (changed.isEmpty() ? -1 : changed.getFirst()));
    }

    private static void join(Thread t) {
        try {
            t.join(COMPLETION_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        assertFalse(t.isAlive(), "the thread did not end within " + COMPLETION_TIMEOUT);
    }

    /**
     * Misuse round 3 (docs/misuse.md): a pool arena that lives as long as the service registers and closes regions
     * without end. Before, each registration left a cleanup in the arena (about 157 bytes, freed only with the
     * arena): 4 000 cycles kept 497 kB. Counted here in the heap, after full collections, by class.
     */
    @Test
    void registeringAndClosingInALongLivedArenaLeavesNothingBehind() throws Exception {
        int cycles = 2000;
        Arena pool = Arena.ofShared();
        MemorySegment memory = pool.allocate(SIZE, MemoryRegion.PAGE_SIZE);
        registerAndClose(pool, memory, 20); // the classes loaded, the arena's tie made
        String censusBefore = HeapCensus.take();
        registerAndClose(pool, memory, cycles);
        Map<String, Long> after = HeapCensus.instancesByClass(HeapCensus.take());
        Map<String, Long> before = HeapCensus.instancesByClass(censusBefore);
        List<String> grown = HeapCensus.grownBy(before, after, cycles / 2);
        System.out.println("arena: " + cycles + " registrations closed in one arena; classes grown by "
                + cycles / 2 + " or more instances: " + grown + " (by 50 or more: "
                + HeapCensus.grownBy(before, after, 50) + ")");
        MemoryRegion open = pd.register(pool, memory, Access.LOCAL_WRITE);
        pool.close();
        assertEquals(List.of(), grown, "what a closed region left behind");
        assertTrue(open.isClosed(), "the arena's one tie still closes the regions open at its close");
    }

    private static void registerAndClose(Arena arena, MemorySegment memory, int times) {
        for (int i = 0; i < times; i++) {
            pd.register(arena, memory, Access.LOCAL_WRITE).close();
        }
    }
}
