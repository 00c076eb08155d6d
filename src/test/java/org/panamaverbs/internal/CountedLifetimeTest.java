package org.panamaverbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

/** A counted lifetime refuses calls once ended, and its end waits for the calls inside, not for refused ones. */
class CountedLifetimeTest {

    @Test
    void callsAfterTheEndThrowAndEndingAgainReturnsAtOnce() {
        CountedLifetime lifetime = new CountedLifetime();
        lifetime.enter("id");
        lifetime.exit();
        lifetime.end("id");
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> lifetime.enter("CmId[x]"));
        assertEquals("CmId[x] is closed", refused.getMessage());
        assertThrows(IllegalStateException.class, () -> lifetime.enter("CmId[x]"));
        long start = System.nanoTime();
        lifetime.end("id"); // the refused calls counted nothing
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(1));
    }

    @Test
    void theEndWaitsForACallInsideOnAnotherThread() throws Exception {
        CountedLifetime lifetime = new CountedLifetime();
        CountDownLatch inside = new CountDownLatch(1);
        AtomicBoolean returned = new AtomicBoolean();
        Thread caller = Thread.ofPlatform().start(() -> {
            lifetime.enter("id");
            try {
                inside.countDown();
                Thread.sleep(300);
                returned.set(true);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                lifetime.exit();
            }
        });
        assertTrue(inside.await(10, TimeUnit.SECONDS));
        assertFalse(returned.get());
        lifetime.end("id");
        assertTrue(returned.get(), "the end returned only after the call inside");
        caller.join(10_000);
    }
}
