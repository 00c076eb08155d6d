package org.panamaverbs.internal;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * The JDK Flight Recorder events of the control path, one class per event type, named
 * {@code org.panamaverbs.*} in category "Panama Verbs". Only {@link ControlEvents} touches this class, and
 * only when {@code jdk.jfr} is in the runtime ({@link ControlEvents#JFR_PRESENT}): the library's module
 * requires {@code jdk.jfr} statically, so a runtime without it never loads these classes.
 *
 * <p>{@link #begin} returns a begun event, or null when its type is not enabled in any running recording; the
 * check reads the type's enabled flag through a probe instance made once, so nothing is allocated then. The
 * instant events (async, connection, refusal, backstop) are made only after {@link #isEnabled} said yes.
 */
final class JfrEvents {
    private JfrEvents() {
    }

    static final String CATEGORY = "Panama Verbs";

    /** {@code ibv_open_device} and the profile detected for it, or a context rdma_cm lent. */
    @Name("org.panamaverbs.DeviceOpen")
    @Label("Device Open")
    @Category(CATEGORY)
    @Description("ibv_open_device (or a context borrowed from rdma_cm) and the device profile detected for it")
    @StackTrace(false)
    public static final class DeviceOpen extends Event {
        @Label("Device") String device;
        @Label("How") @Description("opened (ibv_open_device) or borrowed (rdma_cm's cm_id->verbs)") String how;
        @Label("Hardware Class") String hardwareClass;
        @Label("Emulated") @Description("the profile was imposed (-Dpanamaverbs.profile or Rdma.open(name, class))") boolean emulated;
        @Label("Reasons") @Description("why the profile's class was chosen") String reasons;
        @Label("Vendor Id") int vendorId;
        @Label("Vendor Part Id") int vendorPartId;
    }

    /** {@code ibv_alloc_pd}. */
    @Name("org.panamaverbs.ProtectionDomainCreate")
    @Label("Protection Domain Create")
    @Category(CATEGORY)
    @Description("ibv_alloc_pd")
    public static final class ProtectionDomainCreate extends Event {
        @Label("Device") String device;
    }

    /** {@code ibv_reg_mr}. */
    @Name("org.panamaverbs.MemoryRegionCreate")
    @Label("Memory Region Create")
    @Category(CATEGORY)
    @Description("ibv_reg_mr (ibv_reg_mr_iova2): registering memory with the device")
    public static final class MemoryRegionCreate extends Event {
        @Label("Device") String device;
        @Label("Length") @DataAmount long length;
        @Label("Access") @Description("IBV_ACCESS_* bits as passed to ibv_reg_mr") int access;
        @Label("Local Key") int lkey;
        @Label("Remote Key") int rkey;
        @Label("Owns Memory") @Description("the region allocated its memory and frees it when it closes") boolean ownsMemory;
    }

    /** {@code ibv_create_cq}. */
    @Name("org.panamaverbs.CompletionQueueCreate")
    @Label("Completion Queue Create")
    @Category(CATEGORY)
    @Description("ibv_create_cq")
    public static final class CompletionQueueCreate extends Event {
        @Label("Device") String device;
        @Label("Requested Entries") int requestedEntries;
        @Label("Entries") @Description("cq->cqe, what the device gave") int entries;
        @Label("With Channel") boolean withChannel;
    }

    /** {@code ibv_create_qp} or {@code rdma_create_qp}. */
    @Name("org.panamaverbs.QueuePairCreate")
    @Label("Queue Pair Create")
    @Category(CATEGORY)
    @Description("ibv_create_qp (or rdma_create_qp); the capacities are what the device granted")
    public static final class QueuePairCreate extends Event {
        @Label("Device") String device;
        @Label("QP Number") int qpNumber;
        @Label("Type") String qpType;
        @Label("Max Send WR") int maxSendWr;
        @Label("Max Recv WR") int maxRecvWr;
        @Label("Max Send SGE") int maxSendSge;
        @Label("Max Recv SGE") int maxRecvSge;
        @Label("Max Inline Data") @DataAmount int maxInlineData;
        @Label("Shared Receive Queue") boolean sharedReceiveQueue;
    }

    /** {@code ibv_create_srq}. */
    @Name("org.panamaverbs.SharedReceiveQueueCreate")
    @Label("Shared Receive Queue Create")
    @Category(CATEGORY)
    @Description("ibv_create_srq; the capacities are what the device granted")
    public static final class SharedReceiveQueueCreate extends Event {
        @Label("Device") String device;
        @Label("Max WR") int maxWr;
        @Label("Max SGE") int maxSge;
    }

    /** {@code ibv_create_ah}. */
    @Name("org.panamaverbs.AddressHandleCreate")
    @Label("Address Handle Create")
    @Category(CATEGORY)
    @Description("ibv_create_ah")
    public static final class AddressHandleCreate extends Event {
        @Label("Device") String device;
        @Label("Port") int port;
        @Label("Source GID Index") int sourceGidIndex;
        @Label("Destination GID") String destinationGid;
    }

    /** A close: {@code ibv_dealloc_pd}, {@code ibv_dereg_mr}, {@code ibv_destroy_*}, {@code ibv_close_device}. */
    @Name("org.panamaverbs.ResourceDestroy")
    @Label("Resource Destroy")
    @Category(CATEGORY)
    @Description("close() of a verbs object: its ibv_destroy_* / ibv_dereg_mr / ibv_dealloc_pd / ibv_close_device,"
            + " or its hand-back to the owner that frees it")
    public static final class ResourceDestroy extends Event {
        @Label("Device") String device;
        @Label("Resource Type") @Description("ProtectionDomain, MemoryRegion, CompletionQueue, QueuePair, ...") String resourceType;
        @Label("Resource") String resource;
        @Label("Given Back") @Description("held by another owner (rdma_cm, an adopter), which frees it") boolean givenBack;
        @Label("Succeeded") boolean succeeded;
    }

    /** {@code ibv_modify_qp} of the state. */
    @Name("org.panamaverbs.QueuePairTransition")
    @Label("Queue Pair Transition")
    @Category(CATEGORY)
    @Description("ibv_modify_qp changing a queue pair's state")
    public static final class QueuePairTransition extends Event {
        @Label("Device") String device;
        @Label("QP Number") int qpNumber;
        @Label("From State") @Description("ibv_query_qp just before the modify") String fromState;
        @Label("To State") String toState;
        @Label("Transition") String transition;
        @Label("Succeeded") boolean succeeded;
    }

    /** {@code ibv_get_async_event}. */
    @Name("org.panamaverbs.AsyncEvent")
    @Label("Async Event")
    @Category(CATEGORY)
    @Description("ibv_get_async_event: an asynchronous event of a device")
    @StackTrace(false)
    public static final class AsyncEvent extends Event {
        @Label("Device") String device;
        @Label("Event Type") String eventType;
        @Label("Resource") @Description("the queue pair, completion queue or shared receive queue concerned") String resource;
        @Label("Port") int port;
    }

    /** {@code rdma_get_cm_event}. */
    @Name("org.panamaverbs.ConnectionEvent")
    @Label("Connection Event")
    @Category(CATEGORY)
    @Description("rdma_get_cm_event: an rdma_cm event")
    @StackTrace(false)
    public static final class ConnectionEvent extends Event {
        @Label("Event Type") @Description("rdma_event_str's name") String eventType;
        @Label("Status") @Description("0, a negative errno, or the CM reject reason for REJECTED") int status;
        @Label("CM Id") String cmId;
        @Label("Peer") String peer;
    }

    /** A gate of the device profile refused a verb. */
    @Name("org.panamaverbs.VerbRefused")
    @Label("Verb Refused")
    @Category(CATEGORY)
    @Description("a gate of the device profile refused a verb before the provider saw it (UnsupportedVerbException)")
    public static final class VerbRefused extends Event {
        @Label("Device") String device;
        @Label("Verb") String verb;
        @Label("Hardware Class") String hardwareClass;
        @Label("Emulated") boolean emulated;
        @Label("Message") String message;
    }

    /** The backstop freed objects of a context that became unreachable unclosed. */
    @Name("org.panamaverbs.BackstopFree")
    @Label("Backstop Free")
    @Category(CATEGORY)
    @Description("a context became unreachable without close(): the cleaner freed the native objects left open")
    @StackTrace(false)
    public static final class BackstopFree extends Event {
        @Label("Tree") String tree;
        @Label("Objects") int objects;
        @Label("Object List") String objectList;
        @Label("Failures") String failures;
    }

    // Probes: never committed; isEnabled() reads the type's static configuration, so a check allocates nothing.
    private static final DeviceOpen DEVICE_OPEN = new DeviceOpen();
    private static final ProtectionDomainCreate PD_CREATE = new ProtectionDomainCreate();
    private static final MemoryRegionCreate MR_CREATE = new MemoryRegionCreate();
    private static final CompletionQueueCreate CQ_CREATE = new CompletionQueueCreate();
    private static final QueuePairCreate QP_CREATE = new QueuePairCreate();
    private static final SharedReceiveQueueCreate SRQ_CREATE = new SharedReceiveQueueCreate();
    private static final AddressHandleCreate AH_CREATE = new AddressHandleCreate();
    private static final ResourceDestroy DESTROY = new ResourceDestroy();
    private static final QueuePairTransition QP_TRANSITION = new QueuePairTransition();
    private static final AsyncEvent ASYNC = new AsyncEvent();
    private static final ConnectionEvent CONNECTION = new ConnectionEvent();
    private static final VerbRefused REFUSED = new VerbRefused();
    private static final BackstopFree BACKSTOP = new BackstopFree();

    static boolean isEnabled(ControlEvents.Kind kind) {
        return switch (kind) {
            case DEVICE_OPEN -> DEVICE_OPEN.isEnabled();
            case PROTECTION_DOMAIN_CREATE -> PD_CREATE.isEnabled();
            case MEMORY_REGION_CREATE -> MR_CREATE.isEnabled();
            case COMPLETION_QUEUE_CREATE -> CQ_CREATE.isEnabled();
            case QUEUE_PAIR_CREATE -> QP_CREATE.isEnabled();
            case SHARED_RECEIVE_QUEUE_CREATE -> SRQ_CREATE.isEnabled();
            case ADDRESS_HANDLE_CREATE -> AH_CREATE.isEnabled();
            case RESOURCE_DESTROY -> DESTROY.isEnabled();
            case QUEUE_PAIR_TRANSITION -> QP_TRANSITION.isEnabled();
            case ASYNC_EVENT -> ASYNC.isEnabled();
            case CONNECTION_EVENT -> CONNECTION.isEnabled();
            case VERB_REFUSED -> REFUSED.isEnabled();
            case BACKSTOP_FREE -> BACKSTOP.isEnabled();
        };
    }

    /** A new event of {@code kind}, begun (its start time is now), or null if the type is not enabled. */
    static Object begin(ControlEvents.Kind kind) {
        if (!isEnabled(kind)) {
            return null;
        }
        Event event = switch (kind) {
            case DEVICE_OPEN -> new DeviceOpen();
            case PROTECTION_DOMAIN_CREATE -> new ProtectionDomainCreate();
            case MEMORY_REGION_CREATE -> new MemoryRegionCreate();
            case COMPLETION_QUEUE_CREATE -> new CompletionQueueCreate();
            case QUEUE_PAIR_CREATE -> new QueuePairCreate();
            case SHARED_RECEIVE_QUEUE_CREATE -> new SharedReceiveQueueCreate();
            case ADDRESS_HANDLE_CREATE -> new AddressHandleCreate();
            case RESOURCE_DESTROY -> new ResourceDestroy();
            case QUEUE_PAIR_TRANSITION -> new QueuePairTransition();
            case ASYNC_EVENT -> new AsyncEvent();
            case CONNECTION_EVENT -> new ConnectionEvent();
            case VERB_REFUSED -> new VerbRefused();
            case BACKSTOP_FREE -> new BackstopFree();
        };
        event.begin();
        return event;
    }

    static void deviceOpened(Object begun, String device, String how, String hardwareClass, boolean emulated,
            String reasons, int vendorId, int vendorPartId) {
        DeviceOpen e = (DeviceOpen) begun;
        e.end();
        if (e.shouldCommit()) {
            e.device = device;
            e.how = how;
            e.hardwareClass = hardwareClass;
            e.emulated = emulated;
            e.reasons = reasons;
            e.vendorId = vendorId;
            e.vendorPartId = vendorPartId;
            e.commit();
        }
    }

    static void protectionDomainCreated(Object begun, String device) {
        ProtectionDomainCreate e = (ProtectionDomainCreate) begun;
        e.end();
        if (e.shouldCommit()) {
            e.device = device;
            e.commit();
        }
    }

    static void memoryRegionCreated(Object begun, String device, long length, int access, int lkey, int rkey,
            boolean ownsMemory) {
        MemoryRegionCreate e = (MemoryRegionCreate) begun;
        e.end();
        if (e.shouldCommit()) {
            e.device = device;
            e.length = length;
            e.access = access;
            e.lkey = lkey;
            e.rkey = rkey;
            e.ownsMemory = ownsMemory;
            e.commit();
        }
    }

    static void completionQueueCreated(Object begun, String device, int requestedEntries, int entries,
            boolean withChannel) {
        CompletionQueueCreate e = (CompletionQueueCreate) begun;
        e.end();
        if (e.shouldCommit()) {
            e.device = device;
            e.requestedEntries = requestedEntries;
            e.entries = entries;
            e.withChannel = withChannel;
            e.commit();
        }
    }

    static void queuePairCreated(Object begun, String device, int qpNumber, String qpType, int maxSendWr,
            int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData, boolean sharedReceiveQueue) {
        QueuePairCreate e = (QueuePairCreate) begun;
        e.end();
        if (e.shouldCommit()) {
            e.device = device;
            e.qpNumber = qpNumber;
            e.qpType = qpType;
            e.maxSendWr = maxSendWr;
            e.maxRecvWr = maxRecvWr;
            e.maxSendSge = maxSendSge;
            e.maxRecvSge = maxRecvSge;
            e.maxInlineData = maxInlineData;
            e.sharedReceiveQueue = sharedReceiveQueue;
            e.commit();
        }
    }

    static void sharedReceiveQueueCreated(Object begun, String device, int maxWr, int maxSge) {
        SharedReceiveQueueCreate e = (SharedReceiveQueueCreate) begun;
        e.end();
        if (e.shouldCommit()) {
            e.device = device;
            e.maxWr = maxWr;
            e.maxSge = maxSge;
            e.commit();
        }
    }

    static void addressHandleCreated(Object begun, String device, int port, int sourceGidIndex, String destinationGid) {
        AddressHandleCreate e = (AddressHandleCreate) begun;
        e.end();
        if (e.shouldCommit()) {
            e.device = device;
            e.port = port;
            e.sourceGidIndex = sourceGidIndex;
            e.destinationGid = destinationGid;
            e.commit();
        }
    }

    static void destroyed(Object begun, String device, String resourceType, String resource, boolean givenBack,
            boolean succeeded) {
        ResourceDestroy e = (ResourceDestroy) begun;
        e.end();
        if (e.shouldCommit()) {
            e.device = device;
            e.resourceType = resourceType;
            e.resource = resource;
            e.givenBack = givenBack;
            e.succeeded = succeeded;
            e.commit();
        }
    }

    static void queuePairTransitioned(Object begun, String device, int qpNumber, String fromState, String toState,
            String transition, boolean succeeded) {
        QueuePairTransition e = (QueuePairTransition) begun;
        e.end();
        if (e.shouldCommit()) {
            e.device = device;
            e.qpNumber = qpNumber;
            e.fromState = fromState;
            e.toState = toState;
            e.transition = transition;
            e.succeeded = succeeded;
            e.commit();
        }
    }

    static void asyncEvent(String device, String eventType, String resource, int port) {
        AsyncEvent e = new AsyncEvent();
        e.device = device;
        e.eventType = eventType;
        e.resource = resource;
        e.port = port;
        e.commit();
    }

    static void connectionEvent(String eventType, int status, String cmId, String peer) {
        ConnectionEvent e = new ConnectionEvent();
        e.eventType = eventType;
        e.status = status;
        e.cmId = cmId;
        e.peer = peer;
        e.commit();
    }

    static void verbRefused(String device, String verb, String hardwareClass, boolean emulated, String message) {
        VerbRefused e = new VerbRefused();
        e.device = device;
        e.verb = verb;
        e.hardwareClass = hardwareClass;
        e.emulated = emulated;
        e.message = message;
        e.commit();
    }

    static void backstopFreed(String tree, int objects, String objectList, String failures) {
        BackstopFree e = new BackstopFree();
        e.tree = tree;
        e.objects = objects;
        e.objectList = objectList;
        e.failures = failures;
        e.commit();
    }
}
