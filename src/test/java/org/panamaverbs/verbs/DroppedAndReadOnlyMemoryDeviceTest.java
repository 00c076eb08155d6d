package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.WeakReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Misuse round 3 (docs/misuse.md): views over memory the caller may drop, and write access to memory the caller
 * made read-only. Each case ended in a JVM crash or a device write into memory that was not the program's before.
 */
@Tag("rdma-device")
class DroppedAndReadOnlyMemoryDeviceTest extends DeviceTest {
    /** Slots enough that the array's memory is a mapping of its own, which a free unmaps (a read then faults). */
    private static final int LARGE = 200_000;

    @Test
    void aCompletionKeptFromADroppedArrayStillReadsItsOwnMemory() throws InterruptedException {
        try (Loopback l = new Loopback(4096, 1)) {
            long id = 0x5EED_C0FFEEL;
            l.sends.get(0).wrId(id).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(l.mrA, 0, 64)
                    .remote(l.mrB.address(), l.mrB.rkey());
            l.a.postSendOrThrow(l.sends, 1);
            CompletionArray array = CompletionArray.allocate(LARGE);
            long deadline = System.nanoTime() + COMPLETION_TIMEOUT.toNanos();
            while (l.cqA.poll(array) == 0) {
                assertTrue(System.nanoTime() < deadline, "no completion within " + COMPLETION_TIMEOUT);
                Thread.onSpinWait();
            }
            WorkCompletion kept = array.get(0);
            WeakReference<CompletionArray> dropped = new WeakReference<>(array);
            array = null; // dropped without close(), as its Javadoc allows
            for (int i = 0; i < 50 && dropped.get() != null; i++) {
                System.gc();
                Thread.sleep(20);
            }
            assertTrue(dropped.get() == null, "the array became unreachable");
            System.gc();
            Thread.sleep(200); // time for the automatic arena's cleaner, had it been allowed to free the memory
            assertEquals(id, kept.wrId());
            assertEquals(WcStatus.SUCCESS, kept.status());
            assertEquals(WcOpcode.RDMA_WRITE, kept.opcode());
        }
    }

    /**
     * The same question for the other flyweights over automatic memory: a request kept from a dropped
     * {@code SendChain} / {@code RecvChain} holds its chain, so it writes and reads its own memory.
     */
    @Test
    void aRequestKeptFromADroppedChainStillWritesItsOwnMemory() throws InterruptedException {
        SendWorkRequest send = SendChain.allocate(LARGE / 4, 1).get(LARGE / 4 - 1);
        RecvWorkRequest recv = RecvChain.allocate(LARGE / 4, 1).get(0);
        send.wrId(41);
        recv.wrId(42);
        for (int i = 0; i < 10; i++) {
            System.gc(); // the chains are unreachable but through the kept requests
            Thread.sleep(20);
        }
        assertEquals(41, send.wrId());
        assertEquals(42, recv.wrId());
        send.wrId(43).opcode(WrOpcode.SEND);
        assertEquals(43, send.wrId());
    }

    @Test
    void aReadOnlySegmentIsRefusedForEveryWriteAccess() {
        try (Arena arena = Arena.ofConfined(); CompletionQueue cq = context.createCompletionQueue(4)) {
            MemorySegment readOnly = arena.allocate(4096, 4096).asReadOnly();
            for (Access write : new Access[] {Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC}) {
                IllegalArgumentException tied = assertThrows(IllegalArgumentException.class,
                        () -> pd.register(arena, readOnly, write), write.name());
                assertTrue(tied.getMessage().contains("read-only"), tied.getMessage());
                assertThrows(IllegalArgumentException.class, () -> pd.register(readOnly, write), write.name());
            }
            // the provider's struct ibv_cq, which a receive into it would have overwritten
            assertThrows(IllegalArgumentException.class, () -> pd.register(cq.handle(), Access.LOCAL_WRITE));
            // read-only memory may still be a source: sends and a peer's RDMA READ write nothing into it
            try (MemoryRegion source = pd.register(arena, readOnly, Access.REMOTE_READ)) {
                assertEquals(readOnly.address(), source.address());
            }
        }
    }
}
