package org.panamaverbs.verbs;

import java.util.List;

/**
 * What the observability tests drive without a device: a gate refusal under an emulated PVRDMA HWv13 profile
 * (the policy alone, nothing native), and a tree (context, protection domain, completion queue) opened on the
 * stand-in libibverbs ({@link StandIn}) and closed. Also the {@code main} of the child JVM that checks the library
 * runs without {@code jdk.jfr} ({@code ObservabilityTest}), which runs on the stand-in.
 */
final class ObservedTree {
    static final String DEVICE = "fake0";

    private ObservedTree() {
    }

    /** ESXi 6.5's attributes: vendor 0x15ad, part 2080, no shared receive queues. */
    static DeviceAttributes esxi65Attributes() {
        return new DeviceAttributes("3.0.000", 1, 1, -1, 4096, 0x15ad, 2080, 1, 32768, 1024, 0x00201400,
                16, 16, 4096, 262144, 262144, 4096, 16, 16, AtomicCapability.NONE, 0, 0, 4096, 0, 0, 0, 1, 1);
    }

    /** {@code ibv_create_srq} on a HWv13-class device: the gate refuses it (and reports the refusal). */
    static UnsupportedVerbException refuseSharedReceiveQueue() {
        DeviceAttributes attributes = esxi65Attributes();
        DevicePolicy policy = DeviceProfile.detect(attributes, List.of()).policy(attributes, DEVICE);
        try {
            policy.requireSharedReceiveQueues();
        } catch (UnsupportedVerbException refused) {
            return refused;
        }
        throw new AssertionError("the HWv13 gate let ibv_create_srq through");
    }

    /** Opens the stand-in's "stub0" ({@link StandIn}) with a protection domain and a completion queue, then closes it. */
    static void openAndClose() {
        Context context = Rdma.open("stub0");
        context.allocateProtectionDomain();
        context.createCompletionQueue(64);
        context.close();
    }

    /**
     * The child JVM of {@code ObservabilityTest}: runs both paths and prints what it saw, one {@code key=value} per
     * line; with {@code jdk.jfr}, then the events of a second tree under a recording started after the first.
     */
    public static void main(String[] args) throws Throwable {
        boolean jfr = org.panamaverbs.internal.ControlEvents.JFR_PRESENT;
        System.out.println("jdk.jfr.present=" + ModuleLayer.boot().findModule("jdk.jfr").isPresent());
        System.out.println("jfr.usable=" + jfr);
        System.out.println("refused=" + refuseSharedReceiveQueue().verb());
        openAndClose();
        System.out.println("tree.closed=true");
        if (jfr) {
            recordASecondTree();
        }
    }

    // A recording started after the library ran without one: the event types register now, and record.
    private static void recordASecondTree() throws java.io.IOException {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("observed-tree", ".jfr");
        try (jdk.jfr.Recording recording = new jdk.jfr.Recording()) {
            recording.start();
            openAndClose();
            refuseSharedReceiveQueue();
            recording.stop();
            recording.dump(file);
            for (jdk.jfr.consumer.RecordedEvent event : jdk.jfr.consumer.RecordingFile.readAllEvents(file)) {
                String name = event.getEventType().getName();
                if (name.startsWith("org.panamaverbs.")) {
                    System.out.println("recorded=" + name);
                }
            }
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }
}
