package org.panamaverbs.cm;

import org.panamaverbs.internal.ControlEvents;

/**
 * What the library says about each rdma_cm event it reads, before the application sees it: a record on
 * {@code org.panamaverbs.cm} and a JFR {@code ConnectionEvent}, formatted only when someone listens, so that the
 * event path stays allocation-free otherwise.
 */
final class CmEventReports {
    private CmEventReports() {
    }

    /** Logs (org.panamaverbs.cm) and records (JFR ConnectionEvent) the event: WARNING for errors, else DEBUG. */
    static void report(CmEventView view) {
        CmEventType type = view.type();
        System.Logger.Level level = switch (type) {
            case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, DEVICE_REMOVAL, MULTICAST_ERROR, UNKNOWN ->
                    System.Logger.Level.WARNING;
            case REJECTED -> System.Logger.Level.INFO;
            default -> System.Logger.Level.DEBUG;
        };
        if (!ControlEvents.isConnectionEventWanted(level)) {
            return; // nothing to format: the event path stays allocation-free
        }
        CmId id = view.id();
        try {
            ControlEvents.connectionEvent(level, type.cName(), view.status(), id.toString(), () -> {
                try {
                    java.net.InetSocketAddress peer = id.peerAddress();
                    return peer == null ? null : peer.toString();
                } catch (RuntimeException e) { // reporting must not stop the delivery of events
                    return "unknown (" + e.getMessage() + ")";
                }
            });
        } catch (RuntimeException reportFailed) {
            CmEventReader.report("reporting " + type.cName() + " of " + id + " failed; it is delivered anyway", reportFailed);
        }
    }

}
