package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import jdk.jfr.consumer.RecordedEvent;

import org.junit.jupiter.api.Test;
import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.PortSpace;

/**
 * The control path's JFR events on a real device: a recording around opening a context, creating a protection
 * domain, a memory region, a completion queue, a shared receive queue, two queue pairs (one on the shared
 * receive queue), an address handle, connecting the pair (RESET → INIT → RTR → RTS), draining a send queue
 * (an SQ_DRAINED async event), a gate refusal and the closes; an rdma_cm address resolution; the backstop.
 * Each event type is found with its fields: device name, sizes as asked and granted, state names, durations.
 */
class JfrEventsDeviceTest extends DeviceTest {

    private record Made(String device, int qpA, int qpB, int mrLkey, int cqEntries) {
    }

    @Test
    void controlPathVerbsAreRecordedWithTheirFields() throws Throwable {
        Made[] made = new Made[1];
        List<RecordedEvent> events = Observation.record(() -> {
            try (Context ctx = Rdma.open(context.name());
                 ProtectionDomain domain = ctx.allocateProtectionDomain();
                 MemoryRegion mr = domain.allocateAndRegister(8192, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
                 CompletionQueue cq = ctx.createCompletionQueue(32);
                 SharedReceiveQueue srq = domain.createSharedReceiveQueue(16, 1)) {
                QueuePair a = domain.createQueuePair(QpConfig.builder(cq)
                        .capabilities(QpCapabilities.of(8, 8)).build());
                QueuePair b = domain.createQueuePair(QpConfig.builder(cq)
                        .capabilities(QpCapabilities.defaults().withMaxSendWr(8)).srq(srq).build());
                QueuePair.connectLoopback(a, b);
                a.drainSendQueue();
                awaitEvent(ctx, AsyncEventType.SQ_DRAINED, COMPLETION_TIMEOUT);
                int gidIndex = ctx.defaultGidIndex(1);
                domain.createAddressHandle(AddressHandle.Target.of(ctx.gid(1, gidIndex), gidIndex, 1)).close();
                b.modifyToError();
                made[0] = new Made(ctx.name(), a.qpNumber(), b.qpNumber(), mr.lkey(), cq.capacity());
            }
            try (Context hwv13 = Rdma.open(context.name(), HardwareClass.PVRDMA_HWV13);
                 ProtectionDomain domain = hwv13.allocateProtectionDomain()) {
                assertThrows(UnsupportedVerbException.class, () -> domain.createSharedReceiveQueue(16, 1));
            }
        });
        String device = made[0].device();

        RecordedEvent open = one(events, "DeviceOpen", e -> device.equals(e.getString("device"))
                && "opened".equals(e.getString("how")) && !e.getBoolean("emulated"));
        assertFalse(open.getString("hardwareClass").isEmpty());
        assertFalse(open.getString("reasons").isEmpty(), "the profile's reasons");
        positiveDuration(open);
        RecordedEvent emulatedOpen = one(events, "DeviceOpen", e -> e.getBoolean("emulated"));
        assertEquals("PVRDMA_HWV13", emulatedOpen.getString("hardwareClass"));

        assertEquals(2, Observation.events(events, "ProtectionDomainCreate", e -> device.equals(e.getString("device")))
                .size(), "one per context");
        Observation.events(events, "ProtectionDomainCreate", e -> true).forEach(JfrEventsDeviceTest::positiveDuration);

        RecordedEvent mr = one(events, "MemoryRegionCreate", e -> e.getInt("lkey") == made[0].mrLkey());
        assertEquals(device, mr.getString("device"));
        assertEquals(8192, mr.getLong("length"));
        assertEquals(Access.bits(Access.LOCAL_WRITE, Access.REMOTE_WRITE), mr.getInt("access"));
        assertTrue(mr.getBoolean("ownsMemory"));
        positiveDuration(mr);

        RecordedEvent cq = one(events, "CompletionQueueCreate", e -> device.equals(e.getString("device")));
        assertEquals(32, cq.getInt("requestedEntries"));
        assertEquals(made[0].cqEntries(), cq.getInt("entries"));
        assertTrue(cq.getInt("entries") >= 32);
        assertFalse(cq.getBoolean("withChannel"));
        positiveDuration(cq);

        RecordedEvent srq = one(events, "SharedReceiveQueueCreate", e -> device.equals(e.getString("device")));
        assertTrue(srq.getInt("maxWr") >= 16 && srq.getInt("maxSge") >= 1, srq.toString());
        positiveDuration(srq);

        RecordedEvent qpA = one(events, "QueuePairCreate", e -> e.getInt("qpNumber") == made[0].qpA());
        assertEquals(device, qpA.getString("device"));
        assertEquals("RC", qpA.getString("qpType"));
        assertTrue(qpA.getInt("maxSendWr") >= 8 && qpA.getInt("maxRecvWr") >= 8, qpA.toString());
        assertFalse(qpA.getBoolean("sharedReceiveQueue"));
        positiveDuration(qpA);
        RecordedEvent qpB = one(events, "QueuePairCreate", e -> e.getInt("qpNumber") == made[0].qpB());
        assertTrue(qpB.getBoolean("sharedReceiveQueue"));

        RecordedEvent ah = one(events, "AddressHandleCreate", e -> device.equals(e.getString("device")));
        assertEquals(1, ah.getInt("port"));
        assertFalse(ah.getString("destinationGid").isEmpty());
        positiveDuration(ah);

        List<String> transitionsOfA = Observation.events(events, "QueuePairTransition",
                e -> e.getInt("qpNumber") == made[0].qpA()).stream()
                .map(e -> e.getString("fromState") + "→" + e.getString("toState")).toList();
        assertEquals(List.of("RESET→INIT", "INIT→RTR", "RTR→RTS", "RTS→SQD"), transitionsOfA);
        List<String> transitionsOfB = Observation.events(events, "QueuePairTransition",
                e -> e.getInt("qpNumber") == made[0].qpB()).stream()
                .map(e -> e.getString("fromState") + "→" + e.getString("toState")).toList();
        assertEquals(List.of("RESET→INIT", "INIT→RTR", "RTR→RTS", "RTS→ERR"), transitionsOfB);
        Observation.events(events, "QueuePairTransition", e -> true).forEach(e -> {
            assertTrue(e.getBoolean("succeeded"), e.toString());
            assertEquals(device, e.getString("device"));
            positiveDuration(e);
        });

        RecordedEvent drained = one(events, "AsyncEvent", e -> "SQ_DRAINED".equals(e.getString("eventType")));
        assertEquals(device, drained.getString("device"));
        assertTrue(drained.getString("resource").contains("0x" + Integer.toHexString(made[0].qpA())), drained.toString());

        RecordedEvent refused = one(events, "VerbRefused", e -> true);
        assertEquals("ibv_create_srq", refused.getString("verb"));
        assertEquals(device, refused.getString("device"));
        assertTrue(refused.getBoolean("emulated"));
        assertTrue(refused.getString("message").contains("PVRDMA HWv14 (ESXi 6.7) or later"), refused.toString());

        List<String> destroyed = Observation.events(events, "ResourceDestroy", e -> device.equals(e.getString("device")))
                .stream().map(e -> e.getString("resourceType")).toList();
        for (String type : List.of("AddressHandle", "QueuePair", "SharedReceiveQueue", "CompletionQueue", "MemoryRegion",
                "ProtectionDomain", "Context")) {
            assertTrue(destroyed.contains(type), type + " among " + destroyed);
        }
        assertEquals(2, destroyed.stream().filter("QueuePair"::equals).count(), destroyed.toString());
        Observation.events(events, "ResourceDestroy", e -> device.equals(e.getString("device"))).forEach(e -> {
            assertTrue(e.getBoolean("succeeded") && !e.getBoolean("givenBack"), e.toString());
            positiveDuration(e);
        });

    }

    @Test
    void anAddressResolutionIsRecordedAsAConnectionEvent() throws Throwable {
        InetAddress address = DeviceUnderTest.requireAddress("JFR's connection events");
        List<RecordedEvent> events = Observation.record(() -> {
            try (CmEventChannel channel = CmEventChannel.create(); CmId id = CmId.create(channel, PortSpace.TCP)) {
                id.resolveAddress(new InetSocketAddress(address, 7471), Duration.ofSeconds(30));
            }
        });
        RecordedEvent resolved = one(events, "ConnectionEvent",
                e -> "RDMA_CM_EVENT_ADDR_RESOLVED".equals(e.getString("eventType")));
        assertEquals(0, resolved.getInt("status"));
        assertTrue(resolved.getString("cmId").startsWith("CmId[TCP"), resolved.toString());
        assertTrue(resolved.getString("peer").contains(address.getHostAddress()), resolved.toString());
    }

    @Test
    void aContextLostWithoutCloseIsRecordedAsBackstopFree() throws Throwable {
        int freedBefore = Backstop.TREES_FREED.get();
        List<RecordedEvent> events = Observation.record(() -> {
            openAndForget();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (Backstop.TREES_FREED.get() == freedBefore && System.nanoTime() < deadline) {
                System.gc();
                Thread.sleep(100);
            }
        });
        assertEquals(freedBefore + 1, Backstop.TREES_FREED.get(), "the backstop freed the lost tree");
        RecordedEvent freed = one(events, "BackstopFree", e -> true);
        assertEquals("Context[" + context.name() + "]", freed.getString("tree"));
        assertEquals(3, freed.getInt("objects"), freed.toString());
        assertTrue(freed.getString("objectList").contains("CompletionQueue"), freed.toString());
        assertEquals("", freed.getString("failures"));
    }

    /** A context with a protection domain and a completion queue, none closed: 3 native objects. */
    private static void openAndForget() {
        Context ctx = Rdma.open(context.name());
        ctx.allocateProtectionDomain();
        ctx.createCompletionQueue(16);
    }

    private static RecordedEvent one(List<RecordedEvent> events, String name, java.util.function.Predicate<RecordedEvent> filter) {
        List<RecordedEvent> found = Observation.events(events, name, filter);
        assertEquals(1, found.size(), "one " + name + " event expected among " + Observation.events(events, name, e -> true));
        return found.getFirst();
    }

    private static void positiveDuration(RecordedEvent event) {
        assertTrue(event.getDuration().toNanos() > 0, "a duration > 0: " + event);
    }
}
