package org.panamaverbs.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;

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
 * {@code fast} runs the posts that take and leave the fast path of a proven chain; {@code record} closes a tree and
 * a connection manager's held objects under a JFR recording and a log capture.
 */
final class StandInTree {
    private StandInTree() {
    }

    public static void main(String[] args) throws Throwable {
        switch (args.length == 0 ? "tree" : args[0]) {
            case "tree" -> tree();
            case "fast" -> fastPath();
            case "record" -> record();
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    /** Opens "stub0", makes every object, posts and polls, and tries what the stand-in's devices refuse. */
    private static void tree() throws Throwable {
        try (Context context = Rdma.open("stub0")) {
            System.out.println("profile=" + context.profile().hardwareClass());
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(64);
            QueuePair qp = pd.createQueuePair(QpConfig.builder(cq).capabilities(QpCapabilities.of(8, 8)).build());
            System.out.println("qp.state.created=" + qp.state());
            QueuePair.connectLoopback(qp, qp);
            System.out.println("qp.state.connected=" + qp.state());
            MemoryRegion mr = pd.allocateAndRegister(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            System.out.println("mr.keys=" + (mr.lkey() != 0 && mr.rkey() != 0 && mr.lkey() != mr.rkey()));
            try (SendChain sends = SendChain.allocate(2, 1);
                    RecvChain recvs = RecvChain.allocate(2, 1);
                    CompletionArray wcs = CompletionArray.allocate(4)) {
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
            // the stand-in's context is not extended: no query_device_ex, so no on-demand paging, as C's fallback says
            System.out.println("odp=" + context.onDemandPaging());
            try {
                pd.allocateAndRegister(4096, Access.LOCAL_WRITE, Access.ON_DEMAND);
                System.out.println("odp.region=registered");
            } catch (UnsupportedVerbException e) {
                System.out.println("odp.region.refused=" + e.verb() + " " + e.getMessage().contains("no on-demand paging"));
            }
            try {
                pd.createSharedReceiveQueue(4, 1);
                System.out.println("srq=created");
            } catch (UnsupportedVerbException e) {
                System.out.println("srq.refused=" + e.getMessage().contains("post_srq_recv"));
            }
            MemoryRegion leftOpen = nullRegions(pd, qp, cq);
            context.close();
            System.out.println("closed=" + (qp.isClosed() && mr.isClosed() && cq.isClosed() && pd.isClosed()));
            System.out.println("null.closed.with.tree=" + leftOpen.isClosed());
        }
        try (Context withoutOps = Rdma.open("stub1")) {
            System.out.println("stub1=opened " + withoutOps);
        } catch (UnsupportedVerbException e) {
            System.out.println("stub1.refused=" + e.verb() + " " + e.getMessage().contains("poll_cq/post_send/post_recv"));
        }
    }

    /**
     * Null regions on "stub0", whose context's {@code alloc_null_mr} makes them: the key, the refused remote key, an RDMA
     * WRITE from one whose key reaches the provider's work-queue entry, use after close; returns one left open.
     */
    private static MemoryRegion nullRegions(ProtectionDomain pd, QueuePair qp, CompletionQueue cq) throws Throwable {
        MethodHandle lastLkey = Linker.nativeLinker().downcallHandle(
                SymbolLookup.libraryLookup("libibverbs.so.1", Arena.global()).find("stub_qp_last_lkey").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
        MemoryRegion none = pd.allocateNullRegion(4096);
        System.out.println("null.region=" + none.isNullRegion() + " 0x" + Integer.toHexString(none.lkey()) + " "
                + none.access() + " " + none.length() + " " + none.segment().get(JAVA_INT, 4092));
        System.out.println("null.rkey=" + refusal(none::rkey));
        try (SendChain sends = SendChain.allocate(1, 1); CompletionArray wcs = CompletionArray.allocate(4)) {
            sends.get(0).wrId(9).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(none, 100, 200).remote(0x3000, 7);
            int posted = qp.postSend(sends, 1);
            int lkey = (int) lastLkey.invokeExact(qp.handle());
            System.out.println("null.write=" + posted + " 0x" + Integer.toHexString(lkey) + " " + cq.poll(wcs) + " "
                    + wcs.get(0).wrId() + " " + wcs.get(0).status() + " " + wcs.get(0).byteLength());
            none.close();
            none.close();
            System.out.println("null.after.close=" + refusal(() -> qp.postSend(sends, 1)) + " " + refusal(none::lkey)
                    + " " + none.isClosed());
        }
        System.out.println("null.length.zero=" + refusal(() -> pd.allocateNullRegion(0).lkey()));
        return pd.allocateNullRegion(64);
    }

    /**
     * The fast path of a proven chain and every way out of it, on "stub0", whose completion queue returns the
     * {@code wr_id} of every signaled request the provider accepted: what reached the provider is what was polled.
     */
    private static void fastPath() {
        try (Context context = Rdma.open("stub0")) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(64);
            QpConfig config = QpConfig.builder(cq).capabilities(QpCapabilities.of(16, 16)).build();
            QueuePair qp = pd.createQueuePair(config);
            QueuePair.connectLoopback(qp, qp);
            MemoryRegion mr = pd.allocateAndRegister(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            try (SendChain sends = SendChain.allocate(3, 2);
                    RecvChain recvs = RecvChain.allocate(2, 1);
                    CompletionArray wcs = CompletionArray.allocate(16)) {
                for (int i = 0; i < 3; i++) {
                    sends.get(i).wrId(10 + i).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(mr, 64 * i, 64)
                            .remote(0x1000, 7);
                }
                // the cut moves with the count; posting a count again takes the fast path
                for (int count : new int[] {2, 1, 3, 1, 1, 3, 3}) {
                    System.out.println("count=" + count + " " + qp.postSend(sends, count) + polled(cq, wcs));
                }
                // a refused request: bad_wr names it, and the next post checks everything again
                sends.get(1).numSge(2); // the queue pair takes one entry per request: the provider refuses it
                System.out.println("failed=" + qp.postSend(sends, 3) + " " + sends.failedIndex() + polled(cq, wcs));
                // counts outside 1..capacity are refused, whatever proof the chain had or lost
                System.out.println("count.outside=" + refusal(() -> qp.postSend(sends, 0)) + " "
                        + refusal(() -> qp.postSend(sends, -1)) + " " + refusal(() -> qp.postSend(sends, 4)) + polled(cq, wcs));
                sends.get(1).numSge(1);
                System.out.println("after.failure=" + qp.postSend(sends, 3) + " " + sends.failedIndex() + polled(cq, wcs));
                // an entry from another open region of the context keeps the proof; closing that region ends it
                MemoryRegion other = pd.allocateAndRegister(4096, Access.LOCAL_WRITE);
                sends.get(0).sge(other, 0, 64);
                System.out.println("other.region=" + qp.postSend(sends, 1) + " " + qp.postSend(sends, 1) + polled(cq, wcs));
                other.close();
                System.out.println("closed.region=" + refusal(() -> qp.postSend(sends, 1)) + polled(cq, wcs));
                sends.get(0).sge(mr, 0, 64);
                System.out.println("region.again=" + qp.postSend(sends, 1) + " " + qp.postSend(sends, 1) + polled(cq, wcs));
                // a queue pair of another context: the chain's proof names its context, so the post checks and refuses
                try (Context second = Rdma.open("stub0")) {
                    CompletionQueue cq2 = second.createCompletionQueue(16);
                    QueuePair foreign = second.allocateProtectionDomain().createQueuePair(QpConfig.builder(cq2)
                            .capabilities(QpCapabilities.of(16, 16)).build());
                    QueuePair.connectLoopback(foreign, foreign);
                    System.out.println("other.context=" + refusal(() -> foreign.postSend(sends, 1)) + polled(cq2, wcs));
                }
                // a closed queue pair, after its chain was ready for it
                QueuePair closing = pd.createQueuePair(config);
                QueuePair.connectLoopback(closing, closing);
                System.out.println("before.close=" + closing.postSend(sends, 1) + " " + closing.postSend(sends, 1)
                        + polled(cq, wcs));
                closing.close();
                System.out.println("closed.qp=" + refusal(() -> closing.postSend(sends, 1)) + polled(cq, wcs));
                System.out.println("open.qp=" + qp.postSend(sends, 1) + polled(cq, wcs));
                System.out.println("count.zero.ready=" + refusal(() -> qp.postSend(sends, 0)) + " " + qp.postSend(sends, 1)
                        + polled(cq, wcs));
                // receives: the same proof
                recvs.get(0).wrId(20).sge(mr, 1024, 64);
                recvs.get(1).wrId(21).sge(mr, 2048, 64);
                System.out.println("recv=" + qp.postRecv(recvs, 1) + " " + qp.postRecv(recvs, 1) + " " + qp.postRecv(recvs, 2));
                // memory of an arena the caller can close is registered only with that arena, also seen through a buffer
                try (Arena callerMemory = Arena.ofShared()) {
                    System.out.println("arena.memory=" + registration(() -> pd.register(callerMemory.allocate(4096),
                            Access.LOCAL_WRITE)) + " " + registration(() -> pd.register(MemorySegment.ofBuffer(
                            callerMemory.allocate(4096).asByteBuffer()), Access.LOCAL_WRITE)));
                }
                // memory nothing can free while the region holds its segment (a direct buffer's, an automatic arena's)
                MemoryRegion overBuffer = pd.register(MemorySegment.ofBuffer(ByteBuffer.allocateDirect(4096)), Access.LOCAL_WRITE);
                MemoryRegion overAuto = pd.register(Arena.ofAuto().allocate(4096), Access.LOCAL_WRITE);
                sends.get(0).wrId(30).sge(overBuffer, 0, 64);
                recvs.get(0).wrId(31).sge(overAuto, 1024, 64);
                System.out.println("buffer.memory=" + qp.postSend(sends, 1) + " " + qp.postSend(sends, 1) + " "
                        + qp.postRecv(recvs, 1) + " " + qp.postRecv(recvs, 1) + polled(cq, wcs));
                overBuffer.close();
                overAuto.close();
                System.out.println("buffer.region.closed=" + refusal(() -> qp.postSend(sends, 1)) + " "
                        + refusal(() -> qp.postRecv(recvs, 1)) + polled(cq, wcs));
                sends.get(0).wrId(10).sge(mr, 0, 64);
                // a closed chain: posts and setters refuse it
                sends.close();
                System.out.println("closed.chain=" + refusal(() -> qp.postSend(sends, 1)) + " "
                        + refusal(() -> sends.get(0).wrId(1).index()) + polled(cq, wcs));
            }
        }
    }

    /** The wr_ids of every completion waiting, each after a space. */
    private static String polled(CompletionQueue cq, CompletionArray wcs) {
        StringBuilder ids = new StringBuilder();
        for (int n = cq.poll(wcs); n > 0; n = cq.poll(wcs)) {
            for (int i = 0; i < n; i++) {
                ids.append(' ').append(wcs.get(i).wrId());
            }
        }
        return ids.toString();
    }

    /** The simple name of the exception {@code post} throws, or "none: " and its result. */
    /** The simple name of what {@code register} threw, or "registered". */
    private static String registration(java.util.function.Supplier<MemoryRegion> register) {
        try (MemoryRegion unexpected = register.get()) {
            return "registered " + unexpected;
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName();
        }
    }

    private static String refusal(java.util.function.IntSupplier post) {
        try {
            return "none: " + post.getAsInt();
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName();
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
                    id.createQueuePair(pd, QpConfig.builder(cq).capabilities(QpCapabilities.of(4, 4)).build());
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
