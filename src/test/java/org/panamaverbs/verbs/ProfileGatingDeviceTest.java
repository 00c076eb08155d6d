package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The test device under emulated PVRDMA profiles refuses and allows exactly what ESXi 6.5 / 6.7 would. */
class ProfileGatingDeviceTest extends DeviceTest {

    @Test
    void theRealDeviceIsDetectedAndExplained() {
        DeviceProfile profile = context.profile();
        assertFalse(profile.emulated());
        assertFalse(profile.reasons().isEmpty());
        if (context.name().startsWith("rxe")) {
            assertEquals(HardwareClass.NOT_PVRDMA, profile.hardwareClass(), profile.reasons().toString());
            assertTrue(profile.capabilities().atomics() && profile.capabilities().sharedReceiveQueues());
        }
    }

    @Test
    void hwv13RefusesWhatEsxi65Lacks() {
        assumeFalse(context.profile().hardwareClass() == HardwareClass.PVRDMA_HWV14, "a real HWv14 device cannot be narrowed further here");
        try (Context ctx = Rdma.open(context.name(), HardwareClass.PVRDMA_HWV13);
             ProtectionDomain domain = ctx.allocateProtectionDomain();
             CompletionQueue cq = ctx.createCompletionQueue(64)) {
            assertTrue(ctx.profile().emulated());
            assertEquals(HardwareClass.PVRDMA_HWV13, ctx.profile().hardwareClass());
            UnsupportedVerbException srq = assertThrows(UnsupportedVerbException.class, () -> domain.createSharedReceiveQueue(16, 1));
            assertTrue(srq.getMessage().contains("PVRDMA HWv14 (ESXi 6.7) or later"), srq.getMessage());
            assertThrows(UnsupportedVerbException.class,
                    () -> domain.createQueuePair(QpConfig.builder(cq).type(QpType.UC).build()));
            assertThrows(UnsupportedVerbException.class,
                    () -> domain.createQueuePair(QpConfig.builder(cq)
                            .capabilities(QpCapabilities.defaults().withMaxInlineData(64)).build()));
            List<QueuePair> ud = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ud.add(domain.createQueuePair(QpConfig.builder(cq).type(QpType.UD).build()));
            }
            UnsupportedVerbException fourth = assertThrows(UnsupportedVerbException.class,
                    () -> domain.createQueuePair(QpConfig.builder(cq).type(QpType.UD).build()));
            assertTrue(fourth.getMessage().contains("at most 3 UD queue pairs"), fourth.getMessage());
            ud.getFirst().close();
            ud.add(domain.createQueuePair(QpConfig.builder(cq).type(QpType.UD).build())); // room again

            QueuePair a = domain.createQueuePair(QpConfig.builder(cq).build());
            QueuePair b = domain.createQueuePair(QpConfig.builder(cq).build());
            QueuePair.connectLoopback(a, b);
            assertEquals(0, a.query().access() & Access.REMOTE_ATOMIC.bit(), "no remote atomic access under PVRDMA");
            try (MemoryRegion mr = domain.allocateAndRegister(8192, Access.LOCAL_WRITE);
                 SendChain sends = SendChain.allocate(1, 1);
                 RecvChain recvs = RecvChain.allocate(1, 1)) {
                sends.get(0).wrId(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED).sge(mr, 0, 8)
                        .atomic(mr.address() + 64, mr.rkey(), 1, 0);
                assertThrows(UnsupportedVerbException.class, () -> a.postSend(sends, 1));
                sends.get(0).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED | SendFlags.INLINE).sge(mr, 0, 16);
                assertThrows(UnsupportedVerbException.class, () -> a.postSend(sends, 1));

                fill(mr, 0, 1000, 90);
                recvs.get(0).wrId(2).sge(mr, 4096, 4096);
                b.postRecvOrThrow(recvs, 1);
                sends.get(0).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(mr, 0, 1000);
                a.postSendOrThrow(sends, 1);
                List<Done> done = await(cq, 2);
                assertTrue(done.stream().allMatch(d -> d.status() == WcStatus.SUCCESS), done.toString());
                assertArrayEquals(bytes(mr, 0, 1000), bytes(mr, 4096, 1000), "RC SEND/RECV still works");
            }
        }
    }

    @Test
    void hwv14AllowsSrqAndMoreUdButNoAtomics() {
        try (Context ctx = Rdma.open(context.name(), HardwareClass.PVRDMA_HWV14);
             ProtectionDomain domain = ctx.allocateProtectionDomain();
             CompletionQueue cq = ctx.createCompletionQueue(64)) {
            assertEquals(HardwareClass.PVRDMA_HWV14, ctx.profile().hardwareClass());
            if (context.attributes().maxSrq() > 0) {
                domain.createSharedReceiveQueue(16, 1).close();
            }
            for (int i = 0; i < 4; i++) {
                domain.createQueuePair(QpConfig.builder(cq).type(QpType.UD).build());
            }
            assertThrows(UnsupportedVerbException.class,
                    () -> domain.createQueuePair(QpConfig.builder(cq).type(QpType.UC).build()));
            assertFalse(ctx.profile().capabilities().atomics());
        }
    }

    @Test
    void theSystemPropertyChoosesTheProfile() {
        System.setProperty("panamaverbs.profile", "pvrdma-hwv13");
        try (Context ctx = Rdma.open(context.name())) {
            assertEquals(HardwareClass.PVRDMA_HWV13, ctx.profile().hardwareClass());
            assertTrue(ctx.profile().emulated());
        } finally {
            System.clearProperty("panamaverbs.profile");
        }
    }
}
