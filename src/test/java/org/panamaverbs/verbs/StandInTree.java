package org.panamaverbs.verbs;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;

import jdk.jfr.consumer.RecordedEvent;
import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.PortSpace;

/**
 * The child JVM of {@link StandInProviderTest} and {@code ObservabilityTest}: a whole resource tree, opened through
 * the public API on the stand-in libibverbs and librdmacm ({@link StandIn}), with nothing but the stand-in's devices
 * behind it. Prints what it saw, one {@code key=value} per line; the parent asserts.
 *
 * <p>Modes (the first argument): {@code tree} runs the data path on "stub0" and the refusals of "stub1";
 * {@code record} closes a tree and a connection manager's held objects under a JFR recording and a log capture.
 */
final class StandInTree {
    private StandInTree() {
    }

    public static void main(String[] args) throws Throwable {
        switch (args.length == 0 ? "tree" : args[0]) {
            case "tree" -> tree();
            case "record" -> record();
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    /** Opens "stub0", makes every object, posts and polls, and tries what the stand-in's devices refuse. */
    private static void tree() {
        try (Context context = Rdma.open("stub0")) {
            System.out.println("profile=" + context.profile().hardwareClass());
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(64);
            QueuePair qp = pd.createQueuePair(QpConfig.builder(cq).maxSendWr(8).maxRecvWr(8).build());
            System.out.println("qp.state.created=" + qp.state());
            QueuePair.connectLoopback(qp, qp);
            System.out.println("qp.state.connected=" + qp.state());
            MemoryRegion mr = pd.allocateAndRegister(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            System.out.println("mr.keys=" + (mr.lkey() != 0 && mr.rkey() != 0 && mr.lkey() != mr.rkey()));
            try (SendWorkRequests sends = SendWorkRequests.allocate(2, 1);
                    RecvWorkRequests recvs = RecvWorkRequests.allocate(2, 1);
                    WorkCompletions wcs = WorkCompletions.allocate(4)) {
                sends.get(0).wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(0).sge(mr, 0, 64).remote(0x1000, 7);
                sends.get(1).wrId(2).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(mr, 64, 100)
                        .remote(0x2000, 7);
                recvs.get(0).wrId(3).sge(mr, 128, 64);
                System.out.println("postSend=" + qp.postSend(sends, 2));
                System.out.println("postRecv=" + qp.postRecv(recvs, 1));
                int n = cq.poll(wcs);
                System.out.println("polled=" + n);
                for (int i = 0; i < n; i++) {
                    WorkCompletion wc = wcs.get(i);
                    System.out.println("wc=" + wc.wrId() + " " + wc.status() + " " + wc.opcode() + " " + wc.byteLength()
                            + " " + (wc.qpNumber() == qp.qpNumber()));
                }
                System.out.println("polled.again=" + cq.poll(wcs));
            }
            try {
                pd.createSharedReceiveQueue(4, 1);
                System.out.println("srq=created");
            } catch (UnsupportedVerbException e) {
                System.out.println("srq.refused=" + e.getMessage().contains("post_srq_recv"));
            }
            context.close();
            System.out.println("closed=" + (qp.isClosed() && mr.isClosed() && cq.isClosed() && pd.isClosed()));
        }
        try (Context withoutOps = Rdma.open("stub1")) {
            System.out.println("stub1=opened " + withoutOps);
        } catch (UnsupportedVerbException e) {
            System.out.println("stub1.refused=" + e.verb() + " " + e.getMessage().contains("poll_cq/post_send/post_recv"));
        }
    }

    /**
     * Opens "stub0" with a protection domain and a completion queue and closes the context; then, through the
     * stand-in's rdma_cm, a queue pair held by an id on its borrowed context, and closes the id. Prints the log
     * lines of the closes and one line per {@code ResourceDestroy} event.
     */
    private static void record() throws Throwable {
        List<String> lines;
        List<RecordedEvent> events;
        try (Observation.LogCapture log = new Observation.LogCapture("org.panamaverbs.verbs")) {
            events = Observation.record(() -> {
                Context context = Rdma.open("stub0");
                context.allocateProtectionDomain();
                context.createCompletionQueue(64);
                context.close();
                try (CmEventChannel channel = CmEventChannel.create();
                        CmId id = CmId.create(channel, PortSpace.TCP)) {
                    id.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                    ProtectionDomain pd = id.context().allocateProtectionDomain();
                    CompletionQueue cq = id.context().createCompletionQueue(16);
                    id.createQueuePair(pd, QpConfig.builder(cq).maxSendWr(4).maxRecvWr(4).build());
                }
            });
            lines = log.lines();
        }
        for (String line : lines) {
            if (line.contains("gave back") || line.contains("destroyed")) {
                System.out.println("log=" + line);
            }
        }
        for (RecordedEvent destroy : Observation.events(events, "ResourceDestroy", e -> true)) {
            System.out.println("destroy=" + destroy.getString("resourceType") + " " + destroy.getString("resource")
                    + " givenBack=" + destroy.getBoolean("givenBack") + " succeeded=" + destroy.getBoolean("succeeded")
                    + " timed=" + !destroy.getDuration().isNegative());
        }
    }
}
