package org.panamaverbs.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.panamaverbs.verbs.BoundedJoin;
import org.panamaverbs.verbs.VerbsException;

/**
 * Misuse of the connection manager's API on the real device, in this JVM: calls on an id racing its
 * {@code close()} from another thread, a context reached through an id and then lost, and an event reader
 * held up or failed by the application's log handler. Each ends in a documented exception within a stated
 * bound; none may crash the JVM.
 */
@Tag("rdma-device")
class CmMisuseDeviceTest {
    /** The id calls raced against close; enough rounds that a use after free (before the fix) crashed. */
    private static final int RACES = Integer.getInteger("panamaverbs.cm.races", 240);
    static InetAddress address;

    @BeforeAll
    static void findAddress() throws IOException {
        CmConnectionDeviceTest.findAddress(); // the device's address, or skipped with the reason
        address = CmConnectionDeviceTest.address;
    }

    /** One call an id offers; a racer repeats it until the id is closed under it. */
    private interface IdCall {
        void run(CmId id);
    }

    /**
     * Every call of {@link CmId} that hands the id to librdmacm, raced against {@code close()} on another thread.
     * Before close waited for calls in flight, {@code rdma_destroy_id} freed the id under a call that had passed
     * the closed check (a use after free in librdmacm: SIGSEGV). Each call must end in its documented
     * exception ({@link IllegalStateException} once closed; {@link VerbsException} for what the kernel refuses),
     * and every close within 30 s.
     */
    @Test
    void callsRacingCloseEndInDocumentedExceptions() throws Exception {
        List<IdCall> calls = List.of(
                CmId::disconnect,
                id -> id.listen(1),
                id -> id.bind(new InetSocketAddress(address, 0)),
                id -> id.beginResolveAddress(new InetSocketAddress(address, 1), Duration.ofMillis(1)),
                id -> id.beginResolveRoute(Duration.ofMillis(1)),
                id -> id.reject(new byte[] {1}),
                id -> {
                    id.context();
                    id.port();
                    id.localAddress();
                    id.peerAddress();
                });
        SplittableRandom random = new SplittableRandom(Long.getLong("panamaverbs.cm.seed", System.nanoTime()));
        List<String> findings = new ArrayList<>();
        long start = System.nanoTime();
        try (CmEventChannel channel = CmEventChannel.create()) {
            for (int round = 0; round < RACES; round++) {
                IdCall call = calls.get(round % calls.size());
                CmId id = CmId.create(channel, PortSpace.TCP);
                id.bind(new InetSocketAddress(address, 0)); // on the device: every call reaches librdmacm
                AtomicReference<Throwable> ended = new AtomicReference<>();
                CountDownLatch started = new CountDownLatch(1);
                Thread racer = Thread.ofPlatform().daemon().name("racer-" + round).start(() -> {
                    started.countDown();
                    try {
                        while (true) {
                            try {
                                call.run(id);
                            } catch (VerbsException refused) {
                                // the kernel refused this call in the id's state: call again
                            }
                        }
                    } catch (Throwable e) {
                        ended.set(e);
                    }
                });
                assertTrue(started.await(30, TimeUnit.SECONDS));
                long until = System.nanoTime() + random.nextLong(300_000);
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                id.close();
                String late = BoundedJoin.join(racer, Duration.ofSeconds(30));
                if (late != null) {
                    findings.add("round " + round + ": after close, " + late);
                } else if (!(ended.get() instanceof IllegalStateException)) {
                    findings.add("round " + round + ": " + ended.get());
                }
            }
        }
        System.out.println("cm races: " + RACES + " rounds, " + findings.size() + " findings, "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
        assertEquals(List.of(), findings);
    }

    /**
     * An id closed while the channel's reader handles its ADDR_RESOLVED, with ids made on the same channel meanwhile.
     * librdmacm reads the event, then queries the kernel by the id's handle; the kernel reuses the lowest free handle,
     * so an id made between the destroy and that query answered it without a device, and librdmacm read
     * {@code cm_id->verbs->device} through NULL (SIGSEGV in {@code rdma_get_cm_event}; {@link CmFuzzDeviceTest}, seed
     * 0xc358e8106). Each round closes one id at about the time its event is read (the lag adapts so that half the
     * events were read first) and makes four while its {@code rdma_destroy_id} runs. Before the fix the JVM crashed
     * within 4000 rounds in each of three runs; each round must now end with the ids closed and the channel reading.
     */
    @Test
    void idsMadeWhileAClosedIdsEventIsReadNeverTakeItsHandle() throws Exception {
        int rounds = Integer.getInteger("panamaverbs.cm.handleRounds", 4000);
        long start = System.nanoTime();
        int read = 0;
        long lag = 0; // from the resolve to the close, kept near the time the reader takes to read the event
        try (CmEventChannel channel = CmEventChannel.create()) {
            for (int round = 0; round < rounds; round++) {
                CmId resolving = CmId.create(channel, PortSpace.TCP);
                resolving.beginResolveAddress(new InetSocketAddress(address, 1), Duration.ofSeconds(2));
                long until = System.nanoTime() + lag;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                boolean wasRead = resolving.awaitEvent(Duration.ZERO) != null;
                read += wasRead ? 1 : 0;
                lag = Math.max(0, lag + (wasRead ? -5_000 : 5_000));
                CompletableFuture<Void> destroyed = resolving.closeAsync();
                List<CmId> made = new ArrayList<>(); // while rdma_destroy_id runs: the first after it takes the handle
                for (int i = 0; i < 4; i++) {
                    made.add(CmId.create(channel, PortSpace.TCP));
                }
                destroyed.get(30, TimeUnit.SECONDS);
                made.forEach(CmId::close);
            }
            // the reader still reads: a last id resolves and hears of it
            try (CmId last = CmId.create(channel, PortSpace.TCP)) {
                last.resolveAddress(new InetSocketAddress(address, 1), Duration.ofSeconds(30));
                assertNotNull(last.context());
            }
        }
        System.out.println("cm handle reuse: " + rounds + " rounds, " + read + " events read before the close, lag "
                + lag / 1000 + " us, " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
    }

    /**
     * Calls in the wrong order on an id that has no device yet ({@code cm_id->verbs} NULL: neither bound to a
     * device's address nor resolved). librdmacm's {@code rdma_resolve_route} reads {@code cm_id->verbs->device}
     * without a check (SIGSEGV; found by {@link CmFuzzDeviceTest}), and so does {@code rdma_disconnect} before rdma-core
     * 21: each is refused in Java first, with what to do.
     */
    @Test
    void callsThatNeedADeviceAreRefusedOnAnIdWithoutOne() {
        try (CmEventChannel channel = CmEventChannel.create(); CmId id = CmId.create(channel, PortSpace.TCP)) {
            IllegalStateException early = assertThrows(IllegalStateException.class,
                    () -> id.beginResolveRoute(Duration.ofMillis(100)));
            assertTrue(early.getMessage().contains("rdma_resolve_route") && early.getMessage().contains(
                    "resolve an address first"), early.getMessage());
            assertThrows(IllegalStateException.class, () -> id.resolveRoute(Duration.ofMillis(100)));
            VerbsException notConnected = assertThrows(VerbsException.class, id::disconnect);
            assertEquals("rdma_disconnect", notConnected.verb());
            assertEquals("EINVAL", notConnected.errnoName());
            assertThrows(IllegalStateException.class, id::context);
            // bound to the device's address, the same id has a device and the route call reaches the kernel
            id.bind(new InetSocketAddress(address, 0));
            VerbsException refused = assertThrows(VerbsException.class, () -> id.beginResolveRoute(Duration.ofMillis(100)));
            assertEquals("rdma_resolve_route", refused.verb());
        }
    }

    /**
     * The device context an id reports ({@code cm_id->verbs}) is wrapped once per device; that wrapper must not be
     * kept reachable by the library itself, or the backstop could never free what was left open on it. Bound:
     * 60 s of garbage collections.
     */
    @Test
    void aContextReachedThroughAnIdIsFreedByTheBackstopOnceLost() throws Exception {
        try (BackstopLog log = new BackstopLog(); CmEventChannel channel = CmEventChannel.create()) {
            try (CmId id = CmId.create(channel, PortSpace.TCP)) {
                id.bind(new InetSocketAddress(address, 0));
                id.context().allocateProtectionDomain(); // left open, and every reference dropped
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!log.freed() && System.nanoTime() < deadline) {
                System.gc();
                Thread.sleep(100);
            }
            assertTrue(log.freed(), "the backstop freed the protection domain left open on the id's context");
        }
    }

    /** Watches the verbs logger for the backstop's warning about a lost tree. */
    private static final class BackstopLog extends Handler implements AutoCloseable {
        private final Logger logger = Logger.getLogger("org.panamaverbs.verbs");
        private volatile boolean freed;

        BackstopLog() {
            logger.addHandler(this);
        }

        boolean freed() {
            return freed;
        }

        @Override
        public void publish(LogRecord record) {
            String message = record.getMessage();
            if (message != null && message.contains("became unreachable without close()") && message.contains("ProtectionDomain")) {
                freed = true;
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            logger.removeHandler(this);
        }
    }

    /**
     * An application log handler on {@code org.panamaverbs.cm} that stops the first record of an event for a while
     * (a slow log sink), or throws once (a broken one). The channel's reader logs every event.
     */
    private static final class StuckLog extends Handler implements AutoCloseable {
        private final Logger logger = Logger.getLogger("org.panamaverbs.cm");
        private final Level previous = logger.getLevel();
        private final boolean throwOnce;
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private boolean done;

        StuckLog(boolean throwOnce) {
            this.throwOnce = throwOnce;
            setLevel(Level.ALL);
            logger.setLevel(Level.ALL);
            logger.addHandler(this);
        }

        @Override
        public void publish(LogRecord record) {
            if (record.getMessage() == null || !record.getMessage().contains("(status")) {
                return; // not an event's record
            }
            synchronized (this) {
                if (done) {
                    return;
                }
                done = true;
            }
            entered.countDown();
            if (throwOnce) {
                throw new IllegalStateException("a broken log handler");
            }
            // a sink that does not answer interrupts (blocking I/O, say): only the release or 60 s end the wait
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            boolean interrupted = false;
            while (release.getCount() > 0 && System.nanoTime() < until) {
                try {
                    release.await(until - System.nanoTime(), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            release.countDown();
            logger.removeHandler(this);
            logger.setLevel(previous);
        }
    }

    /**
     * One event the reader fails to report (the application's log handler throws) must not end the delivery of
     * events: the next resolution still gets its event. Bound: the resolution's own, 2 s plus the delivery margin.
     */
    @Test
    void aFailureWhileReportingOneEventDoesNotEndTheDelivery() {
        try (StuckLog log = new StuckLog(true); CmEventChannel channel = CmEventChannel.create();
                CmId first = CmId.create(channel, PortSpace.TCP); CmId second = CmId.create(channel, PortSpace.TCP)) {
            InetSocketAddress peer = new InetSocketAddress(address, 7471);
            first.resolveAddress(peer, Duration.ofSeconds(2)); // its event is the one the handler fails on
            second.resolveAddress(peer, Duration.ofSeconds(2));
            assertNotNull(second.context());
        }
    }

    /**
     * The reader held up after an event (here by a log handler that blocks): closing the channel closes its ids at
     * once, waits for the reader at most 10 s, and the native channel is still
     * destroyed once the reader returns (it was leaked: a close that gave up never destroyed it).
     */
    @Test
    void aCloseThatOutwaitsItsReaderStillDestroysTheChannel() throws Exception {
        int before = openRdmaCmDescriptors();
        CmEventChannel channel = CmEventChannel.create();
        try (StuckLog log = new StuckLog(false)) {
            CmId id = CmId.create(channel, PortSpace.TCP);
            id.beginResolveAddress(new InetSocketAddress(address, 7471), Duration.ofSeconds(2));
            assertTrue(log.entered.await(30, TimeUnit.SECONDS), "the reader reported the event");
            long start = System.nanoTime();
            IllegalStateException stuck = assertThrows(IllegalStateException.class, channel::close);
            long waited = System.nanoTime() - start;
            assertTrue(waited < TimeUnit.SECONDS.toNanos(15), // the close's own bound (10 s) and some slack
                    "close waited " + TimeUnit.NANOSECONDS.toMillis(waited) + " ms: " + stuck.getMessage());
            assertTrue(id.isClosed() && channel.isClosed());
        } // releases the reader
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (openRdmaCmDescriptors() != before && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals(before, openRdmaCmDescriptors(), "the channel's descriptor was closed once its reader returned");
        channel.close(); // the channel is gone: closing again returns at once
    }

    /** This process's open descriptors of {@code /dev/infiniband/rdma_cm}: one per event channel. */
    static int openRdmaCmDescriptors() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return (int) fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).toString().equals("/dev/infiniband/rdma_cm");
                } catch (IOException gone) {
                    return false;
                }
            }).count();
        }
    }

    /**
     * Misuse round 3 (docs/misuse.md): {@code listen(backlog)} bounds the requests a listener holds, and its close
     * refuses those it held. Before, the channel's reader took every request off the kernel, so {@code listen(1)}
     * held 24 as open kernel ids, and they stayed open on the channel after the listener closed.
     */
    @Test
    void theBacklogBoundsTheRequestsHeldAndTheListenersCloseRefusesThem() throws Exception {
        int backlog = 2;
        int clients = 6;
        Duration bound = Duration.ofSeconds(120);
        try (RdmaServer server = RdmaServer.listen(new InetSocketAddress(address, 0), ConnectionOptions.defaults(), backlog)) {
            CmId listener = server.listeningId();
            InetSocketAddress target = new InetSocketAddress(address, server.localAddress().getPort());
            List<CompletableFuture<Throwable>> outcomes = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                CompletableFuture<Throwable> outcome = new CompletableFuture<>();
                outcomes.add(outcome);
                Thread.ofVirtual().start(() -> {
                    try (Connection unexpected = Connection.connect(target, ConnectionOptions.defaults(), bound)) {
                        outcome.complete(null);
                    } catch (Throwable t) {
                        outcome.complete(t);
                    }
                });
            }
            // nobody accepts: all but the backlog's requests are refused at once
            long deadline = System.nanoTime() + bound.toNanos();
            while (outcomes.stream().filter(CompletableFuture::isDone).count() < clients - backlog) {
                assertTrue(System.nanoTime() < deadline, "clients refused: " + outcomes.stream().filter(CompletableFuture::isDone).count());
                Thread.sleep(50);
            }
            Thread.sleep(1000); // a request beyond the bound would have been taken by now
            long held = listener.channel().ids().size() - 1;
            System.out.println("cm: listen(" + backlog + ") with " + clients + " clients held " + held + " requests");
            assertEquals(backlog, held, () -> "requests held by the listener: " + listener.channel().ids()
                    + "; the clients' outcomes so far: " + outcomes.stream().map(o -> o.getNow(null)).toList());
            assertEquals(clients - backlog, outcomes.stream().filter(CompletableFuture::isDone).count(),
                    "the requests within the backlog wait");
            for (CompletableFuture<Throwable> outcome : outcomes) {
                if (outcome.isDone()) {
                    assertRefused(outcome.get());
                }
            }

            long closing = System.nanoTime();
            listener.close();
            assertEquals(List.of(), listener.channel().ids(), "no request outlives its listener");
            for (CompletableFuture<Throwable> outcome : outcomes) {
                assertRefused(outcome.get(bound.toSeconds(), TimeUnit.SECONDS));
            }
            System.out.println("cm: the listener's close refused the held requests; their clients knew in "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closing) + " ms");
        }
    }

    private static void assertRefused(Throwable outcome) {
        CmException refused = assertInstanceOf(CmException.class, outcome, "a refused client's connect: " + outcome);
        assertEquals(CmEventType.REJECTED, refused.event(), refused.getMessage());
    }
}
