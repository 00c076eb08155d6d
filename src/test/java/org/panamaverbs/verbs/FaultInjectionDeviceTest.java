package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Faults on the real device, each bounded in time, and what the user sees for each: a remote access
 * error, a queue pair forced to ERR mid-stream, receiver-not-ready with the retries exhausted, a
 * completion queue overrun, and the link going down under traffic and coming back. Nothing may hang and
 * nothing may leak (the suite's leak check runs after this class). Runs just before the leak check, so the
 * link fault cannot disturb another class.
 */
@Order(Integer.MAX_VALUE - 1)
class FaultInjectionDeviceTest extends DeviceTest {

    /** Loopback pair with these connection options (RNR and retry counts). */
    private static Loopback pair(QpConnectOptions options) {
        return new Loopback(4096, 1, options);
    }

    private static void postReceives(Loopback p, int count, long firstId) {
        for (int i = 0; i < count; i++) {
            p.recvs.get(i).wrId(firstId + i).sge(p.mrB, 64L * i, 64);
        }
        p.b.postRecvOrThrow(p.recvs, count);
    }

    private static void postSends(Loopback p, int count, long firstId) {
        for (int i = 0; i < count; i++) {
            p.sends.get(i).wrId(firstId + i).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(p.mrA, 64L * i, 32);
        }
        p.a.postSendOrThrow(p.sends, count);
    }

    @Test
    void badRkeyIsARemoteAccessErrorForTheRequesterAndErrorsTheResponder() {
        try (Loopback p = pair(QpConnectOptions.defaults())) {
            postReceives(p, 1, 100);
            p.sends.get(0).wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(p.mrA, 0, 16)
                    .remote(p.mrB.address(), p.mrB.rkey() ^ 0x5a00);
            p.a.postSendOrThrow(p.sends, 1);
            Done requester = await(p.cqA, 1).getFirst();
            assertEquals(1, requester.wrId());
            assertEquals(WcStatus.REM_ACCESS_ERR, requester.status());
            assertEquals(QpState.ERR, p.a.state(), "a failed RC request moves the requester to ERR");
            // the responder detected the violation: its queue pair goes to ERR and its receive is flushed
            Done responder = await(p.cqB, 1).getFirst();
            System.out.println("fault: bad rkey: requester " + requester.status() + ", responder receive "
                    + responder.status() + ", responder QP " + p.b.state());
            assertEquals(100, responder.wrId());
            assertNotEquals(WcStatus.SUCCESS, responder.status());
            assertEquals(QpState.ERR, p.b.state());
        }
    }

    @Test
    void forcingAQueuePairToErrorMidStreamFlushesEveryOutstandingReceive() {
        try (Loopback p = pair(QpConnectOptions.defaults())) {
            postReceives(p, 16, 1000);
            postSends(p, 6, 1);
            List<Done> sent = await(p.cqA, 6);
            assertTrue(sent.stream().allMatch(d -> d.status() == WcStatus.SUCCESS), sent.toString());
            p.b.modifyToError();
            List<Done> received = await(p.cqB, 16);
            List<Long> ids = received.stream().map(Done::wrId).sorted().toList();
            assertEquals(IntStream.range(1000, 1016).mapToObj(i -> (long) i).toList(), ids, "every receive completes once");
            long ok = received.stream().filter(d -> d.status() == WcStatus.SUCCESS).count();
            long flushed = received.stream().filter(d -> d.status() == WcStatus.WR_FLUSH_ERR).count();
            assertEquals(6, ok, "the six sends arrived before the error");
            assertEquals(10, flushed, "the other ten were flushed");
            assertEquals(QpState.ERR, p.b.state());
            // posting to a queue pair in ERR is allowed; the spec flushes such requests at once, but rxe on
            // Linux 6.1 completes nothing for them: accept either, never a success
            postReceives(p, 2, 2000);
            List<Done> late = new ArrayList<>();
            try (CompletionArray wcs = CompletionArray.allocate(4)) {
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                while (System.nanoTime() < until && late.size() < 2) {
                    int n = p.cqB.poll(wcs);
                    for (int i = 0; i < n; i++) {
                        late.add(Done.of(wcs.get(i)));
                    }
                }
            }
            assertTrue(late.stream().allMatch(d -> d.status() == WcStatus.WR_FLUSH_ERR), late.toString());
            System.out.println("fault: QP to ERR mid-stream: 6 received, 10 flushed; of 2 receives posted in ERR, "
                    + late.size() + " completed (flushed)");
        }
    }

    @Test
    void receiverNotReadyWithNoRetriesIsAnRnrRetryError() {
        try (Loopback p = pair(QpConnectOptions.builder().rnrRetry(0).minRnrTimer(1).build())) {
            postSends(p, 1, 7); // b has no receive posted
            Done done = await(p.cqA, 1).getFirst();
            assertEquals(7, done.wrId());
            assertEquals(WcStatus.RNR_RETRY_EXC_ERR, done.status());
            assertEquals(QpState.ERR, p.a.state());
            // what was posted after the failure is flushed, not lost
            postSends(p, 2, 8);
            List<Done> flushed = await(p.cqA, 2);
            assertTrue(flushed.stream().allMatch(d -> d.status() == WcStatus.WR_FLUSH_ERR), flushed.toString());
            System.out.println("fault: RNR with rnr_retry 0: " + done.status() + ", later sends flushed");
        }
    }

    @Test
    void overrunningACompletionQueueRaisesCqErrAndTheQueuePairStopsCompleting() {
        try (CompletionQueue tiny = context.createCompletionQueue(1);
             CompletionQueue other = context.createCompletionQueue(64);
             QueuePair a = pd.createQueuePair(QpConfig.builder(tiny)
                     .capabilities(QpCapabilities.defaults().withMaxSendWr(64)).build());
             QueuePair b = pd.createQueuePair(QpConfig.builder(other).build());
             MemoryRegion mr = pd.allocateAndRegister(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
             SendChain wrs = SendChain.allocate(1, 1)) {
            QueuePair.connectLoopback(a, b);
            int writes = tiny.capacity() + 4;
            for (int i = 0; i < writes; i++) {
                wrs.get(0).wrId(i).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(mr, 0, 8)
                        .remote(mr.address() + 64, mr.rkey());
                a.postSendOrThrow(wrs, 1);
            }
            AsyncEvent event = awaitEvent(context, AsyncEventType.CQ_ERR, COMPLETION_TIMEOUT);
            assertSame(tiny, event.completionQueue());
            // the queue holds at most its capacity; the overflowing completions are gone
            int polled = 0;
            try (CompletionArray wcs = CompletionArray.allocate(64)) {
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                while (System.nanoTime() < until) {
                    int n = tiny.poll(wcs);
                    assertTrue(n >= 0, "poll returned " + n);
                    polled += n;
                }
            }
            System.out.println("fault: CQ of " + tiny.capacity() + " overrun by " + writes + " completions: CQ_ERR, "
                    + polled + " polled, QP " + a.state());
            assertTrue(polled <= tiny.capacity() + 1, polled + " completions from a queue of " + tiny.capacity());
        }
    }

    @Test
    void linkDownUnderTrafficIsReportedAndTrafficEndsInCompletionsThenRecovers() throws Exception {
        String netdev = netdevOf(context.name());
        assumeTrue(netdev != null, "the device has no network device (not RoCE)");
        // only a throwaway test link: bringing a real NIC down would cut the machine off
        assumeTrue(netdev.startsWith("veth") || "true".equals(System.getenv("PANAMA_VERBS_LINK_FAULTS")),
                netdev + " is not the guest's veth (set PANAMA_VERBS_LINK_FAULTS=true to allow it)");
        assumeTrue("root".equals(System.getProperty("user.name")), "ip link set needs root");
        List<GidEntry> gidsBefore = context.gidTable(1);
        try (Context ctx = Rdma.open(context.name());
             ProtectionDomain domain = ctx.allocateProtectionDomain();
             CompletionQueue cq = ctx.createCompletionQueue(256);
             MemoryRegion mr = domain.allocateAndRegister(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
             SendChain wrs = SendChain.allocate(1, 1)) {
            QueuePair a = domain.createQueuePair(QpConfig.builder(cq)
                    .capabilities(QpCapabilities.defaults().withMaxSendWr(64)).build());
            QueuePair b = domain.createQueuePair(QpConfig.builder(cq).build());
            QueuePair.connectLoopback(a, b, QpConnectOptions.builder().retryCount(1).timeout(10).build());
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger posted = new AtomicInteger();
            List<WcStatus> statuses = new ArrayList<>();
            Thread traffic = Thread.ofPlatform().start(() -> {
                try (CompletionArray wcs = CompletionArray.allocate(16)) {
                    int outstanding = 0;
                    long drainUntil = Long.MAX_VALUE;
                    while (outstanding > 0 || !stop.get()) {
                        if (!stop.get() && outstanding < 32) {
                            wrs.get(0).wrId(posted.get()).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                                    .sge(mr, 0, 64).remote(mr.address() + 1024, mr.rkey());
                            if (a.postSend(wrs, 1) == 0) {
                                posted.incrementAndGet();
                                outstanding++;
                            }
                        }
                        if (stop.get() && drainUntil == Long.MAX_VALUE) {
                            drainUntil = System.nanoTime() + COMPLETION_TIMEOUT.toNanos();
                        }
                        if (System.nanoTime() > drainUntil) {
                            break;
                        }
                        int n = cq.poll(wcs);
                        for (int i = 0; i < n; i++) {
                            statuses.add(wcs.get(i).status());
                        }
                        outstanding -= n;
                    }
                }
            });
            try {
                Thread.sleep(300);
                ip("link", "set", "dev", netdev, "down");
                awaitEvent(ctx, AsyncEventType.PORT_ERR, COMPLETION_TIMEOUT);
                assertEquals(PortState.DOWN, ctx.queryPort(1).state());
                Thread.sleep(1000);
            } finally {
                ip("link", "set", "dev", netdev, "up");
            }
            awaitEvent(ctx, AsyncEventType.PORT_ACTIVE, COMPLETION_TIMEOUT);
            stop.set(true);
            traffic.join(COMPLETION_TIMEOUT.plusSeconds(10));
            assertTrue(!traffic.isAlive(), "the traffic thread ended");
            String stuck = "";
            if (statuses.size() < posted.get()) {
                // rxe under load once left its last 32 requests in flight, neither retried nor failed, for the whole
                // drain after the link came back (CI, 2026-11-29): what an application does then is move the queue
                // pair to ERR, which flushes every outstanding request with a completion
                stuck = "; " + (posted.get() - statuses.size()) + " left in flight by the device for "
                        + COMPLETION_TIMEOUT.toSeconds() + " s, flushed by modifyToError";
                a.modifyToError();
                try (CompletionArray wcs = CompletionArray.allocate(16)) {
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (statuses.size() < posted.get() && System.nanoTime() < until) {
                        int n = cq.poll(wcs);
                        for (int i = 0; i < n; i++) {
                            statuses.add(wcs.get(i).status());
                        }
                    }
                }
            }
            System.out.println("fault: link down/up under traffic: " + posted.get() + " posted, " + statuses.size()
                    + " completed " + statuses.stream().distinct().toList() + ", QP " + a.state() + stuck);
            assertEquals(posted.get(), statuses.size(), "every posted request completed (successfully or not)");
            assertEquals(PortState.ACTIVE, ctx.queryPort(1).state());
        } finally {
            // the suite after this class needs the GIDs back (IPv6 link-local ones return after DAD)
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!context.gidTable(1).equals(gidsBefore) && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
        }
        assertEquals(gidsBefore, context.gidTable(1), "the GID table is back after the link came up");
    }

    /** The network device under port 1 of {@code device} (RoCE), or null. */
    private static String netdevOf(String device) throws IOException {
        Path ndev = Path.of("/sys/class/infiniband", device, "ports/1/gid_attrs/ndevs/0");
        return Files.exists(ndev) ? Files.readString(ndev).trim() : null;
    }

    private static void ip(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("ip"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, String.join(" ", command) + ": " + out);
    }
}
