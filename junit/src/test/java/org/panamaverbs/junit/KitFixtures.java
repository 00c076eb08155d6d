package org.panamaverbs.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.ProtectionDomain;

/**
 * Test classes the kit's own tests run through JUnit's EngineTestKit (nested classes, so Surefire does not run
 * them by itself). Each records what it saw, so the test running it can check the outcome.
 */
final class KitFixtures {
    private KitFixtures() {
    }

    /** A device test class: one test with an injected context, one without parameters; counts bodies run. */
    @RequiresRdmaDevice
    static class DeviceClass {
        static final AtomicInteger bodiesRun = new AtomicInteger();

        @Test
        void withContext(Context context) {
            bodiesRun.incrementAndGet();
            assertFalse(context.isClosed());
        }

        @Test
        void withoutParameters() {
            bodiesRun.incrementAndGet();
        }
    }

    /** A device class with one test that connects (takes the device's address) and one that does not. */
    @RequiresRdmaDevice
    static class AddressClass {
        @Test
        void connects(java.net.InetAddress address) {
            assertFalse(address.isAnyLocalAddress());
        }

        @Test
        void registers(ProtectionDomain pd) {
            assertFalse(pd.isClosed());
        }
    }

    /** A plain test class with one device test method. */
    static class MixedClass {
        @Test
        void plainTest() {
            assertEquals(4, 2 + 2);
        }

        @Test
        @RequiresRdmaDevice
        void deviceTest(ProtectionDomain pd) {
            assertFalse(pd.isClosed());
        }
    }

    /**
     * Two ordered tests on a device: the second checks that the first one's protection domain and completion
     * queues were closed after it while the class's context stayed open and is shared.
     */
    @RequiresRdmaDevice
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class Lifecycle {
        static final List<Context> contexts = new ArrayList<>();
        static final List<ProtectionDomain> protectionDomains = new ArrayList<>();
        static final List<CompletionQueue> completionQueues = new ArrayList<>();

        static void reset() {
            contexts.clear();
            protectionDomains.clear();
            completionQueues.clear();
        }

        @Test
        @Order(1)
        void first(Context context, ProtectionDomain pd, ProtectionDomain samePd, CompletionQueue cq1, CompletionQueue cq2) {
            assertSame(pd, samePd, "one protection domain per test");
            assertNotSame(cq1, cq2, "one completion queue per parameter");
            assertSame(context, pd.context());
            assertSame(context, cq1.context());
            contexts.add(context);
            protectionDomains.add(pd);
            completionQueues.add(cq1);
            completionQueues.add(cq2);
        }

        @Test
        @Order(2)
        void second(Context context, ProtectionDomain pd) {
            assertSame(contexts.getFirst(), context, "one context per class");
            assertFalse(context.isClosed());
            assertTrue(protectionDomains.getFirst().isClosed(), "the first test's protection domain is closed after it");
            assertTrue(completionQueues.stream().allMatch(CompletionQueue::isClosed),
                    "the first test's completion queues are closed after it");
            assertNotSame(protectionDomains.getFirst(), pd);
            protectionDomains.add(pd);
        }
    }

    /** Resources resolved in {@code @BeforeAll}: one protection domain for the class, which the tests get too. */
    @RequiresRdmaDevice
    static class ClassScoped {
        static final List<ProtectionDomain> protectionDomains = new ArrayList<>();
        static final List<CompletionQueue> completionQueues = new ArrayList<>();

        static void reset() {
            protectionDomains.clear();
            completionQueues.clear();
        }

        @BeforeAll
        static void openForTheClass(ProtectionDomain pd, CompletionQueue cq) {
            protectionDomains.add(pd);
            completionQueues.add(cq);
        }

        @Test
        void one(ProtectionDomain pd) {
            assertSame(protectionDomains.getFirst(), pd, "the class's protection domain");
            assertFalse(completionQueues.getFirst().isClosed(), "the class's completion queue is open during its tests");
        }

        @Test
        void two(ProtectionDomain pd) {
            assertSame(protectionDomains.getFirst(), pd, "the class's protection domain");
            assertFalse(pd.isClosed());
        }
    }
}
