package org.panamaverbs.bench.jmh;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.panamaverbs.bench.LoopbackRig;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.WrOpcode;

/**
 * The data path on a real device (RDMA_TEST_DEVICE or the first one): {@code ibv_poll_cq} on an empty
 * queue, {@code ibv_post_send} of a 64-byte RDMA WRITE polled to completion, and {@code ibv_post_recv}
 * plus a SEND polled on both sides. Run with {@code -prof gc}: gc.alloc.rate.norm must be 0 B/op for all
 * three ({@link HarnessBaseline} shows what the harness itself adds; {@link CallerThreadAllocation} counts the
 * benchmark thread alone). The subclasses link the provider calls with and without {@code Linker.Option.critical}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 8, time = 1)
@Measurement(iterations = 5, time = 2)
public abstract class DataPathBenchmark {
    private static final int MESSAGE = 64;

    private LoopbackRig rig;
    private SendChain write;
    private SendChain send;
    private RecvChain recv;
    private CompletionArray completions;
    private long writeId;

    @Setup(Level.Trial)
    public void open() {
        rig = new LoopbackRig(System.getenv("RDMA_TEST_DEVICE"), 1, -1, null, 4096, 64, 64, 256);
        completions = CompletionArray.allocate(16);
        write = SendChain.allocate(1, 1);
        write.get(0).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(rig.mrA, 0, MESSAGE)
                .remote(rig.mrB.address(), rig.mrB.rkey());
        send = SendChain.allocate(1, 1);
        send.get(0).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(rig.mrA, 1024, MESSAGE);
        recv = RecvChain.allocate(1, 1);
        recv.get(0).sge(rig.mrB, 1024, MESSAGE);
    }

    @TearDown(Level.Trial)
    public void close() {
        completions.close();
        write.close();
        send.close();
        recv.close();
        rig.close();
    }

    /** {@code ibv_poll_cq} on an empty completion queue: the cost of the call itself. */
    @Benchmark
    public int pollEmptyCq(CallerThreadAllocation allocation) {
        allocation.operations++;
        return rig.cqA.poll(completions);
    }

    /** {@code ibv_post_send} of one signaled RDMA WRITE, then {@code ibv_poll_cq} until it completes. */
    @Benchmark
    public long postSendWriteAndPoll(CallerThreadAllocation allocation) {
        allocation.operations++;
        write.get(0).wrId(++writeId);
        check(rig.a.postSend(write, 1));
        return awaitOne(rig.cqA);
    }

    /** {@code ibv_post_recv} on one side, {@code ibv_post_send} of a SEND on the other, both polled. */
    @Benchmark
    public long postRecvSendAndPoll(CallerThreadAllocation allocation) {
        allocation.operations++;
        check(rig.b.postRecv(recv, 1));
        check(rig.a.postSend(send, 1));
        return awaitOne(rig.cqA) + awaitOne(rig.cqB);
    }

    private long awaitOne(CompletionQueue cq) {
        int n;
        do {
            n = cq.poll(completions, 1);
        } while (n == 0);
        if (n < 0) {
            throw new IllegalStateException("ibv_poll_cq failed: " + n);
        }
        WorkCompletion wc = completions.get(0);
        if (!wc.isSuccess()) {
            throw new IllegalStateException("completion failed: " + wc);
        }
        return wc.wrId();
    }

    private static void check(int rc) {
        if (rc != 0) {
            throw new IllegalStateException("post failed with errno " + rc);
        }
    }
}
