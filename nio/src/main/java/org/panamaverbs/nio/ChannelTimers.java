package org.panamaverbs.nio;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The module's one timer thread (a daemon, made on first use): the channels' rsocket keepalives, and the wake-up at
 * a connect's bound, so that a selection waiting for a non-blocking connect sees it end then. A task only takes a
 * channel's lock for a moment; it never waits on the network.
 */
final class ChannelTimers {
    private static final ScheduledThreadPoolExecutor TIMER = timer();

    private ChannelTimers() {
    }

    private static ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().daemon().name("panama-verbs-nio timer").factory());
        timer.setRemoveOnCancelPolicy(true); // a closed channel's task goes at once, not at its next run
        return timer;
    }

    /** Runs {@code task} once, after {@code delay}. */
    static ScheduledFuture<?> after(Duration delay, Runnable task) {
        return TIMER.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Runs {@code task} every {@code seconds}, the first time after as long. */
    static ScheduledFuture<?> every(long seconds, Runnable task) {
        return TIMER.scheduleAtFixedRate(task, seconds, seconds, TimeUnit.SECONDS);
    }
}
