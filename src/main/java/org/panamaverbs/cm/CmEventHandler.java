package org.panamaverbs.cm;

/**
 * What {@link CmEventChannel#poll} calls for each rdma_cm event of a polled channel
 * ({@link CmEventChannel#createPolled()}), on the polling thread, with the event already acknowledged.
 */
@FunctionalInterface
public interface CmEventHandler {
    /**
     * Handles one event. The view is valid during this call only ({@link CmEventView}); the handler may call
     * anything on the event's ids, close them included, but not {@link CmEventChannel#poll} of the same channel.
     * An exception thrown here ends the poll and reaches its caller; the events not yet read stay queued for the
     * next poll.
     *
     * @param event the event, valid until this method returns
     */
    void onEvent(CmEventView event);
}
