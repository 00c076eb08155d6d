package org.panamaverbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;

/** Tasks run on an idle thread if there is one, on a new one if not; a blocked task holds up no other. */
class ReusedThreadsTest {

    @Test
    void tasksOneAfterAnotherRunOnOneThread() throws Exception {
        ReusedThreads threads = new ReusedThreads("reused-test", 10, TimeUnit.SECONDS);
        BlockingQueue<Thread> ran = new ArrayBlockingQueue<>(10);
        for (int i = 0; i < 10; i++) {
            threads.execute(() -> ran.add(Thread.currentThread()));
            Thread first = ran.poll(10, TimeUnit.SECONDS);
            assertEquals("reused-test", first.getName());
            assertTrue(first.isDaemon());
            Thread.sleep(20); // the thread is back among the idle ones
            threads.execute(() -> ran.add(Thread.currentThread()));
            assertEquals(first, ran.poll(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void aBlockedTaskHoldsUpNoOther() throws Exception {
        ReusedThreads threads = new ReusedThreads("reused-test", 10, TimeUnit.SECONDS);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch blocked = new CountDownLatch(3);
        Set<Thread> blockers = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < 3; i++) {
            threads.execute(() -> {
                blockers.add(Thread.currentThread());
                blocked.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        assertTrue(blocked.await(10, TimeUnit.SECONDS), "three blocked tasks, three threads");
        assertEquals(3, blockers.size());
        BlockingQueue<Thread> ran = new ArrayBlockingQueue<>(1);
        threads.execute(() -> ran.add(Thread.currentThread()));
        Thread fourth = ran.poll(10, TimeUnit.SECONDS);
        assertFalse(blockers.contains(fourth), "ran beside the blocked ones");
        release.countDown();
    }

    @Test
    void anIdleThreadEndsAfterTheKeepAliveAndANewOneTakesOver() throws Exception {
        ReusedThreads threads = new ReusedThreads("reused-test", 50, TimeUnit.MILLISECONDS);
        BlockingQueue<Thread> ran = new ArrayBlockingQueue<>(1);
        threads.execute(() -> ran.add(Thread.currentThread()));
        Thread first = ran.poll(10, TimeUnit.SECONDS);
        first.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(first.isAlive(), "ended once idle for the keep-alive");
        threads.execute(() -> ran.add(Thread.currentThread()));
        assertNotEquals(first, ran.poll(10, TimeUnit.SECONDS));
    }

    @Test
    void manyTasksFromManyThreadsAllRun() throws Exception {
        ReusedThreads threads = new ReusedThreads("reused-test", 5, TimeUnit.MILLISECONDS);
        int submitters = 4;
        int each = 2_000;
        CountDownLatch done = new CountDownLatch(submitters * each);
        for (int s = 0; s < submitters; s++) {
            Thread.ofPlatform().start(() -> {
                for (int i = 0; i < each; i++) {
                    threads.execute(done::countDown);
                    if (i % 100 == 0) {
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(6)); // past the keep-alive: threads end while others hand them work
                    }
                }
            });
        }
        assertTrue(done.await(60, TimeUnit.SECONDS), "every task ran: " + done.getCount() + " left");
    }
}
