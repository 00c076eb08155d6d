package org.panamaverbs.verbs;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/** Compare-and-swap, fetch-and-add and inline sends, and their refusals where unsupported. */
class AtomicAndInlineDeviceTest extends DeviceTest {

    private static void assumeAtomics() {
        assumeTrue(context.attributes().atomicCapability() != AtomicCapability.NONE,
                context.name() + " has no atomics");
    }

    @Test
    void compareAndSwapReturnsTheOldValueAndSwapsOnlyOnMatch() {
        assumeAtomics();
        try (Loopback l = new Loopback(4096, 1)) {
            l.mrB.segment().set(JAVA_LONG, 64, 1000L);
            l.sends.get(0).wrId(1).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).flags(SendFlags.SIGNALED).sge(l.mrA, 0, 8)
                    .atomic(l.mrB.address() + 64, l.mrB.rkey(), 1000L, 2000L);
            l.a.postSendOrThrow(l.sends, 1);
            Done done = await(l.cqA, 1).getFirst();
            assertEquals(WcStatus.SUCCESS, done.status());
            assertEquals(WcOpcode.COMP_SWAP, done.opcode());
            assertEquals(1000L, l.mrA.segment().get(JAVA_LONG, 0), "old value returned");
            assertEquals(2000L, l.mrB.segment().get(JAVA_LONG, 64), "swapped");

            l.sends.get(0).wrId(2).atomic(l.mrB.address() + 64, l.mrB.rkey(), 1000L, 3000L);
            l.a.postSendOrThrow(l.sends, 1);
            assertEquals(WcStatus.SUCCESS, await(l.cqA, 1).getFirst().status());
            assertEquals(2000L, l.mrA.segment().get(JAVA_LONG, 0));
            assertEquals(2000L, l.mrB.segment().get(JAVA_LONG, 64), "no swap when the compare fails");
        }
    }

    @Test
    void fetchAndAddAddsAndReturnsTheOldValue() {
        assumeAtomics();
        try (Loopback l = new Loopback(4096, 1)) {
            l.mrB.segment().set(JAVA_LONG, 128, 40L);
            for (int i = 0; i < 3; i++) {
                l.sends.get(i).wrId(i).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                        .sge(l.mrA, i * 8L, 8).atomic(l.mrB.address() + 128, l.mrB.rkey(), 1L << i, 0);
            }
            l.a.postSendOrThrow(l.sends, 3);
            assertTrue(await(l.cqA, 3).stream().allMatch(d -> d.status() == WcStatus.SUCCESS && d.opcode() == WcOpcode.FETCH_ADD));
            assertEquals(47L, l.mrB.segment().get(JAVA_LONG, 128));
            assertEquals(40L, l.mrA.segment().get(JAVA_LONG, 0));
            assertEquals(41L, l.mrA.segment().get(JAVA_LONG, 8));
            assertEquals(43L, l.mrA.segment().get(JAVA_LONG, 16));
        }
    }

    @Test
    void atomicsAreRefusedOnUnalignedAddressesAndWrongLocalBuffers() {
        try (Loopback l = new Loopback(4096, 2)) {
            SendWorkRequest wr = l.sends.get(0).wrId(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED);
            IllegalArgumentException unaligned = assertThrows(IllegalArgumentException.class,
                    () -> wr.atomic(l.mrB.address() + 4, l.mrB.rkey(), 1, 0));
            assertTrue(unaligned.getMessage().contains("8-byte aligned"), unaligned.getMessage());
            wr.atomic(l.mrB.address(), l.mrB.rkey(), 1, 0).sge(l.mrA, 0, 16);
            RuntimeException e = assertThrows(RuntimeException.class, () -> l.a.postSend(l.sends, 1));
            if (context.attributes().atomicCapability() == AtomicCapability.NONE) {
                assertTrue(e instanceof UnsupportedVerbException, e.toString());
            } else {
                assertTrue(e instanceof IllegalArgumentException && e.getMessage().contains("8-byte"), e.toString());
            }
        }
    }

    @Test
    void inlineSendCarriesThePayloadUpToMaxInlineData() {
        try (CompletionQueue cqA = context.createCompletionQueue(16);
             CompletionQueue cqB = context.createCompletionQueue(16);
             QueuePair a = pd.createQueuePair(QpConfig.builder(cqA)
                     .capabilities(QpCapabilities.defaults().withMaxInlineData(64)).build());
             QueuePair b = pd.createQueuePair(QpConfig.builder(cqB).build());
             MemoryRegion src = pd.allocateAndRegister(4096, Access.LOCAL_WRITE);
             MemoryRegion dst = pd.allocateAndRegister(4096, Access.LOCAL_WRITE);
             SendChain sends = SendChain.allocate(1, 1);
             RecvChain recvs = RecvChain.allocate(1, 1)) {
            assumeTrue(a.capabilities().maxInlineData() >= 64, "device granted no inline data");
            QueuePair.connectLoopback(a, b);
            fill(src, 0, 64, 60);
            byte[] expected = bytes(src, 0, 64);
            recvs.get(0).wrId(5).sge(dst, 0, 128);
            b.postRecvOrThrow(recvs, 1);
            sends.get(0).wrId(6).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED | SendFlags.INLINE).sge(src, 0, 64);
            a.postSendOrThrow(sends, 1);
            fill(src, 0, 64, 61); // inline: the payload was copied at post time
            assertEquals(WcStatus.SUCCESS, await(cqA, 1).getFirst().status());
            assertEquals(64, await(cqB, 1).getFirst().byteLength());
            assertArrayEquals(expected, bytes(dst, 0, 64));

            int max = a.capabilities().maxInlineData();
            try (MemoryRegion big = pd.allocateAndRegister(max + 1, Access.LOCAL_WRITE)) {
                sends.get(0).sge(big, 0, max + 1);
                IllegalArgumentException tooLarge = assertThrows(IllegalArgumentException.class, () -> a.postSend(sends, 1));
                assertTrue(tooLarge.getMessage().contains("max_inline_data"), tooLarge.getMessage());
            }
        }
    }

    @Test
    void inlineBeyondWhatTheQueuePairWasGrantedIsRefused() {
        try (Loopback l = new Loopback(4096, 1)) {
            int granted = l.a.capabilities().maxInlineData();
            l.sends.get(0).wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.INLINE).sge(l.mrA, 0, granted + 1);
            RuntimeException e = assertThrows(RuntimeException.class, () -> l.a.postSend(l.sends, 1));
            if (granted == 0) {
                assertTrue(e instanceof UnsupportedVerbException && e.getMessage().contains("max_inline_data 0"), e.toString());
            } else {
                // rxe grants some inline room even when none was asked for
                assertTrue(e instanceof IllegalArgumentException && e.getMessage().contains("max_inline_data " + granted),
                        e.toString());
            }
            l.sends.get(0).flags(SendFlags.SIGNALED);
            assertEquals(0, l.sends.specialCount, "clearing the flag clears the check");
        }
    }
}
