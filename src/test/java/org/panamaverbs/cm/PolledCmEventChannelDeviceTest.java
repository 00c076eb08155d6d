package org.panamaverbs.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.DeviceUnderTest;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QpType;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.WcStatus;
import org.panamaverbs.verbs.WrOpcode;

/**
 * A polled event channel ({@link CmEventChannel#createPolled()}) driven the way an event loop drives it: one thread,
 * the descriptor's readiness, {@link CmEventChannel#poll}, each step of a connection started from the handler of the
 * previous step's event. On the real device; the dead peer is a {@link CmPeer} JVM that is killed.
 */
@Tag("rdma-device")
class PolledCmEventChannelDeviceTest {
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final Duration RESOLVE = Duration.ofSeconds(5);
    private static final byte[] HELLO = "hello, polled".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] WELCOME = "welcome, polled".getBytes(StandardCharsets.US_ASCII);
    private static InetAddress address;

    @BeforeAll
    static void findAddress() throws IOException {
        address = DeviceUnderTest.requireAddress("polled rdma_cm tests");
    }

    /** The resources of one side of a connection, made when its id has a device. */
    private static final class Side implements AutoCloseable {
        ProtectionDomain pd;
        CompletionQueue cq;
        MemoryRegion region;

        void attach(CmId id) {
            pd = id.context().allocateProtectionDomain();
            cq = id.context().createCompletionQueue(16);
            region = pd.allocateAndRegister(4096, Access.LOCAL_WRITE);
            id.createQueuePair(pd, QpConfig.builder(cq).type(QpType.RC).build());
        }

        @Override
        public void close() {
            for (AutoCloseable c : new AutoCloseable[] {region, cq, pd}) {
                try {
                    if (c != null) {
                        c.close();
                    }
                } catch (Exception ignored) {
                    // closed with its id already
                }
            }
        }
    }

    /** One event as the handler saw it, copied (the view is valid only inside the handler). */
    private record Seen(CmId id, CmEventType type, int status) {
    }

    /** Polls the channels from this thread until {@code done} holds, failing after {@link #BOUND}. */
    private static void pump(java.util.function.BooleanSupplier done, CmEventHandler handler, CmEventChannel... channels) {
        pump(done, () -> "", handler, channels);
    }

    /** {@link #pump} whose failure message ends with {@code state}. */
    private static void pump(java.util.function.BooleanSupplier done, java.util.function.Supplier<String> state,
            CmEventHandler handler, CmEventChannel... channels) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (!done.getAsBoolean()) {
            int handled = 0;
            for (CmEventChannel channel : channels) {
                handled += channel.poll(handler, 16);
            }
            if (handled == 0) {
                assertTrue(System.nanoTime() < deadline, () -> "the awaited events did not come within " + BOUND + state.get());
                Thread.onSpinWait();
            }
        }
    }

    @Test
    void aConnectionIsSetUpUsedAndTornDownFromOnePollingThreadInOrder() throws Throwable {
        int readersBefore = readerThreads();
        List<Seen> seen = new ArrayList<>();
        // the sides first: closing the channels closes the ids and their queue pairs before the PDs and CQs
        try (Side serverSide = new Side(); Side clientSide = new Side();
                CmEventChannel serverChannel = CmEventChannel.createPolled();
                CmEventChannel clientChannel = CmEventChannel.createPolled()) {
            assertEquals(readersBefore, readerThreads(), "a polled channel starts no thread");
            CmId listener = CmId.create(serverChannel, PortSpace.TCP);
            listener.bind(new InetSocketAddress(address, 0));
            listener.listen(4);
            CmId client = CmId.create(clientChannel, PortSpace.TCP);
            AtomicReference<CmId> accepted = new AtomicReference<>();
            byte[] requestData = new byte[64];
            byte[] establishedData = new byte[255];
            CmEventHandler handler = event -> {
                seen.add(new Seen(event.id(), event.type(), event.status()));
                switch (event.type()) {
                    case ADDR_RESOLVED -> event.id().beginResolveRoute(RESOLVE);
                    case ROUTE_RESOLVED -> {
                        clientSide.attach(event.id());
                        event.id().beginConnect(ConnParam.defaults().withPrivateData(HELLO));
                    }
                    case CONNECT_REQUEST -> {
                        assertSame(listener, event.listenId());
                        event.copyPrivateData(requestData, 0);
                        accepted.set(event.id());
                        serverSide.attach(event.id());
                        event.id().accept(ConnParam.defaults().withPrivateData(WELCOME));
                    }
                    case ESTABLISHED -> {
                        if (event.id() == client) {
                            event.copyPrivateData(establishedData, 0);
                        }
                    }
                    // the passive side answers the peer's disconnect request, as a C program does: until then the
                    // initiator waits for the reply (and after its retries gets DISCONNECTED with -ETIMEDOUT)
                    case DISCONNECTED -> {
                        if (event.id() == accepted.get()) {
                            event.id().disconnect();
                        }
                    }
                    default -> { }
                }
            };
            client.beginResolveAddress(new InetSocketAddress(address, listener.localAddress().getPort()), RESOLVE);
            pump(() -> count(seen, CmEventType.ESTABLISHED) == 2, () -> "; seen " + seen, handler, serverChannel, clientChannel);
            assertEquals(readersBefore, readerThreads(), "still no thread after a whole connection setup");
            assertArrayEquals(HELLO, Arrays.copyOf(requestData, HELLO.length));
            assertArrayEquals(WELCOME, Arrays.copyOf(establishedData, WELCOME.length));

            // the connection carries bytes: one SEND from the client, compared where it landed
            CmId server = accepted.get();
            try (RecvChain recvs = RecvChain.allocate(1, 1); SendChain sends = SendChain.allocate(1, 1)) {
                recvs.get(0).wrId(7).sge(serverSide.region, 0, 256);
                server.queuePair().postRecvOrThrow(recvs, 1);
                for (int i = 0; i < 256; i++) {
                    clientSide.region.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + 5));
                }
                sends.get(0).wrId(8).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(clientSide.region, 0, 256);
                client.queuePair().postSendOrThrow(sends, 1);
                assertEquals(WcStatus.SUCCESS, CmPeer.pollOne(clientSide.cq).status());
                CmPeer.Done received = CmPeer.pollOne(serverSide.cq);
                assertEquals(WcStatus.SUCCESS, received.status());
                assertEquals(256, received.byteLength());
                assertArrayEquals(clientSide.region.segment().asSlice(0, 256).toArray(ValueLayout.JAVA_BYTE),
                        serverSide.region.segment().asSlice(0, 256).toArray(ValueLayout.JAVA_BYTE));
            }

            client.disconnect();
            pump(() -> client.isDisconnected() && server.isDisconnected(), () -> "; seen " + seen, handler, serverChannel,
                    clientChannel);
            assertEquals(List.of(CmEventType.ADDR_RESOLVED, CmEventType.ROUTE_RESOLVED, CmEventType.ESTABLISHED,
                    CmEventType.DISCONNECTED), typesOf(seen, client));
            assertEquals(List.of(CmEventType.CONNECT_REQUEST, CmEventType.ESTABLISHED, CmEventType.DISCONNECTED),
                    typesOf(seen, server));
            assertTrue(seen.stream().allMatch(s -> s.status() == 0), "every status 0: " + seen);
            assertTrue(typesOf(seen, listener).isEmpty(), "the request went to its new id, not the listener's");
            assertEquals(List.of(listener, server), serverChannel.ids());
        }
        assertEquals(readersBefore, readerThreads());
    }

    @Test
    void theDescriptorIsReadableExactlyWhileEventsWait() throws Throwable {
        try (CmEventChannel channel = CmEventChannel.createPolled()) {
            int fd = channel.fd();
            long started = System.nanoTime();
            assertEquals(0, channel.poll(event -> { }, 16), "nothing waits yet");
            assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(1), "an empty poll returns at once");
            assertFalse(readable(fd, 0));
            CmId id = CmId.create(channel, PortSpace.TCP);
            id.beginResolveAddress(new InetSocketAddress(address, 4791), RESOLVE);
            assertTrue(readable(fd, (int) BOUND.toMillis()), "ADDR_RESOLVED makes the descriptor readable");
            List<CmEventType> types = new ArrayList<>();
            assertEquals(1, channel.poll(event -> types.add(event.type()), 16));
            assertEquals(List.of(CmEventType.ADDR_RESOLVED), types);
            assertFalse(readable(fd, 0), "read: the descriptor is quiet again");
        }
    }

    /**
     * The timed poll of a thread of the application's own: it waits for the first event within its bound, returns 0
     * after the bound when none comes or at once when another thread calls {@code wakeup()}, and a close from another
     * thread ends its wait with the closed-channel exception at once, not at the bound.
     */
    @Test
    void aTimedPollWaitsForTheFirstEventAndACloseEndsItsWait() throws Throwable {
        try (CmEventChannel channel = CmEventChannel.createPolled()) {
            long started = System.nanoTime();
            assertEquals(0, channel.poll(event -> { }, 16, Duration.ofMillis(300)), "nothing comes");
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertTrue(waited >= 250, "waited out the bound: " + waited + " ms");
            assertEquals(0, channel.poll(event -> { }, 16, Duration.ZERO), "a zero bound does not wait");
            CmId id = CmId.create(channel, PortSpace.TCP);
            List<CmEventType> types = new ArrayList<>();
            Thread.ofPlatform().start(() -> {
                sleepQuietly(200); // the poll below is waiting by then
                id.beginResolveAddress(new InetSocketAddress(address, 4791), RESOLVE);
            });
            assertEquals(1, channel.poll(event -> types.add(event.type()), 16, BOUND));
            assertEquals(List.of(CmEventType.ADDR_RESOLVED), types);
            Thread.ofPlatform().start(() -> {
                sleepQuietly(300);
                channel.wakeup();
            });
            started = System.nanoTime();
            assertEquals(0, channel.poll(event -> { }, 16, BOUND), "a wakeup ends the wait, nothing read");
            waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertTrue(waited < 10_000, "woken, not at the bound: " + waited + " ms");
        }
        CmEventChannel closing = CmEventChannel.createPolled();
        AtomicReference<Throwable> ended = new AtomicReference<>();
        CountDownLatch polling = new CountDownLatch(1);
        Thread waiter = Thread.ofVirtual().start(() -> {
            polling.countDown();
            try {
                closing.poll(event -> { }, 1, Duration.ofNanos(Long.MAX_VALUE)); // no bound but the close
            } catch (Throwable e) {
                ended.set(e);
            }
        });
        assertTrue(polling.await(BOUND.toSeconds(), TimeUnit.SECONDS));
        Thread.sleep(300); // parked on the descriptor
        long started = System.nanoTime();
        closing.close();
        assertTrue(waiter.join(BOUND), "the close ended the wait");
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(ended.get() instanceof IllegalStateException, "ended with: " + ended.get());
        assertTrue(millis < 5000, "at once, not at a bound: " + millis + " ms");
    }

    /**
     * The close an event loop uses: the id is closed for Java when closeAsync returns (calls throw, the channel no
     * longer lists it), rdma_destroy_id completes the future later, and close() and closeAsync() afterwards are
     * no-ops.
     */
    @Test
    void closeAsyncEndsTheIdForJavaAtOnceAndCompletesWhenDestroyed() throws Exception {
        try (Side side = new Side(); CmEventChannel channel = CmEventChannel.createPolled()) {
            CmId id = CmId.create(channel, PortSpace.TCP);
            id.bind(new InetSocketAddress(address, 0));
            side.attach(id); // with a queue pair, which the close closes first
            var destroyed = id.closeAsync();
            assertTrue(id.isClosed());
            assertTrue(id.queuePair().isClosed(), "the queue pair is closed before closeAsync returns");
            assertFalse(channel.ids().contains(id));
            assertThrows(IllegalStateException.class, () -> id.bind(new InetSocketAddress(address, 0)));
            destroyed.get(BOUND.toSeconds(), TimeUnit.SECONDS);
            id.close();
            assertTrue(id.closeAsync().isDone(), "a second close has nothing left to do");
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void misuseOfAPolledChannelThrowsAndNeverBlocks() throws Throwable {
        try (CmEventChannel threaded = CmEventChannel.create()) {
            assertFalse(threaded.isPolled());
            assertTrue(assertThrows(IllegalStateException.class, () -> threaded.poll(event -> { }, 1)).getMessage()
                    .contains("createPolled()"));
            assertThrows(IllegalStateException.class, threaded::fd);
        }
        CmEventChannel channel = CmEventChannel.createPolled();
        assertTrue(channel.isPolled());
        assertThrows(IllegalArgumentException.class, () -> channel.poll(event -> { }, 0));
        CmId id = CmId.create(channel, PortSpace.TCP);
        InetSocketAddress somewhere = new InetSocketAddress(address, 4791);
        // the blocking calls would wait on a queue that a polled channel's ids do not have
        for (Runnable blocking : List.<Runnable>of(() -> id.awaitEvent(Duration.ofSeconds(1)),
                () -> id.resolveAddress(somewhere, RESOLVE), () -> id.awaitDisconnected(Duration.ofSeconds(1)),
                () -> id.awaitConnectionRequest(Duration.ofSeconds(1)), () -> id.awaitEstablished(Duration.ofSeconds(1)))) {
            long started = System.nanoTime();
            IllegalStateException e = assertThrows(IllegalStateException.class, blocking::run);
            assertTrue(e.getMessage().contains("polled"), e.getMessage());
            assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(1), "refused at once");
        }
        id.beginResolveAddress(somewhere, RESOLVE); // the first step was not started by the refused resolveAddress
        AtomicReference<CmEventView> kept = new AtomicReference<>();
        AtomicReference<Throwable> nested = new AtomicReference<>();
        pump(() -> kept.get() != null, event -> {
            kept.set(event);
            nested.set(assertThrows(IllegalStateException.class, () -> channel.poll(e -> { }, 1)));
        }, channel);
        assertTrue(nested.get().getMessage().contains("own handler"), nested.get().getMessage());
        assertThrows(IllegalStateException.class, () -> kept.get().type(), "a view kept past its handler");
        assertThrows(IllegalStateException.class, () -> kept.get().copyPrivateData(new byte[8], 0));
        assertThrows(IllegalStateException.class, () -> kept.get().toEvent());
        channel.close();
        channel.close();
        assertThrows(IllegalStateException.class, () -> channel.poll(event -> { }, 1));
        assertThrows(IllegalStateException.class, channel::fd);
        assertTrue(id.isClosed());
    }

    @Test
    void aCloseFromTheHandlerEndsThePollAndACloseFromElsewhereWaitsForIt() throws Throwable {
        CmEventChannel first = CmEventChannel.createPolled();
        CmId one = CmId.create(first, PortSpace.TCP);
        CmId two = CmId.create(first, PortSpace.TCP);
        one.beginResolveAddress(new InetSocketAddress(address, 4791), RESOLVE);
        two.beginResolveAddress(new InetSocketAddress(address, 4792), RESOLVE);
        assertTrue(readable(first.fd(), (int) BOUND.toMillis()));
        Thread.sleep(200); // both events queued
        List<CmEventType> handled = new ArrayList<>();
        int n = first.poll(event -> {
            handled.add(event.type());
            first.close(); // closes both ids: the second event is not handed over
        }, 16);
        assertEquals(1, n);
        assertEquals(List.of(CmEventType.ADDR_RESOLVED), handled);
        assertTrue(first.isClosed() && one.isClosed() && two.isClosed());

        CmEventChannel second = CmEventChannel.createPolled();
        CmId three = CmId.create(second, PortSpace.TCP);
        three.beginResolveAddress(new InetSocketAddress(address, 4793), RESOLVE);
        assertTrue(readable(second.fd(), (int) BOUND.toMillis()));
        CountDownLatch inHandler = new CountDownLatch(1);
        Thread poller = Thread.ofPlatform().start(() -> second.poll(event -> {
            inHandler.countDown();
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, 16));
        assertTrue(inHandler.await(BOUND.toSeconds(), TimeUnit.SECONDS));
        long started = System.nanoTime();
        second.close(); // waits for the handler, then destroys the channel
        long waitedMs = (System.nanoTime() - started) / 1_000_000;
        poller.join(BOUND.toMillis());
        assertFalse(poller.isAlive());
        assertTrue(waitedMs >= 500 && waitedMs < 10_000, "the close waited for the handler in flight: " + waitedMs + " ms");
    }

    @Test
    void aKilledClientBecomesDisconnectedOnThePolledServer() throws Exception {
        try (Side side = new Side(); CmEventChannel channel = CmEventChannel.createPolled()) {
            CmId listener = CmId.create(channel, PortSpace.TCP);
            listener.bind(new InetSocketAddress(address, 0));
            listener.listen(4);
            List<Seen> seen = new ArrayList<>();
            AtomicReference<CmId> accepted = new AtomicReference<>();
            CmEventHandler handler = event -> {
                seen.add(new Seen(event.id(), event.type(), event.status()));
                if (event.type() == CmEventType.CONNECT_REQUEST) {
                    accepted.set(event.id());
                    side.attach(event.id());
                    event.id().accept(ConnParam.defaults());
                }
            };
            try (CmConnectionDeviceTest.Peer client = new CmConnectionDeviceTest.Peer("rc-client", address.getHostAddress(),
                    Integer.toString(listener.localAddress().getPort()))) {
                pump(() -> count(seen, CmEventType.ESTABLISHED) == 1, handler, channel);
                client.expect("CONNECTED", BOUND);
                client.process.destroyForcibly();
                long killedAt = System.nanoTime();
                pump(() -> accepted.get().isDisconnected(), handler, channel);
                System.out.println("cm: client killed; the polled server saw RDMA_CM_EVENT_DISCONNECTED after "
                        + (System.nanoTime() - killedAt) / 1_000_000 + " ms");
            }
            assertEquals(List.of(CmEventType.CONNECT_REQUEST, CmEventType.ESTABLISHED, CmEventType.DISCONNECTED),
                    typesOf(seen, accepted.get()));
        }
    }

    @Test
    void handingOverAnEventAllocatesNothing() throws Throwable {
        MethodHandle allocatedBytes = org.panamaverbs.verbs.ThreadAllocation.counter();
        int perRound = 100;
        try (CmEventChannel channel = CmEventChannel.createPolled()) {
            long[] statusSum = new long[1];
            int[] handled = new int[1];
            CmEventHandler handler = event -> { // reads what an event loop reads, copies nothing
                statusSum[0] += event.status() + event.type().ordinal() + event.privateDataLength();
                if (event.id().isDisconnected()) {
                    statusSum[0]++;
                }
                handled[0]++;
            };
            // an event loop's steady state: the read compiled by C2 (an empty poll runs the same rdma_get_cm_event;
            // in C1 code the JDK's errno capture allocates a slice per call)
            for (int i = 0; i < 30_000; i++) {
                channel.poll(handler, 64);
            }
            long measured = 0;
            for (int round = 0; round < 4; round++) { // the first rounds warm up (class loading, profiling)
                List<CmId> ids = new ArrayList<>();
                for (int i = 0; i < perRound; i++) {
                    CmId id = CmId.create(channel, PortSpace.TCP);
                    id.beginResolveAddress(new InetSocketAddress(address, 5000 + i), RESOLVE);
                    ids.add(id);
                }
                assertTrue(readable(channel.fd(), (int) BOUND.toMillis()));
                handled[0] = 0;
                long deadline = System.nanoTime() + BOUND.toNanos();
                long before = (long) allocatedBytes.invokeExact();
                while (handled[0] < perRound && System.nanoTime() < deadline) {
                    channel.poll(handler, 64);
                }
                measured = (long) allocatedBytes.invokeExact() - before;
                System.out.println("cm: round " + round + ": " + measured + " bytes");
                assertEquals(perRound, handled[0], "every ADDR_RESOLVED arrived");
                for (CmId id : ids) {
                    id.close();
                }
            }
            System.out.println("cm: polling " + perRound + " events allocated " + measured + " bytes");
            assertTrue(measured < 1024, "handing over " + perRound + " events allocated " + measured + " bytes");
        }
    }

    /** {@code poll(2)} on one descriptor for POLLIN. */
    private static boolean readable(int fd, int timeoutMillis) throws Throwable {
        Linker linker = Linker.nativeLinker();
        MethodHandle poll = linker.downcallHandle(linker.defaultLookup().find("poll").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pollfd = arena.allocate(8, 4);
            pollfd.set(ValueLayout.JAVA_INT, 0, fd);
            pollfd.set(ValueLayout.JAVA_SHORT, 4, (short) 1); // POLLIN
            int n = (int) poll.invokeExact(pollfd, 1L, timeoutMillis);
            return n == 1 && (pollfd.get(ValueLayout.JAVA_SHORT, 6) & 1) != 0;
        }
    }

    /** The channels' reader threads alive now, from a thread dump (virtual threads are not in getAllStackTraces). */
    private static int readerThreads() throws Exception {
        String dump = ThreadDumps.take("JSON");
        int count = 0;
        for (int at = dump.indexOf("\"panama-verbs-cm-events-"); at >= 0; at = dump.indexOf("\"panama-verbs-cm-events-", at + 1)) {
            count++;
        }
        return count;
    }

    private static long count(List<Seen> seen, CmEventType type) {
        return seen.stream().filter(s -> s.type() == type).count();
    }

    private static List<CmEventType> typesOf(List<Seen> seen, CmId id) {
        return seen.stream().filter(s -> s.id() == id).map(Seen::type).toList();
    }
}
