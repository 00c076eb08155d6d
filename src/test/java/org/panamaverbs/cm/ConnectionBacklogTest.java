package org.panamaverbs.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The bound of {@code listen(backlog)}, kept for the requests the channel's reader took off the kernel. */
class ConnectionBacklogTest {
    private static CmEvent request(int status) {
        return new CmEvent(CmEventType.CONNECT_REQUEST, status, null, null, null, null, null);
    }

    @Test
    void aFullBacklogRefusesUntilARequestIsTaken() {
        ConnectionBacklog backlog = ConnectionBacklog.of(2);
        assertEquals(2, backlog.limit());
        CmEventQueue queue = new CmEventQueue();
        assertTrue(backlog.offer(request(1), queue));
        assertTrue(backlog.offer(request(2), queue));
        assertFalse(backlog.offer(request(3), queue), "a third request beyond listen(2)");
        assertEquals(1, queue.await(Duration.ZERO, "listener").status());
        backlog.taken();
        assertTrue(backlog.offer(request(4), queue), "room again once one was taken");
        assertFalse(backlog.offer(request(5), queue));
    }

    @Test
    void closeTakesBackEveryRequestStillQueuedAndRefusesLaterOnes() {
        ConnectionBacklog backlog = ConnectionBacklog.of(8);
        CmEventQueue queue = new CmEventQueue();
        backlog.offer(request(1), queue);
        queue.deliver(new CmEvent(CmEventType.DEVICE_REMOVAL, 0, null, null, null, null, null));
        backlog.offer(request(2), queue);
        List<CmEvent> left = backlog.close(queue);
        assertEquals(List.of(1, 2), left.stream().map(CmEvent::status).toList(), "the requests, in arrival order");
        assertFalse(backlog.offer(request(3), queue), "nothing is queued on a closed listener");
        assertEquals(null, queue.await(Duration.ZERO, "listener"), "the queue was drained");
    }

    @Test
    void zeroNegativeAndOversizedBacklogsMeanTheKernelsLimit() {
        int kernel = ConnectionBacklog.of(0).limit();
        assertTrue(kernel >= 1, "the kernel's limit: " + kernel);
        assertEquals(kernel, ConnectionBacklog.of(-1).limit());
        assertEquals(kernel, ConnectionBacklog.of(Integer.MAX_VALUE).limit());
        assertEquals(1, ConnectionBacklog.of(1).limit());
    }
}
