package org.panamaverbs.junit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.panamaverbs.junit.Outcomes.Outcome;
import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.Rdma;
import org.panamaverbs.verbs.RdmaDevice;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.WcOpcode;
import org.panamaverbs.verbs.WrOpcode;

/**
 * The kit on a real device (run in panama-verbs' guest: rxe0): the injected context is open on the chosen
 * device, the injected protection domain and completion queue carry an RDMA WRITE, and everything the kit
 * opened is closed when its scope ends, down to the device's resource counts.
 */
@RequiresRdmaDevice
class RdmaExtensionDeviceTest {
    private static final Duration COMPLETION_TIMEOUT = Duration.ofSeconds(60);

    @Test
    void injectsAnOpenContextOnTheChosenDevice(Context context) {
        assertFalse(context.isClosed());
        String named = System.getenv(RdmaExtension.DEVICE_ENV);
        String expected = named == null || named.isBlank() ? Rdma.devices().getFirst().name() : named.strip();
        assertEquals(expected, context.name());
    }

    @Test
    void injectsTheChosenDeviceAndAnAddressOfItsInterface(Context context, RdmaDevice device, InetAddress address) {
        assertEquals(context.device().name(), device.name());
        // without a setting the address comes from the GID table: on RoCE, the interface's IPv4 address, which is
        // what the project's guest also gives in RDMA_TEST_ADDRESS
        AddressChoice fromGids = AddressChoice.decide(new DeviceChoice(device.name(), null, false),
                key -> Optional.empty(), key -> null);
        assertNotNull(fromGids.address(), fromGids.problem());
        String given = System.getenv(RdmaExtension.ADDRESS_ENV);
        if (given != null && !given.isBlank()) {
            assertEquals(given.strip(), address.getHostAddress());
            assertEquals(address, fromGids.address(), "the GID table's first IPv4 address is the given one");
        } else {
            assertEquals(fromGids.address(), address);
        }
    }

    @Test
    void withoutAnAddressOnlyTheTestThatTakesOneIsSkippedOrFailsWhenRequired() {
        Map<String, String> unresolvable = Map.of(RdmaExtension.ADDRESS_PROPERTY, "no-such-host.invalid");
        List<Outcome> outcomes = Outcomes.run(KitFixtures.AddressClass.class, unresolvable);
        Outcome connects = Outcomes.find(outcomes, "connects(InetAddress)");
        assertEquals("SKIPPED", connects.result(), connects.toString());
        assertTrue(connects.detail().contains("no-such-host.invalid"), connects.detail());
        assertEquals("SUCCESSFUL", Outcomes.find(outcomes, "registers(ProtectionDomain)").result(), outcomes.toString());

        Map<String, String> required = Map.of(RdmaExtension.ADDRESS_PROPERTY, "no-such-host.invalid",
                RdmaExtension.REQUIRE_DEVICE_PROPERTY, "true");
        Outcome failed = Outcomes.find(Outcomes.run(KitFixtures.AddressClass.class, required), "connects(InetAddress)");
        assertEquals("FAILED", failed.result(), failed.toString());
        assertTrue(failed.detail().contains("no-such-host.invalid"), failed.detail());
    }

    @Test
    void injectedProtectionDomainAndCompletionQueueCarryAnRdmaWrite(Context context, ProtectionDomain pd,
                                                                     CompletionQueue cq) {
        assertSame(context, pd.context());
        assertSame(context, cq.context());
        assertTrue(cq.capacity() >= RdmaExtension.COMPLETION_QUEUE_CAPACITY, "capacity " + cq.capacity());
        MemoryRegion source = pd.allocateAndRegister(4096, Access.LOCAL_WRITE);
        MemoryRegion target = pd.allocateAndRegister(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        for (int i = 0; i < 4096; i++) {
            source.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 3));
        }
        QueuePair qp = pd.createQueuePair(QpConfig.builder(cq).capabilities(QpCapabilities.of(4, 4)).build());
        QueuePair.connectLoopback(qp, qp);
        try (SendChain sends = SendChain.allocate(1, 1)) {
            sends.get(0).wrId(42).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(source, 0, 4096)
                    .remote(target.address(), target.rkey());
            qp.postSendOrThrow(sends, 1);
        }
        Completion done = Completions.await(cq, 1, COMPLETION_TIMEOUT).getFirst();
        assertTrue(done.isSuccess(), done.toString());
        assertEquals(42, done.wrId());
        assertEquals(WcOpcode.RDMA_WRITE, done.opcode());
        assertEquals(qp.qpNumber(), done.qpNumber());
        assertArrayEquals(source.segment().toArray(ValueLayout.JAVA_BYTE), target.segment().toArray(ValueLayout.JAVA_BYTE));
        // qp and both regions are left open on purpose: the protection domain's close after the test frees them
    }

    @Test
    void closesWhatItInjectedAfterEachTestAndAfterTheClass() throws Exception {
        KitFixtures.Lifecycle.reset();
        List<String> before = resourceCounts();
        List<Outcome> outcomes = Outcomes.run(KitFixtures.Lifecycle.class, Map.of());
        List<Outcome> tests = outcomes.stream().filter(o -> !o.container()).toList();
        assertEquals(2, tests.size(), outcomes.toString());
        assertTrue(outcomes.stream().allMatch(o -> o.result().equals("SUCCESSFUL")), outcomes.toString());

        assertEquals(1, KitFixtures.Lifecycle.contexts.size());
        assertTrue(KitFixtures.Lifecycle.contexts.getFirst().isClosed(), "the class's context is closed after it");
        assertEquals(2, KitFixtures.Lifecycle.protectionDomains.size());
        assertTrue(KitFixtures.Lifecycle.protectionDomains.stream().allMatch(ProtectionDomain::isClosed));
        assertTrue(KitFixtures.Lifecycle.completionQueues.stream().allMatch(CompletionQueue::isClosed));
        assertEquals(before, resourceCounts(), "the device's resource counts after the fixture class ran");
    }

    @Test
    void resourcesResolvedInBeforeAllLiveForTheClass() throws Exception {
        KitFixtures.ClassScoped.reset();
        List<String> before = resourceCounts();
        List<Outcome> outcomes = Outcomes.run(KitFixtures.ClassScoped.class, Map.of());
        assertEquals(2, outcomes.stream().filter(o -> !o.container()).count(), outcomes.toString());
        assertTrue(outcomes.stream().allMatch(o -> o.result().equals("SUCCESSFUL")), outcomes.toString());
        assertEquals(1, KitFixtures.ClassScoped.protectionDomains.size());
        assertTrue(KitFixtures.ClassScoped.protectionDomains.getFirst().isClosed(), "closed after the class");
        assertTrue(KitFixtures.ClassScoped.completionQueues.getFirst().isClosed(), "closed after the class");
        assertEquals(before, resourceCounts(), "the device's resource counts after the fixture class ran");
    }

    /**
     * {@code rdma resource show} (device-wide pd, cq, qp, mr, ctx counts) and, per object type, how many this
     * process's threads own: the kernel records the creating thread's id.
     */
    private static List<String> resourceCounts() throws IOException, InterruptedException {
        List<String> counts = new ArrayList<>(rdma("resource", "show"));
        Set<String> threads;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            threads = tasks.map(t -> t.getFileName().toString()).collect(Collectors.toSet());
        }
        Pattern pid = Pattern.compile("\\bpid (\\d+)\\b");
        for (String type : List.of("pd", "cq", "qp", "mr")) {
            long mine = rdma("resource", "show", type).stream().map(pid::matcher)
                    .filter(m -> m.find() && threads.contains(m.group(1))).count();
            counts.add("this process: " + mine + " " + type);
        }
        return counts;
    }

    private static List<String> rdma(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("rdma"));
        command.addAll(List.of(args));
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException noTool) {
            throw new AssertionError("the rdma tool (iproute2) is missing: the resource counts cannot be read", noTool);
        }
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed: " + out);
        }
        return out.lines().filter(l -> !l.isBlank()).toList();
    }
}
