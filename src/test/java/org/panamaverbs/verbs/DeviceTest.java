package org.panamaverbs.verbs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * Base of the device tests: they run on a real RDMA device, the one named by {@code RDMA_TEST_DEVICE}
 * or else the first one (rxe0 in the project's guest, see scripts/rdma-guest). Tagged {@code rdma-device},
 * so the default build leaves them out and {@code -Pdevice-tests} runs only them.
 */
@Tag("rdma-device")
abstract class DeviceTest {
    /** How long a test waits for completions; generous, because the guest runs under TCG. */
    static final Duration COMPLETION_TIMEOUT = Duration.ofSeconds(60);

    static Context context;
    static ProtectionDomain pd;

    @BeforeAll
    static void openDevice() {
        context = DeviceUnderTest.open();
        pd = context.allocateProtectionDomain();
    }

    @AfterAll
    static void closeDevice() {
        if (context != null) {
            context.close();
        }
    }

    /** One completion, copied out of the flyweight so tests can keep it. */
    record Done(long wrId, WcStatus status, WcOpcode opcode, int byteLength, boolean hasImm, int imm, int qpNumber) {
        static Done of(WorkCompletion wc) {
            return new Done(wc.wrId(), wc.status(), wc.opcode(), wc.byteLength(), wc.hasImmediateData(),
                    wc.immediateData(), wc.qpNumber());
        }
    }

    /** Skips events left over from earlier tests (e.g. a port event) until one of {@code type} arrives. */
    static AsyncEvent awaitEvent(Context ctx, AsyncEventType type, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            AsyncEvent event = ctx.awaitAsyncEvent(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            if (event != null && event.type() == type) {
                return event;
            }
        }
        throw new AssertionError("no " + type + " event within " + timeout);
    }

    /** Polls {@code cq} until {@code expected} completions arrived; fails on timeout or a poll error. */
    static List<Done> await(CompletionQueue cq, int expected) {
        List<Done> done = new ArrayList<>();
        long deadline = System.nanoTime() + COMPLETION_TIMEOUT.toNanos();
        try (CompletionArray wcs = CompletionArray.allocate(16)) {
            while (done.size() < expected) {
                int n = cq.poll(wcs, Math.min(16, expected - done.size()));
                if (n < 0) {
                    throw new AssertionError("ibv_poll_cq returned " + n);
                }
                for (int i = 0; i < n; i++) {
                    done.add(Done.of(wcs.get(i)));
                }
                if (n == 0) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("only " + done.size() + " of " + expected + " completions within "
                                + COMPLETION_TIMEOUT + ": " + done);
                    }
                    Thread.onSpinWait();
                }
            }
        }
        return done;
    }

    /** Fills {@code length} bytes at {@code offset} with a pattern that depends on {@code seed} and the position. */
    static void fill(MemoryRegion mr, long offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            mr.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, offset + i, (byte) (seed * 31 + i * 7 + (i >>> 8)));
        }
    }

    static byte[] bytes(MemoryRegion mr, long offset, int length) {
        return mr.segment().asSlice(offset, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    /** Two RC queue pairs on the test device, connected to each other, each with its own CQ and buffer. */
    static final class Loopback implements AutoCloseable {
        final CompletionQueue cqA;
        final CompletionQueue cqB;
        final QueuePair a;
        final QueuePair b;
        final MemoryRegion mrA;
        final MemoryRegion mrB;
        final SendChain sends;
        final RecvChain recvs;

        Loopback(int bufferSize, int maxSge) {
            this(bufferSize, maxSge, QpConnectOptions.defaults());
        }

        Loopback(int bufferSize, int maxSge, QpConnectOptions options) {
            this(context, pd, bufferSize, maxSge, options);
        }

        /** On {@code ctx} and its {@code pd} rather than the test device's shared ones. */
        Loopback(Context ctx, ProtectionDomain pd, int bufferSize, int maxSge, QpConnectOptions options) {
            cqA = ctx.createCompletionQueue(64);
            cqB = ctx.createCompletionQueue(64);
            a = pd.createQueuePair(QpConfig.builder(cqA)
                    .capabilities(QpCapabilities.of(32, 32).withMaxSendSge(maxSge).withMaxRecvSge(maxSge)).build());
            b = pd.createQueuePair(QpConfig.builder(cqB)
                    .capabilities(QpCapabilities.of(32, 32).withMaxSendSge(maxSge).withMaxRecvSge(maxSge)).build());
            QueuePair.connectLoopback(a, b, options);
            Access[] access = ctx.attributes().atomicCapability() == AtomicCapability.NONE
                    ? new Access[] {Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ}
                    : new Access[] {Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC};
            mrA = pd.allocateAndRegister(bufferSize, access);
            mrB = pd.allocateAndRegister(bufferSize, access);
            sends = SendChain.allocate(16, maxSge);
            recvs = RecvChain.allocate(16, maxSge);
        }

        @Override
        public void close() {
            sends.close();
            recvs.close();
            a.close();
            b.close();
            mrA.close();
            mrB.close();
            cqA.close();
            cqB.close();
        }
    }
}
