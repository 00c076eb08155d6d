package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Random operations over the public API, on the real device: objects created and closed in any order
 * (parents before children too), posts of random opcodes, flags, counts and scatter-gather entries
 * (from open, closed, foreign-context and freed-memory regions), polls, queue pairs driven to random
 * states, caller arenas closed under registered regions, closes from a second thread while this one
 * posts, {@code num_sge} raised over an entry whose region closed after the last post, setters called from a
 * second thread on a chain this one posts, a completion queue closed while a channel reader takes its
 * events, and writes through the objects' handles. Every step must succeed or throw one of the documented
 * exceptions; a JVM crash ends the device run. The seed is printed first, so any failure replays with
 * {@code -Dpanamaverbs.fuzz.seed=0x...}.
 *
 * <p>Steps: {@code panamaverbs.fuzz.steps} (default 100000). Most steps are cheap (Java-side checks,
 * posts, polls); object creation, a syscall costing milliseconds under TCG, is a small share.
 */
class FuzzDeviceTest extends DeviceTest {
    private static final int STEPS = Integer.getInteger("panamaverbs.fuzz.steps", 100_000);
    /** The exceptions the API documents for misuse; anything else is a finding. */
    private static final List<Class<? extends Throwable>> DOCUMENTED = List.of(IllegalStateException.class,
            IllegalArgumentException.class, IndexOutOfBoundsException.class, VerbsException.class,
            WrongThreadException.class);

    private SplittableRandom random;
    private final FuzzRecord record = new FuzzRecord(DOCUMENTED);

    // the pool: everything the fuzzer made, open or closed (closed ones are kept to be misused)
    private final List<Context> contexts = new ArrayList<>();
    private final List<ProtectionDomain> pds = new ArrayList<>();
    private final List<MemoryRegion> regions = new ArrayList<>();
    private final List<Arena> callerArenas = new ArrayList<>();
    private final List<CompletionQueue> cqs = new ArrayList<>();
    private final List<QueuePair> qps = new ArrayList<>();
    private final List<AddressHandle> ahs = new ArrayList<>();
    private final List<SharedReceiveQueue> srqs = new ArrayList<>();
    private SendChain sends;
    private RecvChain recvs;
    private CompletionArray wcs;

    @Test
    @Timeout(value = 30, unit = TimeUnit.MINUTES)
    void randomOperationsEndInSuccessOrADocumentedException() throws Exception {
        long seed = Long.decode(System.getProperty("panamaverbs.fuzz.seed", "0x" + Long.toHexString(System.nanoTime())));
        random = new SplittableRandom(seed);
        System.out.println("fuzz: seed 0x" + Long.toHexString(seed) + ", " + STEPS + " steps");
        long start = System.nanoTime();
        sends = SendChain.allocate(8, 2);
        recvs = RecvChain.allocate(8, 2);
        wcs = CompletionArray.allocate(16);
        try {
            for (int step = 0; step < STEPS; step++) {
                step(step);
            }
        } finally {
            closeEverything();
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        System.out.println("fuzz: outcomes " + record.outcomes());
        System.out.println("fuzz: " + STEPS + " steps, seed 0x" + Long.toHexString(seed) + ", 0 crashes, "
                + record.findings().size() + " undocumented exceptions, " + seconds + " s");
        assertEquals(List.of(), record.findings(), "steps that threw what the API does not document (seed 0x"
                + Long.toHexString(seed) + ")");
    }

    private void step(int step) {
        int dice = random.nextInt(1000);
        String name;
        Runnable op;
        if (dice < 15) {
            name = "create PD";
            op = () -> pds.add(anyContext().allocateProtectionDomain());
        } else if (dice < 45) {
            name = "register region";
            op = this::register;
        } else if (dice < 55) {
            name = "create CQ";
            op = () -> cqs.add(anyContext().createCompletionQueue(1 + random.nextInt(64)));
        } else if (dice < 80) {
            name = "create QP";
            op = this::createQueuePair;
        } else if (dice < 88) {
            name = "create AH";
            op = this::createAddressHandle;
        } else if (dice < 92) {
            name = "create SRQ";
            op = () -> srqs.add(pick(pds).createSharedReceiveQueue(1 + random.nextInt(16), 1 + random.nextInt(2)));
        } else if (dice < 140) {
            name = "close";
            op = this::closeSomething;
        } else if (dice < 148) {
            name = "free a registered region's memory, then post it";
            op = this::freeRegisteredMemory;
        } else if (dice < 180) {
            name = "modify QP";
            op = this::modifyQueuePair;
        } else if (dice < 400) {
            name = "write send";
            op = this::writeSend;
        } else if (dice < 500) {
            name = "write receive";
            op = this::writeReceive;
        } else if (dice < 700) {
            name = "post send";
            op = () -> pickMostlyOpen(qps).postSend(sends, random.nextInt(sends.capacity() + 2));
        } else if (dice < 780) {
            name = "post receive";
            op = this::postReceive;
        } else if (dice < 962) {
            name = "poll";
            op = () -> pickMostlyOpen(cqs).poll(wcs, random.nextInt(wcs.capacity() + 2));
        } else if (dice < 967) {
            name = "keep a completion of an array dropped without close";
            op = this::keepACompletionOfADroppedArray;
        } else if (dice < 972) {
            name = "register a read-only view for the device to write";
            op = this::registerReadOnly;
        } else if (dice < 975) {
            name = "close what a parked thread waits on";
            op = this::closeUnderAParkedWaiter;
        } else if (dice < 980) {
            name = "raise num_sge over an entry whose region closed since the last post";
            op = this::raiseNumSgeAfterClose;
        } else if (dice < 985) {
            name = "setters from another thread while this one posts";
            op = this::settersFromAnotherThread;
        } else if (dice < 987) {
            name = "close a CQ while a channel reader takes its events";
            op = this::closeCqUnderAReader;
        } else if (dice < 995) {
            name = "write through a handle";
            op = this::writeThroughAHandle;
        } else {
            name = "close from another thread while posting";
            op = this::closeConcurrently;
        }
        run(step, name, op);
    }

    private void run(int step, String name, Runnable op) {
        record.run("step " + step, name, op);
    }

    private <T> T pick(List<T> pool) {
        if (pool.isEmpty()) {
            throw new FuzzRecord.EmptyPool();
        }
        return pool.get(random.nextInt(pool.size()));
    }

    /** An open object of the pool (closed ones are kept for misuse, but most steps should reach the device). */
    private <T extends VerbsResource> T pickOpen(List<T> pool) {
        return pick(pool.stream().filter(r -> !r.isClosed()).toList());
    }

    private <T extends VerbsResource> T pickMostlyOpen(List<T> pool) {
        return random.nextInt(5) == 0 ? pick(pool) : pickOpen(pool);
    }

    /** The suite's context most of the time; now and then a second one (regions of it are foreign elsewhere). */
    private Context anyContext() {
        if (contexts.isEmpty() || (contexts.size() < 3 && random.nextInt(50) == 0)) {
            contexts.add(Rdma.open(context.name()));
        }
        return pick(contexts);
    }

    private static Access[] access(SplittableRandom random) {
        return random.nextBoolean() ? new Access[] {Access.LOCAL_WRITE}
                : new Access[] {Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ};
    }

    /** Half the regions own their memory; half are over caller memory tied to its arena, closed at the end. */
    private void register() {
        ProtectionDomain pd = pick(pds);
        long size = 64L << random.nextInt(8);
        if (random.nextBoolean()) {
            regions.add(pd.allocateAndRegister(size, access(random)));
        } else {
            Arena arena = Arena.ofShared();
            callerArenas.add(arena);
            regions.add(pd.register(arena, arena.allocate(size, 64), access(random)));
        }
        trim(regions, 24);
    }

    private void createQueuePair() {
        ProtectionDomain pd = pick(pds);
        CompletionQueue cq = pick(cqs);
        QpType type = random.nextInt(4) == 0 ? QpType.UD : QpType.RC;
        QpCapabilities capabilities = QpCapabilities.of(1 + random.nextInt(16), 1 + random.nextInt(16))
                .withMaxSendSge(1 + random.nextInt(2)).withMaxRecvSge(1 + random.nextInt(2));
        if (random.nextInt(4) == 0) {
            capabilities = capabilities.withMaxInlineData(random.nextInt(128));
        }
        QpConfig.Builder config = QpConfig.builder(cq).type(type).capabilities(capabilities);
        if (random.nextInt(5) == 0 && !srqs.isEmpty()) {
            config.srq(pick(srqs));
        }
        qps.add(pd.createQueuePair(config.build()));
        trim(qps, 10);
    }

    private void createAddressHandle() {
        ProtectionDomain pd = pick(pds);
        GidEntry gid = pick(pd.context().gidTable(1));
        ahs.add(pd.createAddressHandle(AddressHandle.Target.of(gid.gid(), gid.index(), 1)));
        trim(ahs, 6);
    }

    /** Keeps the pool of live objects bounded: beyond {@code max}, the oldest is closed and dropped. */
    private static <T extends AutoCloseable> void trim(List<T> pool, int max) {
        while (pool.size() > max) {
            try {
                pool.removeFirst().close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private void closeSomething() {
        List<List<? extends VerbsResource>> kinds = List.of(pds, regions, cqs, qps, ahs, srqs, contexts);
        int kind = random.nextInt(100) < 2 ? kinds.size() - 1 : random.nextInt(kinds.size() - 1);
        VerbsResource victim = pick(kinds.get(kind));
        victim.close();
        if (random.nextInt(4) == 0) {
            for (List<? extends VerbsResource> pool : kinds) {
                pool.removeIf(VerbsResource::isClosed); // forget closed objects now and then, so the pools refill
            }
        }
    }

    /**
     * Caller memory registered without its arena: refused (nothing could stop the device before that arena frees
     * it). Registered with its arena, an entry of it written, the arena closed (which deregisters the region
     * before it frees the memory): the post must refuse the entry. The region never joins the pool.
     */
    private void freeRegisteredMemory() {
        QueuePair qp = pick(qps);
        Arena arena = Arena.ofShared();
        try {
            java.lang.foreign.MemorySegment memory = arena.allocate(256);
            try {
                qp.protectionDomain().register(memory, Access.LOCAL_WRITE).close();
                record.finding("memory of an arena the caller can close was registered without that arena");
            } catch (IllegalArgumentException expected) {
                // refused, as it must be
            }
            MemoryRegion region = qp.protectionDomain().register(arena, memory, Access.LOCAL_WRITE);
            RecvWorkRequest wr = recvs.get(0).sge(region, 0, 64);
            arena.close();
            qp.postRecv(recvs, 1 + random.nextInt(recvs.capacity()));
            wr.numSge(0);
            throw new AssertionError("a receive into freed memory was posted");
        } finally {
            if (arena.scope().isAlive()) {
                arena.close(); // closes the region first
            }
        }
    }

    private void modifyQueuePair() {
        QueuePair qp = pick(qps);
        switch (random.nextInt(5)) {
            case 0 -> {
                if (qp.config().type() == QpType.UD) {
                    qp.readyForDatagrams(0x11111111);
                } else {
                    QueuePair.connectLoopback(qp, qp);
                }
            }
            case 1 -> qp.modifyToError();
            case 2 -> qp.reset();
            case 3 -> qp.modifyToInit(Access.bits(access(random)));
            default -> qp.state();
        }
    }

    private void writeSend() {
        SendWorkRequest wr = sends.get(random.nextInt(sends.capacity()));
        WrOpcode[] opcodes = WrOpcode.values();
        wr.wrId(random.nextLong()).opcode(opcodes[random.nextInt(opcodes.length)]).flags(random.nextInt(16));
        writeEntries(wr);
        MemoryRegion target = regions.isEmpty() ? null : pick(regions);
        long remote = target == null || random.nextInt(8) == 0 ? random.nextLong() : target.segment().address();
        int rkey = target == null || random.nextInt(8) == 0 ? random.nextInt() : target.rkey();
        switch (random.nextInt(4)) {
            case 0 -> wr.remote(remote, rkey);
            case 1 -> wr.atomic(random.nextBoolean() ? remote & ~7L : remote, rkey, random.nextLong(), random.nextLong());
            case 2 -> wr.ud(pick(ahs), random.nextInt(1 << 24), 0x11111111);
            default -> wr.immediateData(random.nextInt());
        }
    }

    private void writeReceive() {
        writeEntries(recvs.get(random.nextInt(recvs.capacity())).wrId(random.nextLong()));
    }

    /** Random entries, from any region (open or not) at random offsets and lengths, then a random count. */
    private void writeEntries(WorkRequest<?> wr) {
        int entries = random.nextInt(4);
        for (int i = 0; i < entries; i++) {
            MemoryRegion region = random.nextInt(5) == 0 ? pick(regions) : pickOpen(regions);
            long offset = random.nextInt(10) == 0 ? random.nextLong() : random.nextLong(region.length());
            int length = random.nextInt(10) == 0 ? random.nextInt() : random.nextInt(1 + (int) Math.min(512, region.length()));
            if (random.nextBoolean()) {
                wr.sge(i, region, offset, length);
            } else {
                wr.sge(i, region.sge(offset, length));
            }
        }
        wr.numSge(random.nextInt(10) == 0 ? random.nextInt(5) - 1 : random.nextInt(3));
    }

    private void postReceive() {
        int count = random.nextInt(recvs.capacity() + 2);
        if (!srqs.isEmpty() && random.nextInt(3) == 0) {
            pick(srqs).postRecv(recvs, count);
        } else {
            pickMostlyOpen(qps).postRecv(recvs, count);
        }
    }

    /** Another thread closes a random object (a queue pair, its CQ, a region, a PD) while this one posts and polls. */
    private void closeConcurrently() {
        QueuePair qp = pick(qps);
        List<VerbsResource> candidates = new ArrayList<>(List.of(qp, qp.config().sendCq(), qp.protectionDomain()));
        if (!regions.isEmpty()) {
            candidates.add(pick(regions));
        }
        if (!ahs.isEmpty()) {
            candidates.add(pick(ahs));
        }
        VerbsResource victim = candidates.get(random.nextInt(candidates.size()));
        long delayNanos = random.nextLong(2_000_000);
        Thread closer = Thread.ofPlatform().start(() -> {
            long until = System.nanoTime() + delayNanos;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            run(-1, "close on another thread", victim::close);
        });
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (closer.isAlive() && System.nanoTime() < deadline) {
            run(-1, "post while closing", () -> qp.postSend(sends, 1 + random.nextInt(sends.capacity())));
            run(-1, "poll while closing", () -> qp.config().sendCq().poll(wcs));
        }
        String late = joinWithin30s(closer);
        if (late != null) {
            record.finding("a close from another thread: " + late + ": " + victim);
        }
    }

    /**
     * Writes entry 1 of a request from a fresh region while {@code num_sge} is 1, closes the region, posts (which
     * checks entry 0 only), raises {@code num_sge} to 2 and posts again: the second post must refuse the entry.
     */
    private void raiseNumSgeAfterClose() {
        QueuePair qp = pickOpen(qps);
        MemoryRegion open = pickOpen(regions.stream().filter(r -> r.protectionDomain() == qp.protectionDomain()).toList());
        MemoryRegion fresh = qp.protectionDomain().allocateAndRegister(4096, Access.LOCAL_WRITE);
        SendWorkRequest wr = sends.get(0).opcode(WrOpcode.SEND).flags(random.nextBoolean() ? SendFlags.INLINE : 0)
                .sge(0, open, 0, 8).sge(1, fresh, 0, 8).numSge(1);
        fresh.close();
        try {
            run(-1, "post with the closed entry uncounted", () -> qp.postSend(sends, 1));
            wr.numSge(2);
            qp.postSend(sends, 1);
            record.finding("an entry of a closed region was posted after num_sge was raised to include it: " + fresh);
        } finally {
            wr.numSge(0);
        }
    }

    /**
     * Binds {@link #sends} to this thread with a post, then lets another thread call its setters while this one
     * posts: every setter there must be refused ({@link WrongThreadException}) and change nothing.
     */
    private void settersFromAnotherThread() {
        QueuePair qp = pickOpen(qps);
        run(-1, "post to own the chain", () -> qp.postSend(sends, 1));
        long end = System.nanoTime() + random.nextLong(1_000_000, 3_000_000);
        java.util.concurrent.atomic.AtomicInteger accepted = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<Throwable> other = new java.util.concurrent.atomic.AtomicReference<>();
        long seed = random.nextLong();
        Thread setter = Thread.ofPlatform().start(() -> {
            SplittableRandom mine = new SplittableRandom(seed);
            while (System.nanoTime() < end) {
                SendWorkRequest wr = sends.get(mine.nextInt(sends.capacity()));
                try {
                    switch (mine.nextInt(6)) {
                        case 0 -> wr.remote(mine.nextLong(), mine.nextInt());
                        case 1 -> wr.numSge(2);
                        case 2 -> wr.flags(SendFlags.INLINE);
                        case 3 -> wr.opcode(WrOpcode.ATOMIC_FETCH_AND_ADD);
                        case 4 -> wr.wrId(mine.nextLong());
                        default -> wr.sge(0, regions.isEmpty() ? null : regions.getFirst(), 0, 8);
                    }
                    accepted.incrementAndGet();
                } catch (WrongThreadException refused) {
                    // as documented
                } catch (Throwable e) {
                    other.set(e);
                    return;
                }
            }
        });
        while (setter.isAlive()) {
            run(-1, "post while another thread sets", () -> qp.postSend(sends, 1 + random.nextInt(sends.capacity())));
        }
        if (accepted.get() > 0) {
            record.finding(accepted.get() + " setters from another thread were accepted on a chain this thread posts");
        }
        if (other.get() != null && !(other.get() instanceof NullPointerException)) { // no region to name: null
            record.finding("a setter on another thread threw " + other.get());
        }
    }

    /**
     * A queue pair on a completion queue with a channel; a reader thread takes the channel's events (and re-arms)
     * while this thread makes completions and closes the completion queue at a random moment, then the channel.
     * The reader may hold an event the close's {@code ibv_destroy_cq} waits for: everything must end within 30 s.
     */
    private void closeCqUnderAReader() {
        ProtectionDomain pd = pickOpen(pds);
        Context ctx = pd.context();
        CompletionChannel channel = ctx.createCompletionChannel();
        try {
            CompletionQueue cq = ctx.createCompletionQueue(32, channel);
            QueuePair qp = pd.createQueuePair(QpConfig.builder(cq).capabilities(QpCapabilities.of(8, 8)).build());
            MemoryRegion mr = pd.allocateAndRegister(4096, Access.LOCAL_WRITE);
            QueuePair.connectLoopback(qp, qp);
            Thread reader = Thread.ofPlatform().start(() -> run(-1, "channel reader", () -> {
                while (true) {
                    CompletionQueue signalled = channel.awaitEvent(Duration.ofMillis(5));
                    if (signalled != null) {
                        signalled.requestNotification(false);
                    }
                }
            }));
            cq.requestNotification(false);
            try (RecvChain r = RecvChain.allocate(1, 1); SendChain s = SendChain.allocate(1, 1);
                    CompletionArray done = CompletionArray.allocate(8)) {
                r.get(0).sge(mr, 0, 64);
                s.get(0).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(mr, 64, 8);
                int rounds = random.nextInt(6);
                for (int i = 0; i < rounds; i++) {
                    qp.postRecv(r, 1);
                    qp.postSend(s, 1);
                    cq.poll(done);
                }
                cq.close();
                channel.close();
            }
            String late = joinWithin30s(reader);
            if (late != null) {
                record.finding("a channel reader, after its completion queue's and channel's close: " + late);
            }
            mr.close();
        } finally {
            channel.close();
        }
    }

    /** A completion kept from an array that was dropped, with the id its poll read: it must read the same later. */
    private record KeptCompletion(WorkCompletion completion, long wrId) {
    }

    private final List<KeptCompletion> kept = new ArrayList<>();

    /**
     * Polls into a new array that is then dropped without {@code close()} (its Javadoc allows it), keeps one of its
     * completions, and reads every kept completion again: each must still read what its poll wrote, however many
     * collections freed the dropped arrays' automatic arenas meanwhile.
     */
    private void keepACompletionOfADroppedArray() {
        CompletionArray dropped = CompletionArray.allocate(1 + random.nextInt(4));
        if (pickOpen(cqs).poll(dropped) > 0) {
            WorkCompletion completion = dropped.get(0);
            kept.add(new KeptCompletion(completion, completion.wrId()));
            if (kept.size() > 16) {
                kept.removeFirst();
            }
        }
        if (random.nextInt(20) == 0) {
            System.gc(); // the dropped arrays' memory is freed now, unless a kept completion holds it
        }
        for (KeptCompletion k : kept) {
            if (k.completion().wrId() != k.wrId()) {
                record.finding("a completion kept from a dropped array read " + k.completion().wrId() + " where its poll"
                        + " read " + k.wrId());
            }
        }
    }

    /** A read-only view (a handle, or {@code asReadOnly()} memory) registered with a write access: refused, or a finding. */
    private void registerReadOnly() {
        ProtectionDomain pd = pickOpen(pds);
        Access write = switch (random.nextInt(3)) {
            case 0 -> Access.LOCAL_WRITE;
            case 1 -> Access.REMOTE_WRITE;
            default -> Access.REMOTE_ATOMIC;
        };
        MemoryRegion accepted;
        if (random.nextBoolean()) {
            java.lang.foreign.MemorySegment handle = switch (random.nextInt(3)) {
                case 0 -> pd.handle();
                case 1 -> pickOpen(cqs).handle();
                default -> pickOpen(qps).handle();
            };
            accepted = pd.register(handle, write);
        } else {
            Arena arena = Arena.ofShared();
            callerArenas.add(arena);
            java.lang.foreign.MemorySegment memory = arena.allocate(4096, 4096).asReadOnly();
            accepted = random.nextBoolean() ? pd.register(arena, memory, write) : pd.register(memory, write);
        }
        accepted.close();
        record.finding("a read-only segment was registered with " + write + ": " + accepted);
    }

    /**
     * A platform or virtual thread waits (ten minutes) on a new channel's event, or on its queue's completions, and
     * this thread closes the queue or the channel at a random moment, maybe before the waiter parks: the waiter
     * must end within 10 s, with the closed-resource exception.
     */
    private void closeUnderAParkedWaiter() {
        Context ctx = pickOpen(pds).context();
        CompletionChannel channel = ctx.createCompletionChannel();
        try {
            CompletionQueue cq = ctx.createCompletionQueue(4, channel);
            boolean onQueue = random.nextBoolean();
            Thread.Builder kind = random.nextBoolean() ? Thread.ofPlatform() : Thread.ofVirtual();
            Thread waiter = kind.start(() -> run(-1, "parked waiter", () -> {
                try (CompletionArray completions = CompletionArray.allocate(2)) {
                    Object outcome = onQueue ? cq.awaitCompletions(completions, Duration.ofMinutes(10))
                            : channel.awaitEvent(Duration.ofMinutes(10));
                    record.finding("a wait on a closed " + (onQueue ? "queue" : "channel") + " returned " + outcome
                            + " instead of throwing");
                }
            }));
            int delayMillis = random.nextInt(30);
            if (delayMillis > 0) {
                try {
                    Thread.sleep(delayMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (random.nextBoolean()) {
                cq.close();
            }
            channel.close();
            try {
                waiter.join(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (waiter.isAlive()) {
                waiter.interrupt();
                record.finding("a thread waiting on " + (onQueue ? "a queue's completions" : "a channel's event")
                        + " was still parked 10 s after the close");
            }
        } finally {
            channel.close();
        }
    }

    /** Writes a word of an object's handle: refused ({@link IllegalArgumentException}: read-only), or a finding. */
    private void writeThroughAHandle() {
        java.lang.foreign.MemorySegment handle = switch (random.nextInt(4)) {
            case 0 -> pickMostlyOpen(contexts).handle();
            case 1 -> pickMostlyOpen(pds).handle();
            case 2 -> pickMostlyOpen(cqs).handle();
            default -> pickMostlyOpen(qps).handle();
        };
        handle.set(java.lang.foreign.ValueLayout.JAVA_LONG, 8L * random.nextInt((int) Math.max(1, handle.byteSize() / 8)),
                random.nextLong());
        record.finding("a write through a handle was accepted: " + handle);
    }

    /** Closes the contexts (and so every object), then frees the caller memory: regions first, as the API asks. */
    private void closeEverything() {
        for (Context c : contexts) {
            c.close();
        }
        for (Arena arena : callerArenas) {
            arena.close();
        }
        sends.close();
        recvs.close();
        wcs.close();
    }

    /** {@link BoundedJoin#join} for 30 s; an interrupt ends the wait and is kept. */
    private static String joinWithin30s(Thread thread) {
        try {
            return BoundedJoin.join(thread, Duration.ofSeconds(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return thread.isAlive() ? thread.getName() + " was still running when the wait was interrupted" : null;
        }
    }

}
