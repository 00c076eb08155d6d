package org.panamaverbs.internal;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The descriptor poller on an eventfd (no RDMA device needed): the waits the background readers use
 * ({@link FdPoller#UNTIL_INTERRUPTED}) end on readiness or interrupt and on nothing else, and an interrupted
 * caller returns at once instead of spinning until its deadline.
 */
class FdPollerTest {
    private Arena arena;
    private int fd;
    private MemorySegment counter;

    @BeforeEach
    void open() {
        fd = Libc.eventfd();
        assertTrue(fd >= 0, "eventfd: errno " + -fd);
        arena = Arena.ofShared();
        counter = arena.allocate(JAVA_LONG);
    }

    @AfterEach
    void close() {
        Libc.close(fd);
        arena.close();
    }

    /** One non-blocking read of the eventfd: its counter, or null when it is zero (EAGAIN). */
    private Long tryRead() {
        return Libc.read(fd, counter, 8) == 8 ? counter.get(JAVA_LONG, 0) : null;
    }

    private void signal(long value) {
        counter.set(JAVA_LONG, 0, value);
        assertEquals(8, Libc.write(fd, counter, 8));
    }

    @Test
    void anUntimedWaitEndsWhenTheDescriptorBecomesReadable() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        CompletableFuture<Long> read = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> read.complete(FdPoller.instance().awaitNonBlocking(fd, FdPoller.UNTIL_INTERRUPTED, () -> {
            attempts.incrementAndGet();
            return tryRead();
        })));
        Thread.sleep(500);
        assertTrue(attempts.get() <= 2, "an idle untimed wait retried " + attempts.get() + " times in 0.5 s");
        signal(42);
        assertEquals(42L, read.get(10, TimeUnit.SECONDS));
    }

    @Test
    void anUntimedWaitEndsOnInterruptWithTheStatusKept() throws Exception {
        CompletableFuture<String> outcome = new CompletableFuture<>();
        Thread waiter = Thread.ofVirtual().start(() -> {
            Long value = FdPoller.instance().awaitNonBlocking(fd, FdPoller.UNTIL_INTERRUPTED, this::tryRead);
            outcome.complete(value + " interrupted=" + Thread.currentThread().isInterrupted());
        });
        Thread.sleep(300);
        long interrupting = System.nanoTime();
        waiter.interrupt();
        assertEquals("null interrupted=true", outcome.get(10, TimeUnit.SECONDS));
        System.out.println("fd poller: an untimed wait ended " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - interrupting)
                + " ms after its interrupt");
        signal(1); // the cancelled waiter must not have taken the event: a later wait still reads it
        assertEquals(1L, FdPoller.instance().awaitNonBlocking(fd, Duration.ofSeconds(10).toNanos(), this::tryRead));
    }

    @Test
    void anInterruptedCallerReturnsAtOnceInsteadOfSpinningUntilItsDeadline() {
        AtomicInteger attempts = new AtomicInteger();
        AtomicBoolean stillInterrupted = new AtomicBoolean();
        Thread.currentThread().interrupt();
        long start = System.nanoTime();
        try {
            assertNull(FdPoller.instance().awaitNonBlocking(fd, Duration.ofSeconds(10).toNanos(), () -> {
                attempts.incrementAndGet();
                return tryRead();
            }));
        } finally {
            stillInterrupted.set(Thread.interrupted());
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(stillInterrupted.get(), "the interrupt status is kept");
        assertEquals(1, attempts.get(), "one attempt, then back to the caller");
        assertTrue(millis < 5000, "took " + millis + " ms of a 10 s timeout");
    }
}
