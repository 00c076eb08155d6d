package org.panamaverbs.bench;

import static org.panamaverbs.bench.CmScale.*;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QpType;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.VerbsException;
import org.panamaverbs.verbs.WcStatus;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.WrOpcode;

/** What both sides share: the verbs objects of all connections, the failure record, the loop's pacing. */
abstract class CmScaleSide {
    final CmScaleOptions options;
    final String name;
    final int capacity;
    final CmId[] ids;
    final byte[] states;
    final Map<CmId, Integer> slots = new IdentityHashMap<>();
    final ArrayDeque<Integer> toClose = new ArrayDeque<>();
    final RecvChain recvs = RecvChain.allocate(1, 1);
    final SendChain sends = SendChain.allocate(1, 1);
    final CompletionArray wcs = CompletionArray.allocate(32);
    final Map<String, Integer> failureKinds = new LinkedHashMap<>();
    final long start = System.nanoTime();
    final long deadline;
    ProtectionDomain pd;
    CompletionQueue[] cqs;
    int perCq;
    MemoryRegion region;
    int failures;
    int closed;
    int flushed;
    private int idleRounds;

    CmScaleSide(CmScaleOptions options, String name, int capacity) {
        this.options = options;
        this.name = name;
        this.capacity = capacity;
        this.ids = new CmId[capacity];
        this.states = new byte[capacity];
        this.deadline = start + Duration.ofSeconds(options.boundSeconds).toNanos();
    }

    /** The PD, the completion queues and the one region of every slot, on the first connection's device. */
    void prepareResources(Context context, long regionSize) {
        pd = context.allocateProtectionDomain();
        perCq = Math.max(1, Math.min(CONNECTIONS_PER_CQ, (context.attributes().maxCqe() - 16) / 2));
        int count = (capacity + perCq - 1) / perCq;
        cqs = new CompletionQueue[count];
        for (int i = 0; i < count; i++) {
            int connections = Math.min(perCq, capacity - i * perCq);
            cqs[i] = context.createCompletionQueue(2 * connections + 16); // a receive and a send each
        }
        region = pd.allocateAndRegister(regionSize, Access.LOCAL_WRITE);
        say(name + ": " + count + " completion queue(s) of up to " + perCq + " connections each; one region of "
                + regionSize + " bytes");
    }

    /** An RC queue pair of depth 2 on the slot's completion queue, with the slot's receive posted. */
    void createQueuePair(CmId id, int slot) {
        CompletionQueue cq = cqs[slot / perCq];
        id.createQueuePair(pd, QpConfig.builder(cq).type(QpType.RC).capabilities(QpCapabilities.of(2, 1)).build());
        postRecv(id, slot);
    }

    void postRecv(CmId id, int slot) {
        recvs.get(0).wrId(2L * slot).sge(region, (long) slot * SLOT, SLOT);
        id.queuePair().postRecvOrThrow(recvs, 1);
    }

    void postSend(CmId id, int slot, long offset, int length) {
        sends.get(0).wrId(2L * slot + 1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(region, offset, length);
        id.queuePair().postSendOrThrow(sends, 1);
    }

    /** Counts a failure, printing the first few in full; {@code kind} groups them in the summary. */
    void fail(String kind, String detail) {
        failures++;
        failureKinds.merge(kind, 1, Integer::sum);
        if (failures <= REASONS_SHOWN) {
            say(name + ": failure " + failures + ": " + kind + (detail == null ? "" : " (" + detail + ")"));
        }
    }

    String failureSummary() {
        return failureKinds.isEmpty() ? "none" : failureKinds.toString();
    }

    /** Polls every completion queue once; the side handles each completion. */
    int pollCompletions() {
        if (cqs == null) {
            return 0;
        }
        int total = 0;
        for (CompletionQueue cq : cqs) {
            int n = cq.poll(wcs);
            if (n < 0) {
                throw new VerbsException("ibv_poll_cq", -n, cq.toString());
            }
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs.get(i);
                int slot = (int) (wc.wrId() >>> 1);
                boolean send = (wc.wrId() & 1) != 0;
                if (wc.isSuccess()) {
                    completed(slot, send, wc.byteLength());
                } else if (wc.status() == WcStatus.WR_FLUSH_ERR && !isLive(slot)) {
                    flushed++; // the connection is being torn down: its posted receive comes back flushed
                } else {
                    fail((send ? "send " : "receive ") + wc.status(), "connection " + slot + ", vendor error "
                            + wc.vendorError());
                }
            }
            total += n;
        }
        return total;
    }

    abstract void completed(int slot, boolean send, int length);

    abstract boolean isLive(int slot);

    /** Closes ids whose connection ended, for at most about 5 ms, so that events are not kept waiting. */
    int closeSome() {
        int done = 0;
        long until = System.nanoTime() + 5_000_000;
        while (!toClose.isEmpty() && (done == 0 || System.nanoTime() - until < 0)) {
            int slot = toClose.poll();
            CmId id = ids[slot];
            try {
                id.close();
            } catch (RuntimeException e) {
                fail("close " + e.getClass().getSimpleName(), e.getMessage());
            }
            slots.remove(id);
            ids[slot] = null;
            closed++;
            done++;
        }
        return done;
    }

    void enqueueClose(int slot) {
        toClose.add(slot);
    }

    /** Parks for longer the longer the loop has been idle: 50 us up to 1 ms. */
    void idle(int work) {
        if (work > 0) {
            idleRounds = 0;
            return;
        }
        idleRounds = Math.min(idleRounds + 1, 64);
        LockSupport.parkNanos(idleRounds < 16 ? 50_000 : 1_000_000);
    }

    boolean pastDeadline() {
        return System.nanoTime() - deadline > 0;
    }

    double seconds(long fromNanos, long toNanos) {
        return (toNanos - fromNanos) / 1e9;
    }

    /** The side's event loop on {@code channel}, until it is done. */
    abstract void loop(CmEventChannel channel);

    /** Runs {@link #loop} on a polled channel of its own, then frees every verbs object; a failure is recorded. */
    final void runOnOwnChannel() {
        try {
            try (CmEventChannel channel = CmEventChannel.createPolled()) {
                loop(channel);
            } finally {
                closeResources();
            }
        } catch (RuntimeException e) {
            fail("fatal " + e.getClass().getSimpleName(), e.getMessage());
            e.printStackTrace();
        }
    }

    void closeResources() {
        recvs.close();
        sends.close();
        wcs.close();
        List<AutoCloseable> all = new ArrayList<>();
        all.add(region);
        if (cqs != null) {
            all.addAll(List.of(cqs));
        }
        all.add(pd);
        for (AutoCloseable resource : all) {
            try {
                if (resource != null) {
                    resource.close();
                }
            } catch (Exception e) {
                fail("closing " + resource, e.toString());
            }
        }
    }
}
