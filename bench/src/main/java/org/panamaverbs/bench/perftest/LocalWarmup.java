package org.panamaverbs.bench.perftest;

import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.Rdma;

/**
 * The latency tools' local warm-up: their loop run between two queue pairs of this process before the peer is
 * contacted, so that the JIT has compiled it when the measured run starts.
 */
final class LocalWarmup {
    private LocalWarmup() {
    }

    /** Runs {@code loop} for both sides at once: the server's on a thread of its own, the client's on this one. */
    static void bothSides(PingPongSide client, PingPongSide server, java.util.function.Consumer<PingPongSide> loop) {
        RuntimeException[] failed = new RuntimeException[1];
        Thread serverThread = Thread.ofPlatform().name("warm-up server side").start(() -> {
            try {
                loop.accept(server);
            } catch (RuntimeException e) {
                failed[0] = e;
            }
        });
        loop.accept(client);
        try {
            if (!serverThread.join(client.timeout())) {
                throw new PerftestException("the local warm-up's server side did not finish within "
                        + client.timeout().toSeconds() + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PerftestException("interrupted during the local warm-up");
        }
        if (failed[0] != null) {
            throw failed[0];
        }
    }

    /**
     * The local warm-up: two RC queue pairs of this process on the test's device, connected to each other, each
     * with a send and a receive queue and a buffer of two slots, run through {@link Latency#warmUp} with the smallest
     * size. The peer is not involved (a C peer would not take part in a warm-up); everything is freed after.
     */
    static void run(Latency tool, long size, int iterations, int rxDepth) {
        PerftestOptions o = tool.o;
        long slot = PerftestSession.align(Math.max(size, PerftestSession.CYCLE_BUFFER), PerftestSession.CACHE_LINE);
        try (Context context = o.device == null ? Rdma.openFirst() : Rdma.open(o.device)) {
            if (tool.atomicType() >= 0) { // refused here, before the warm-up's registration meets the gate
                AtomicTools.requireAtomics(context);
            }
            ProtectionDomain pd = context.allocateProtectionDomain();
            QueuePair[] qps = new QueuePair[2];
            CompletionQueue[] cqs = new CompletionQueue[2];
            CompletionQueue[] recvCqs = new CompletionQueue[2];
            MemoryRegion[] buffers = new MemoryRegion[2];
            for (int i = 0; i < 2; i++) {
                cqs[i] = context.createCompletionQueue(1, o.events ? context.createCompletionChannel() : null);
                recvCqs[i] = context.createCompletionQueue(rxDepth, o.events ? context.createCompletionChannel() : null);
                qps[i] = pd.createQueuePair(QpConfig.builder(cqs[i], recvCqs[i])
                        .capabilities(QpCapabilities.of(1, rxDepth).withMaxInlineData(o.inlineSize()))
                        .port(o.ibPort).gidIndex(o.gidIndex).build());
                buffers[i] = pd.allocateAndRegister(slot * 2, tool.atomicType() >= 0
                        ? new Access[] {Access.LOCAL_WRITE, Access.REMOTE_ATOMIC}
                        : new Access[] {Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ});
            }
            QueuePair.connectLoopback(qps[0], qps[1]);
            PingPongSide[] sides = new PingPongSide[2];
            for (int i = 0; i < 2; i++) {
                MemoryRegion theirs = buffers[1 - i];
                sides[i] = new PingPongSide(qps[i], cqs[i], recvCqs[i], buffers[i], slot, theirs.address() + slot,
                        theirs.rkey(), i == 0, o.timeout(), o.events, wr -> { }, 0, null, o.receivesImmediates());
            }
            tool.warmUp(sides[0], sides[1], (int) size, iterations);
        }
    }
}
