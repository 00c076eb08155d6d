package org.panamaverbs.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.FuzzRecord;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.VerbsException;

/**
 * Random operations over rdma_cm ids and connections on the real device, from several threads at once over one
 * shared pool of ids: create, bind, listen, resolve address and route, create the queue pair, connect, accept
 * or reject the requests that arrive, disconnect, close, and every call on ids another thread is closing (or
 * has closed), on event channels that are closed and replaced now and then. Every step must end in success or
 * in a documented exception ({@link IllegalStateException}, {@link IllegalArgumentException},
 * {@link VerbsException} and its {@link CmException}); a crash ends the device run, a step that does not return
 * within 60 s fails the test. The seed is printed; each thread's choices replay with
 * {@code -Dpanamaverbs.cmfuzz.seed=0x...}, the interleaving of the threads does not.
 *
 * <p>Steps: {@code panamaverbs.cmfuzz.steps} (default 20000) over {@code panamaverbs.cmfuzz.threads} threads
 * (default 3). Most steps are single librdmacm calls (each a write to {@code /dev/infiniband/rdma_cm}); a
 * queue pair or a connection is a small share.
 */
// Not in the device suite but after it, in a JVM of its own (scripts/test-all; by hand: -Pdevice-tests
// -Dtest.groups=device-extended -Dtest=CmFuzzDeviceTest): an id closed in the middle of connection setup can leave the
// kernel's rdma_destroy_id waiting (ib_cm's cm_destroy_id) past the test, and the id then keeps librdmacm's per-device
// protection domain, which the suite's leak check would count (docs/misuse.md).
@Tag("device-extended")
class CmFuzzDeviceTest {
    private static final int STEPS = Integer.getInteger("panamaverbs.cmfuzz.steps", 20_000);
    private static final int THREADS = Integer.getInteger("panamaverbs.cmfuzz.threads", 3);
    /** The most ids kept at once; beyond, the oldest is closed. */
    private static final int POOL = 24;
    private static final Duration STEP_BOUND = Duration.ofSeconds(60);
    /** How long the destroys still in the kernel after the last close may take, all together. */
    private static final Duration DESTROY_BOUND = Duration.ofMinutes(5);
    private static final List<Class<? extends Throwable>> DOCUMENTED = List.of(IllegalStateException.class,
            IllegalArgumentException.class, VerbsException.class);
    static InetAddress address;

    private final FuzzRecord record = new FuzzRecord(DOCUMENTED);
    /**
     * Where a fuzz thread's interrupt status was found set, by step: nothing in the test interrupts these threads, so
     * each is a lead (printed with the seed; about once a run, and no Java-level Thread.interrupt or carrier
     * hand-over reached these threads when traced), not yet a failure.
     */
    private final java.util.concurrent.ConcurrentHashMap<String, Integer> strayInterrupts = new java.util.concurrent.ConcurrentHashMap<>();
    /** The pool: guarded by itself. Closed ids stay for a while, to be misused. */
    private final List<Entry> ids = new ArrayList<>();
    private final List<CmEventChannel> channels = new ArrayList<>();
    /** One protection domain and completion queue per device context wrapper, for the ids' queue pairs. */
    private final Map<Context, Shared> shared = new IdentityHashMap<>();
    private final List<Shared> allShared = new ArrayList<>();

    @BeforeAll
    static void findAddress() throws IOException {
        CmConnectionDeviceTest.findAddress(); // the device's address, or skipped with the reason
        address = CmConnectionDeviceTest.address;
    }

    /** An id of the pool and what its events said so far. */
    private static final class Entry {
        final CmId id;
        /** The last event type seen on the id (null: none yet); the flow's next step depends on it. */
        volatile CmEventType last;
        volatile boolean listening;
        volatile boolean request;

        Entry(CmId id, boolean request) {
            this.id = id;
            this.request = request;
        }
    }

    private record Shared(ProtectionDomain pd, CompletionQueue cq) {
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    void randomConnectionManagementFromSeveralThreadsEndsInDocumentedOutcomes() throws Exception {
        long seed = Long.decode(System.getProperty("panamaverbs.cmfuzz.seed", "0x" + Long.toHexString(System.nanoTime())));
        System.out.println("cm fuzz: seed 0x" + Long.toHexString(seed) + ", " + STEPS + " steps on " + THREADS + " threads");
        long start = System.nanoTime();
        synchronized (channels) {
            channels.add(CmEventChannel.create());
            channels.add(CmEventChannel.create());
        }
        SplittableRandom root = new SplittableRandom(seed);
        AtomicInteger done = new AtomicInteger();
        List<Thread> workers = new ArrayList<>();
        AtomicLong[] stepStarted = new AtomicLong[THREADS];
        try {
            for (int t = 0; t < THREADS; t++) {
                SplittableRandom random = root.split();
                int steps = STEPS / THREADS + (t < STEPS % THREADS ? 1 : 0);
                AtomicLong started = stepStarted[t] = new AtomicLong(System.nanoTime());
                workers.add(Thread.ofPlatform().name("cm-fuzz-" + t).start(() -> {
                    for (int i = 0; i < steps; i++) {
                        started.set(System.nanoTime());
                        step(random);
                        done.incrementAndGet();
                    }
                    started.set(Long.MAX_VALUE);
                }));
            }
            for (Thread worker : workers) {
                while (worker.isAlive()) {
                    worker.join(1000);
                    for (int t = 0; t < THREADS; t++) {
                        long since = System.nanoTime() - stepStarted[t].get();
                        if (stepStarted[t].get() != Long.MAX_VALUE && since > STEP_BOUND.toNanos()) {
                            Thread stuck = workers.get(t);
                            StringBuilder where = new StringBuilder();
                            for (StackTraceElement frame : stuck.getStackTrace()) {
                                where.append("\n    at ").append(frame);
                            }
                            throw new AssertionError("a step of " + stuck.getName() + " has not returned within " + STEP_BOUND
                                    + " (seed 0x" + Long.toHexString(seed) + "):" + where + "\n" + allThreads());
                        }
                    }
                }
            }
        } finally {
            closeEverything();
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        String destroys = awaitBackgroundDestroys();
        System.out.println("cm fuzz: outcomes " + record.outcomes());
        if (!strayInterrupts.isEmpty()) {
            System.out.println("cm fuzz: a fuzz thread's interrupt status was found set after " + strayInterrupts);
        }
        System.out.println("cm fuzz: " + done.get() + " steps on " + THREADS + " threads, seed 0x" + Long.toHexString(seed)
                + ", 0 crashes, " + record.findings().size() + " undocumented exceptions, " + seconds + " s");
        System.out.println("cm fuzz: " + destroys);
        assertEquals(List.of(), record.findings(), "steps that threw what the API does not document (seed 0x"
                + Long.toHexString(seed) + ")");
    }

    /**
     * Waits for the destroys that {@link CmId#close()} left running in the background (past its 10 s) to return: the
     * kernel's wait for a connection's outstanding messages ends on its own (their retries time out), so one that
     * does not return within {@link #DESTROY_BOUND} fails the test. Waiting here also keeps that wait out of the
     * JVM's exit, which the kernel holds until every thread left the destroy: a test run that had passed could
     * otherwise end past Surefire's patience with its forked JVM.
     */
    private static String awaitBackgroundDestroys() throws InterruptedException {
        long start = System.nanoTime();
        List<Thread> destroyers = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(CmId.DESTROY_THREAD_NAME)).toList();
        for (Thread destroyer : destroyers) {
            long left = DESTROY_BOUND.toNanos() - (System.nanoTime() - start);
            if (left <= 0 || !destroyer.join(Duration.ofNanos(left))) {
                throw new AssertionError(destroyers.size() + " rdma_destroy_id calls were still in the kernel at the end,"
                        + " and one has not returned within " + DESTROY_BOUND + " more:\n" + allThreads());
            }
        }
        return destroyers.size() + " rdma_destroy_id calls were still in the kernel after the last close; all returned"
                + " within " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) + " s";
    }

    /**
     * Every thread's stack, virtual ones (the channels' readers) included: what a stuck step waits for; without
     * jdk.management, the platform threads only.
     */
    private static String allThreads() {
        try {
            String threads = ThreadDumps.take("TEXT_PLAIN");
            return "every thread:\n" + threads + nativeWaits();
        } catch (ReflectiveOperationException | java.io.IOException | RuntimeException e) {
            StringBuilder platform = new StringBuilder("platform threads only (" + e + "):");
            Thread.getAllStackTraces().forEach((thread, frames) -> {
                platform.append("\n").append(thread);
                for (StackTraceElement frame : frames) {
                    platform.append("\n    at ").append(frame);
                }
            });
            return platform.toString();
        }
    }

    /** Where each of the process's tasks waits in the kernel (wchan, and the stack where readable): futex is user space. */
    private static String nativeWaits() {
        StringBuilder out = new StringBuilder("\nkernel waits of this process's tasks:");
        try (var tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/task"))) {
            for (java.nio.file.Path task : tasks.toList()) {
                String comm = read(task.resolve("comm")).strip();
                String wchan = read(task.resolve("wchan")).strip();
                if (wchan.isEmpty() || wchan.equals("0") || comm.startsWith("GC") || comm.startsWith("C1") || comm.startsWith("C2")) {
                    continue;
                }
                out.append("\n  ").append(task.getFileName()).append(' ').append(comm).append(": ").append(wchan);
                if (!wchan.startsWith("futex") && !wchan.startsWith("do_epoll") && !wchan.startsWith("hrtimer")) {
                    out.append("\n    ").append(read(task.resolve("stack")).strip().replace("\n", "\n    "));
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            out.append(" unreadable (").append(e).append(')');
        }
        return out.toString();
    }

    private static String read(java.nio.file.Path file) {
        try {
            return java.nio.file.Files.readString(file);
        } catch (java.io.IOException | RuntimeException e) {
            return "";
        }
    }

    private void step(SplittableRandom random) {
        int dice = random.nextInt(1000);
        String name;
        Runnable op;
        if (dice < 90) {
            name = "create id";
            op = () -> add(new Entry(CmId.create(anyChannel(random), PortSpace.TCP), false));
        } else if (dice < 330) {
            name = "advance a flow";
            op = () -> advance(pick(random), random);
        } else if (dice < 450) {
            name = "take events";
            op = () -> takeEvents(pick(random), random.nextInt(4) == 0 ? Duration.ofMillis(20) : Duration.ZERO);
        } else if (dice < 530) {
            name = "bind";
            op = () -> pick(random).id.bind(new InetSocketAddress(address, 0));
        } else if (dice < 570) {
            name = "listen";
            op = () -> pick(random).id.listen(1 + random.nextInt(8));
        } else if (dice < 620) {
            name = "resolve address";
            op = () -> pick(random).id.beginResolveAddress(target(random), Duration.ofMillis(1 + random.nextInt(2000)));
        } else if (dice < 650) {
            name = "resolve route";
            op = () -> pick(random).id.beginResolveRoute(Duration.ofMillis(1 + random.nextInt(2000)));
        } else if (dice < 670) {
            name = "connect";
            op = () -> pick(random).id.beginConnect(ConnParam.defaults().withPrivateData(new byte[random.nextInt(70)]));
        } else if (dice < 690) {
            name = "accept";
            op = () -> pick(random).id.accept(ConnParam.defaults().withPrivateData(new byte[random.nextInt(210)]));
        } else if (dice < 705) {
            name = "reject";
            op = () -> pick(random).id.reject(new byte[random.nextInt(160)]);
        } else if (dice < 735) {
            name = "disconnect";
            op = () -> pick(random).id.disconnect();
        } else if (dice < 790) {
            name = "read addresses and context";
            op = () -> {
                CmId id = pick(random).id;
                id.localAddress();
                id.peerAddress();
                id.port();
                id.context();
            };
        } else if (dice < 900) {
            name = "close";
            op = () -> pick(random).id.close();
        } else if (dice < 985) {
            name = "a call racing close on another thread";
            op = () -> raceClose(pick(random), random);
        } else if (dice < 995) {
            name = "create queue pair";
            op = () -> createQueuePair(pick(random));
        } else {
            name = "close and replace a channel";
            op = () -> replaceChannel(random);
        }
        run(name, op);
    }

    private void run(String name, Runnable op) {
        if (Thread.interrupted()) {
            strayInterrupts.merge("before " + name, 1, Integer::sum);
        }
        record.run(Thread.currentThread().getName(), name, op);
        interruptedBy(name);
    }

    private Entry pick(SplittableRandom random) {
        synchronized (ids) {
            if (ids.isEmpty()) {
                throw new FuzzRecord.EmptyPool();
            }
            // mostly open ids: the others are kept to be misused
            if (random.nextInt(6) != 0) {
                List<Entry> open = ids.stream().filter(e -> !e.id.isClosed()).toList();
                if (!open.isEmpty()) {
                    return open.get(random.nextInt(open.size()));
                }
            }
            return ids.get(random.nextInt(ids.size()));
        }
    }

    private void add(Entry entry) {
        Entry oldest = null;
        synchronized (ids) {
            ids.add(entry);
            ids.removeIf(e -> e.id.isClosed() && ids.size() > POOL / 2);
            if (ids.size() > POOL) {
                oldest = ids.removeFirst();
            }
        }
        if (oldest != null) {
            oldest.id.close();
        }
    }

    private CmEventChannel anyChannel(SplittableRandom random) {
        synchronized (channels) {
            return channels.get(random.nextInt(channels.size()));
        }
    }

    /** The address of a listening id of the pool, mostly; else a port nobody listens on. */
    private InetSocketAddress target(SplittableRandom random) {
        if (random.nextInt(5) != 0) {
            synchronized (ids) {
                List<Entry> listeners = ids.stream().filter(e -> e.listening && !e.id.isClosed()).toList();
                if (!listeners.isEmpty()) {
                    InetSocketAddress local = listeners.get(random.nextInt(listeners.size())).id.localAddressOrNull();
                    if (local != null) {
                        return new InetSocketAddress(address, local.getPort());
                    }
                }
            }
        }
        return new InetSocketAddress(address, 20000 + random.nextInt(1000));
    }

    /** Takes the id's queued events and notes what they say; a connection request's new id joins the pool. */
    private void takeEvents(Entry entry, Duration wait) {
        CmEvent event;
        while ((event = entry.id.awaitEvent(wait)) != null) {
            entry.last = event.type();
            if (event.type() == CmEventType.CONNECT_REQUEST) {
                add(new Entry(event.id(), true));
            }
            wait = Duration.ZERO;
        }
    }

    /** Notes (and clears) this thread's interrupt status if set after {@code call}: nothing here interrupts it. */
    private void interruptedBy(String call) {
        if (Thread.interrupted()) {
            strayInterrupts.merge(call, 1, Integer::sum);
        }
    }

    /** The next step of a connection's flow for this id, by what its events said so far. */
    private void advance(Entry entry, SplittableRandom random) {
        takeEvents(entry, Duration.ZERO);
        CmId id = entry.id;
        CmEventType last = entry.last;
        if (entry.request) {
            if (id.queuePair() == null) {
                createQueuePair(entry);
            } else if (last == null) {
                if (random.nextInt(5) == 0) {
                    id.reject(new byte[] {1});
                } else {
                    id.accept(ConnParam.defaults());
                }
            } else if (last == CmEventType.ESTABLISHED) {
                id.disconnect();
            } else {
                id.close();
            }
        } else if (entry.listening) {
            takeEvents(entry, Duration.ofMillis(20));
        } else if (last == null) {
            if (random.nextInt(3) == 0) {
                id.bind(new InetSocketAddress(address, 0));
                id.listen(8);
                entry.listening = true;
            } else {
                id.beginResolveAddress(target(random), Duration.ofMillis(2000));
            }
        } else if (last == CmEventType.ADDR_RESOLVED) {
            id.beginResolveRoute(Duration.ofMillis(2000));
        } else if (last == CmEventType.ROUTE_RESOLVED) {
            if (id.queuePair() == null) {
                createQueuePair(entry);
            }
            id.beginConnect(ConnParam.defaults());
            entry.last = CmEventType.CONNECT_RESPONSE; // waiting for the outcome
        } else if (last == CmEventType.ESTABLISHED) {
            id.disconnect();
        } else if (last != CmEventType.CONNECT_RESPONSE) {
            id.close();
        }
    }

    private void createQueuePair(Entry entry) {
        CmId id = entry.id;
        Context context = id.context();
        Shared resources;
        synchronized (shared) {
            resources = shared.get(context);
            if (resources == null || resources.pd().isClosed()) {
                resources = new Shared(context.allocateProtectionDomain(), context.createCompletionQueue(512));
                shared.put(context, resources);
                allShared.add(resources);
            }
        }
        id.createQueuePair(resources.pd(), QpConfig.builder(resources.cq())
                .capabilities(QpCapabilities.of(4, 4)).build());
    }

    /** Another thread repeats a call on the id while this one closes it; the call must end, documented, within 30 s. */
    private void raceClose(Entry entry, SplittableRandom random) {
        CmId id = entry.id;
        int call = random.nextInt(7);
        InetSocketAddress target = target(random);
        java.util.concurrent.atomic.AtomicReference<Throwable> ended = new java.util.concurrent.atomic.AtomicReference<>();
        Thread racer = Thread.ofPlatform().start(() -> {
            try {
                for (int i = 0; i < 1000; i++) {
                    try {
                        switch (call) {
                            case 0 -> id.disconnect();
                            case 1 -> id.listen(1);
                            case 2 -> id.bind(new InetSocketAddress(address, 0));
                            case 3 -> id.beginResolveAddress(target, Duration.ofMillis(100));
                            case 4 -> id.beginResolveRoute(Duration.ofMillis(100));
                            case 5 -> id.reject(null);
                            default -> {
                                id.context();
                                id.peerAddress();
                            }
                        }
                    } catch (VerbsException refused) {
                        // the kernel refused it in the id's state: call again
                    }
                }
            } catch (Throwable e) {
                ended.set(e);
            }
        });
        long until = System.nanoTime() + random.nextLong(500_000);
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
        try {
            id.close();
        } finally {
            String interrupted = "";
            long until30s = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (racer.isAlive() && System.nanoTime() < until30s) {
                try {
                    racer.join(Duration.ofNanos(Math.max(1, until30s - System.nanoTime())));
                } catch (InterruptedException e) { // a stray interrupt must not cut the 30 s short: noted, waited on
                    strayInterrupts.merge("racer.join", 1, Integer::sum);
                    interrupted = " (this thread was interrupted while waiting)";
                }
            }
            if (racer.isAlive()) {
                StringBuilder where = new StringBuilder();
                for (StackTraceElement frame : racer.getStackTrace()) {
                    where.append("\n    at ").append(frame);
                }
                record.finding("a call on " + id + " did not end within 30 s of its close" + interrupted + ":" + where);
            } else if (ended.get() != null && !record.isDocumented(ended.get())) {
                record.finding("a call racing close threw " + ended.get());
            }
        }
    }

    private void replaceChannel(SplittableRandom random) {
        CmEventChannel gone;
        synchronized (channels) {
            gone = channels.remove(random.nextInt(channels.size()));
            channels.add(CmEventChannel.create());
        }
        gone.close(); // closes its ids: the pool keeps them, closed, for misuse
    }

    /** Closes every id and channel, then the queue pairs' domains and queues. */
    private void closeEverything() {
        synchronized (ids) {
            for (Entry e : ids) {
                run("close at the end", e.id::close);
            }
        }
        synchronized (channels) {
            for (CmEventChannel channel : channels) {
                run("close a channel at the end", channel::close);
            }
        }
        synchronized (shared) {
            for (Shared s : allShared) {
                run("close a queue at the end", s.cq()::close);
                run("close a domain at the end", s.pd()::close);
            }
        }
    }
}
