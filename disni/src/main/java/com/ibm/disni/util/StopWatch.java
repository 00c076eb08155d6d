package com.ibm.disni.util;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.util.StopWatch}: a simple interval timer on
 * {@link System#nanoTime()}. Wraps no C call, never throws, is not thread-safe.
 *
 * <p>{@link #getExecutionTime()} is in milliseconds: DiSNI's documentation does not state its unit, so
 * this module states its own (an assumption to check against DiSNI when a program depends on it).
 */
public class StopWatch {

    private long startTime;
    private long executionTime;

    /** A stopped watch with no time accumulated. */
    public StopWatch() {
    }

    /** Starts (or restarts) timing from now. */
    public void start() {
        startTime = getTime();
    }

    /** Stops timing: the time since {@link #start()} becomes the execution time. */
    public void stop() {
        executionTime = getTime() - startTime;
    }

    /** Clears the start time and the execution time. */
    public void reset() {
        startTime = 0;
        executionTime = 0;
    }

    /**
     * Returns the time between the last {@link #start()} and the {@link #stop()} after it.
     *
     * @return milliseconds
     */
    public long getExecutionTime() {
        return executionTime / 1_000_000L;
    }

    long getTime() {
        return System.nanoTime();
    }
}
