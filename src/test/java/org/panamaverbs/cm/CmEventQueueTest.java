package org.panamaverbs.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The waits of an id on its events, without a device: an event the kernel sends within its timeout but that
 * reaches Java late is still taken, and a wait that passes its bound is reported as a timeout of the wait,
 * never as a failure event the kernel did not send.
 */
class CmEventQueueTest {
    private final ScheduledExecutorService kernel = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        kernel.shutdownNow();
    }

    private static CmEvent event(CmEventType type, int status) {
        return new CmEvent(type, status, null, null, null, null, null);
    }

    @Test
    void anEventDeliveredAfterTheNativeTimeoutButWithinTheMarginIsTheOutcome() {
        CmEventQueue queue = new CmEventQueue();
        CmEvent resolved = event(CmEventType.ADDR_RESOLVED, 0);
        // rdma_resolve_addr was given 100 ms; the event reaches Java 400 ms later (a cold JVM's reader)
        kernel.schedule(() -> queue.deliver(resolved), 500, TimeUnit.MILLISECONDS);
        CmEvent outcome = queue.expectAfterNativeTimeout(CmEventType.ADDR_RESOLVED, "rdma_resolve_addr",
                Duration.ofMillis(100), Duration.ofSeconds(10), "resolving 10.0.0.2:1921", "id");
        assertSame(resolved, outcome);
    }

    @Test
    void aWaitThatPassesItsBoundIsAWaitTimeoutNotAnAddressError() {
        CmEventQueue queue = new CmEventQueue();
        long started = System.nanoTime();
        CmException e = assertThrows(CmException.class, () -> queue.expectAfterNativeTimeout(
                CmEventType.ADDR_RESOLVED, "rdma_resolve_addr", Duration.ofMillis(100), Duration.ofMillis(200),
                "resolving 10.0.0.2:1921", "id"));
        long waitedMs = (System.nanoTime() - started) / 1_000_000;
        assertTrue(waitedMs >= 300 && waitedMs < 5_000, "waited " + waitedMs + " ms");
        assertTrue(e.timedOut());
        assertNull(e.event(), "no event: the kernel sent none");
        assertEquals(0, e.status());
        assertEquals("rdma_resolve_addr", e.verb());
        assertEquals("ETIMEDOUT", e.errnoName());
        assertTrue(e.getMessage().contains("timed out waiting for RDMA_CM_EVENT_ADDR_RESOLVED resolving 10.0.0.2:1921"),
                e.getMessage());
        assertTrue(e.getMessage().contains("rdma_resolve_addr was given 100 ms and the wait 200 ms more"), e.getMessage());
        assertTrue(e.getMessage().matches("(?s).*waited \\d+ ms.*"), e.getMessage());
        assertTrue(!e.getMessage().contains("ADDR_ERROR"), e.getMessage());
    }

    @Test
    void theKernelsErrorEventIsReportedWithItsStatus() {
        CmEventQueue queue = new CmEventQueue();
        queue.deliver(event(CmEventType.ADDR_ERROR, -110));
        CmException e = assertThrows(CmException.class, () -> queue.expectAfterNativeTimeout(
                CmEventType.ADDR_RESOLVED, "rdma_resolve_addr", Duration.ofMillis(100), Duration.ofSeconds(1),
                "resolving 10.0.0.2:1921", "id"));
        assertEquals(CmEventType.ADDR_ERROR, e.event());
        assertEquals(-110, e.status());
        assertTrue(!e.timedOut());
        assertTrue(e.getMessage().startsWith("rdma_resolve_addr failed: EHOSTUNREACH"), e.getMessage());
    }

    @Test
    void aJavaOnlyBoundSaysHowLongItWaited() {
        CmEventQueue queue = new CmEventQueue();
        CmException e = assertThrows(CmException.class, () -> queue.expect(CmEventType.ESTABLISHED, "rdma_connect",
                Duration.ofMillis(150), "connecting to 10.0.0.2:1921", "id"));
        assertTrue(e.timedOut());
        assertTrue(e.getMessage().contains("its bound was 150 ms"), e.getMessage());
    }

    @Test
    void closeWakesEveryWaiterAtOnce() throws Exception {
        CmEventQueue queue = new CmEventQueue();
        kernel.schedule(queue::close, 100, TimeUnit.MILLISECONDS);
        long started = System.nanoTime();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> queue.await(Duration.ofSeconds(30), "CmId[test]"));
        assertTrue(e.getMessage().contains("CmId[test] was closed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> queue.await(Duration.ofSeconds(30), "CmId[test]"));
        assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(10));
    }
}
