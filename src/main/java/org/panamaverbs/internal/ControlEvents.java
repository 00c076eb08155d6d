package org.panamaverbs.internal;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Optional;

/**
 * What the control path reports: {@link System.Logger} records and JDK Flight Recorder events
 * (docs/guide/logging-and-jfr.md). The data path (post, poll) calls nothing here.
 *
 * <p>Two loggers, one per package: {@link #VERBS} ({@code org.panamaverbs.verbs}) and {@link #CM}
 * ({@code org.panamaverbs.cm}). Levels: WARNING for objects the backstop freed, error-kind async events
 * and failed connection events; INFO for a verb a gate refused, a device opened under a gating (PVRDMA or
 * emulated) profile, port and fabric changes and rejected connections; DEBUG for a device opened under the
 * generic profile and for every create, destroy, queue pair transition and routine event. Messages are built
 * only when their level is loggable.
 *
 * <p>JFR: the module requires {@code jdk.jfr} statically, so the library runs on a runtime without it;
 * {@link #JFR_PRESENT} says whether it is there (and readable), and only then is {@link JfrEvents} loaded, and
 * not before JFR itself has started (a recording made, {@code -XX:StartFlightRecording}, {@code jcmd JFR.start}):
 * the first event object a JVM makes starts JFR's metadata, 120 to 180 ms here, most of a first {@code Rdma.open}.
 * A control-path call asks {@link #begin} for an event, which is null unless a recording enables that type,
 * and hands it back to the matching {@code *Created}/{@code *Transitioned} method after the native call;
 * those log and commit.
 */
public final class ControlEvents {
    private ControlEvents() {
    }

    /** The verbs logger: devices, profiles, gates, object lifecycles, async events, the backstop. */
    public static final Logger VERBS = System.getLogger("org.panamaverbs.verbs");
    /** The connection-manager logger: rdma_cm events. */
    public static final Logger CM = System.getLogger("org.panamaverbs.cm");

    /** Whether {@code jdk.jfr} is in the runtime and this module reads it, so the events can be loaded. */
    public static final boolean JFR_PRESENT = jfrPresent();

    /** The event types, named {@code org.panamaverbs.<CamelCase>} in JFR. */
    public enum Kind {
        DEVICE_OPEN, PROTECTION_DOMAIN_CREATE, MEMORY_REGION_CREATE, COMPLETION_QUEUE_CREATE, QUEUE_PAIR_CREATE,
        SHARED_RECEIVE_QUEUE_CREATE, ADDRESS_HANDLE_CREATE, RESOURCE_DESTROY, QUEUE_PAIR_TRANSITION, ASYNC_EVENT,
        CONNECTION_EVENT, VERB_REFUSED, BACKSTOP_FREE
    }

    private static boolean jfrPresent() {
        Optional<Module> jfr = ModuleLayer.boot().findModule("jdk.jfr");
        Module self = ControlEvents.class.getModule();
        return jfr.isPresent() && (!self.isNamed() || self.canRead(jfr.get()));
    }

    /** Whether a running recording enables events of {@code kind}. */
    public static boolean isRecording(Kind kind) {
        return jfrStarted() && JfrEvents.isEnabled(kind);
    }

    /** A begun event of {@code kind} (its duration starts now), or null when no recording enables it. */
    public static Object begin(Kind kind) {
        return jfrStarted() ? JfrEvents.begin(kind) : null;
    }

    // Until JFR has started no recording runs, so no event type can be enabled.
    private static boolean jfrStarted() {
        return JFR_PRESENT && jdk.jfr.FlightRecorder.isInitialized();
    }

    /**
     * A device context opened ({@code how}: "opened" or "borrowed"), with its profile {@code description}: logged
     * at INFO when the profile {@code gates} anything beyond what the device reports (PVRDMA, detected or
     * emulated), else at DEBUG, so that a plain device adds nothing to a program's output.
     */
    public static void deviceOpened(Object begun, String device, String how, String hardwareClass, boolean emulated,
            java.util.List<String> reasons, String description, int vendorId, int vendorPartId, boolean gates) {
        Level level = gates ? Level.INFO : Level.DEBUG;
        if (VERBS.isLoggable(level)) {
            VERBS.log(level, "{0} {1}: {2}", how, device, description.strip());
        }
        if (begun != null) {
            JfrEvents.deviceOpened(begun, device, how, hardwareClass, emulated, String.join("; ", reasons), vendorId,
                    vendorPartId);
        }
    }

    /** {@code ibv_alloc_pd} returned {@code what}. */
    public static void protectionDomainCreated(Object begun, String device, String what) {
        debugCreated(what);
        if (begun != null) {
            JfrEvents.protectionDomainCreated(begun, device);
        }
    }

    /** {@code ibv_reg_mr} returned {@code what}. */
    public static void memoryRegionCreated(Object begun, String device, String what, long length, int access,
            int lkey, int rkey, boolean ownsMemory) {
        debugCreated(what);
        if (begun != null) {
            JfrEvents.memoryRegionCreated(begun, device, length, access, lkey, rkey, ownsMemory);
        }
    }

    /** {@code ibv_create_cq} returned {@code what}. */
    public static void completionQueueCreated(Object begun, String device, String what, int requestedEntries,
            int entries, boolean withChannel) {
        debugCreated(what);
        if (begun != null) {
            JfrEvents.completionQueueCreated(begun, device, requestedEntries, entries, withChannel);
        }
    }

    /** {@code ibv_create_qp} (or {@code rdma_create_qp}) returned {@code what}, with the granted capacities. */
    public static void queuePairCreated(Object begun, String device, String what, int qpNumber, String qpType,
            int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData,
            boolean sharedReceiveQueue) {
        debugCreated(what);
        if (begun != null) {
            JfrEvents.queuePairCreated(begun, device, qpNumber, qpType, maxSendWr, maxRecvWr, maxSendSge, maxRecvSge,
                    maxInlineData, sharedReceiveQueue);
        }
    }

    /** {@code ibv_create_srq} returned {@code what}, with the granted capacities. */
    public static void sharedReceiveQueueCreated(Object begun, String device, String what, int maxWr, int maxSge) {
        debugCreated(what);
        if (begun != null) {
            JfrEvents.sharedReceiveQueueCreated(begun, device, maxWr, maxSge);
        }
    }

    /** {@code ibv_create_ah} returned {@code what}. */
    public static void addressHandleCreated(Object begun, String device, String what, int port, int sourceGidIndex,
            String destinationGid) {
        debugCreated(what);
        if (begun != null) {
            JfrEvents.addressHandleCreated(begun, device, port, sourceGidIndex, destinationGid);
        }
    }

    private static void debugCreated(String what) {
        if (VERBS.isLoggable(Level.DEBUG)) {
            VERBS.log(Level.DEBUG, "created {0}", what);
        }
    }

    /** {@code what} was destroyed (or given back to its owner), or its destroy failed; its text is built only if reported. */
    public static void destroyed(Object begun, String device, String resourceType, Object what, boolean givenBack,
            boolean succeeded) {
        if (VERBS.isLoggable(Level.DEBUG)) {
            VERBS.log(Level.DEBUG, "{0} {1}", succeeded ? givenBack ? "gave back" : "destroyed" : "failed to destroy",
                    what.toString());
        }
        if (begun != null) {
            JfrEvents.destroyed(begun, device, resourceType, what.toString(), givenBack, succeeded);
        }
    }

    /**
     * {@code ibv_modify_qp} moved queue pair {@code what} from {@code fromState} (null when no recording asked for
     * it) to {@code toState}, or failed to; the queue pair's text is built only if reported.
     */
    public static void queuePairTransitioned(Object begun, String device, Object what, int qpNumber, String fromState,
            String toState, String transition, boolean succeeded) {
        if (VERBS.isLoggable(Level.DEBUG)) {
            VERBS.log(Level.DEBUG, "{0} {1}: {2}", succeeded ? "moved" : "failed to move", what.toString(), transition);
        }
        if (begun != null) {
            JfrEvents.queuePairTransitioned(begun, device, qpNumber, fromState == null ? "" : fromState, toState,
                    transition, succeeded);
        }
    }

    /** An asynchronous event of {@code device}; {@code level} by its kind (errors WARNING). */
    public static void asyncEvent(Level level, String device, String eventType, String resource, int port) {
        if (VERBS.isLoggable(level)) {
            VERBS.log(level, "async event {0} on {1}{2}{3}", eventType, device,
                    resource == null ? "" : ": " + resource, port == 0 ? "" : " port " + port);
        }
        if (isRecording(Kind.ASYNC_EVENT)) {
            JfrEvents.asyncEvent(device, eventType, resource == null ? "" : resource, port);
        }
    }

    /** Whether {@link #connectionEvent} at {@code level} would log or record (a caller that must not allocate asks first). */
    public static boolean isConnectionEventWanted(Level level) {
        return isRecording(Kind.CONNECTION_EVENT) || CM.isLoggable(level);
    }

    /** An rdma_cm event; {@code level} by its kind (errors WARNING). {@code peer} is computed only if reported. */
    public static void connectionEvent(Level level, String eventType, int status, String cmId,
            java.util.function.Supplier<String> peer) {
        boolean recording = isRecording(Kind.CONNECTION_EVENT);
        if (!recording && !CM.isLoggable(level)) {
            return;
        }
        String peerText = peer.get();
        if (CM.isLoggable(level)) {
            CM.log(level, "{0} (status {1}) on {2}{3}", eventType, status, cmId, peerText == null ? "" : ", peer " + peerText);
        }
        if (recording) {
            JfrEvents.connectionEvent(eventType, status, cmId, peerText == null ? "" : peerText);
        }
    }

    /** A gate refused {@code verb} on {@code device}; the exception with {@code message} is about to be thrown. */
    public static void verbRefused(String device, String verb, String hardwareClass, boolean emulated, String message) {
        if (VERBS.isLoggable(Level.INFO)) {
            VERBS.log(Level.INFO, "refused {0} on {1} ({2}{3} profile): {4}", verb, device, hardwareClass,
                    emulated ? ", emulated" : "", message);
        }
        if (isRecording(Kind.VERB_REFUSED)) {
            JfrEvents.verbRefused(device, verb, hardwareClass, emulated, message);
        }
    }

    /** The backstop freed {@code objects} objects of {@code tree}; the WARNING text is {@code message}. */
    public static void backstopFreed(String tree, int objects, String objectList, String failures, String message) {
        VERBS.log(Level.WARNING, message);
        if (isRecording(Kind.BACKSTOP_FREE)) {
            JfrEvents.backstopFreed(tree, objects, objectList, failures);
        }
    }
}
