package org.panamaverbs.verbs;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Waits for a thread to end within a bound that has passed on both of the JVM's clocks ({@link System#nanoTime()}
 * and {@link System#currentTimeMillis()}), at most four bounds on the first. In the emulated guest one clock once ran
 * about 30 s ahead of the other inside one test (CI: {@code join(30 s)} returned with the thread alive while the
 * test's own time was 6 s), so a bound held on one clock alone reported a hang that was not one.
 */
public final class BoundedJoin {
    private BoundedJoin() {
    }

    /**
     * Joins {@code thread} within {@code bound}.
     *
     * @return null if the thread ended within the bound; otherwise what happened: how long it was waited for on
     *         each clock, whether it ended after all, and its stack if it did not
     */
    public static String join(Thread thread, Duration bound) throws InterruptedException {
        long startNanos = System.nanoTime();
        long startMillis = System.currentTimeMillis();
        long boundNanos = bound.toNanos();
        long capNanos = 4 * boundNanos;
        while (thread.isAlive()) {
            long monotonic = System.nanoTime() - startNanos;
            long wall = TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis() - startMillis);
            if ((monotonic >= boundNanos && wall >= boundNanos) || monotonic >= capNanos) {
                break;
            }
            thread.join(Duration.ofMillis(100));
        }
        long monotonic = System.nanoTime() - startNanos;
        long wall = TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis() - startMillis);
        String waited = " (waited " + TimeUnit.NANOSECONDS.toMillis(monotonic) + " ms by nanoTime, "
                + TimeUnit.NANOSECONDS.toMillis(wall) + " ms by currentTimeMillis)";
        if (thread.isAlive()) {
            return thread.getName() + " did not end within " + bound.toSeconds() + " s" + waited + " at:\n    "
                    + Arrays.stream(thread.getStackTrace()).map(String::valueOf).collect(Collectors.joining("\n    "));
        }
        if (monotonic > boundNanos && wall > boundNanos) {
            return thread.getName() + " ended only after " + bound.toSeconds() + " s" + waited;
        }
        if (monotonic > boundNanos || wall > boundNanos) {
            System.out.println("BoundedJoin: the clocks disagree: " + thread.getName() + " ended" + waited);
        }
        return null;
    }
}
