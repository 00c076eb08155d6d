package org.panamaverbs.bench.jmh;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.panamaverbs.bench.stub.StubProvider;
import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.CompletionChannel;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.Rdma;
import org.panamaverbs.verbs.VerbsResource;

/**
 * What a connection's verbs objects cost to make and to close, natively, on the stand-in provider (as
 * {@link NativeDataPath}, under {@code bench/native-datapath}'s {@code LD_LIBRARY_PATH}): a protection domain, two
 * completion channels, a completion queue on each and an RC queue pair over both, the objects rdma-core's
 * {@code cmtime} and a server's accept make per connection; then closed, the queue pair first, as a connection's
 * teardown does. Three cases: never used by the data path and closed one by one (cmtime's connections); each queue
 * polled once, so that closing it needs a handshake of the JVM with every thread, closed one by one; polled, and
 * closed together with {@code VerbsResource.closeAll} (one handshake for all).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class ObjectLifecycle {

    /** The stand-in's device, opened once per trial. */
    @State(Scope.Thread)
    public static class Device {
        Context context;

        @Setup(Level.Trial)
        public void open() {
            context = Rdma.open(StubProvider.DEVICE);
        }

        @TearDown(Level.Trial)
        public void close() {
            context.close();
        }
    }

    /** An empty completion array for the polls. */
    @State(Scope.Thread)
    public static class Completions {
        CompletionArray array;

        @Setup(Level.Trial)
        public void allocate() {
            array = CompletionArray.allocate(4);
        }

        @TearDown(Level.Trial)
        public void close() {
            array.close();
        }
    }

    /** Makes the objects of one connection and closes each, queue pair first; returns the queue pair's number. */
    @Benchmark
    public int makeAndClose(Device device) {
        ConnectionObjects made = ConnectionObjects.make(device.context);
        made.closeEach();
        return made.qpNumber;
    }

    /** As {@link #makeAndClose}, each completion queue polled once before the closes. */
    @Benchmark
    public int makePollAndClose(Device device, Completions completions) {
        ConnectionObjects made = ConnectionObjects.makeAndPoll(device.context, completions.array);
        made.closeEach();
        return made.qpNumber;
    }

    /** As {@link #makePollAndClose}, the objects closed together. */
    @Benchmark
    public int makePollAndCloseAll(Device device, Completions completions) {
        ConnectionObjects made = ConnectionObjects.makeAndPoll(device.context, completions.array);
        VerbsResource.closeAll(made.qp, made.sendCq, made.recvCq, made.sendChannel, made.recvChannel, made.pd);
        return made.qpNumber;
    }

    /** The objects of one connection. */
    private record ConnectionObjects(ProtectionDomain pd, CompletionChannel sendChannel, CompletionChannel recvChannel,
            CompletionQueue sendCq, CompletionQueue recvCq, QueuePair qp, int qpNumber) {

        static ConnectionObjects make(Context context) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionChannel sendChannel = context.createCompletionChannel();
            CompletionChannel recvChannel = context.createCompletionChannel();
            CompletionQueue sendCq = context.createCompletionQueue(16, sendChannel);
            CompletionQueue recvCq = context.createCompletionQueue(16, recvChannel);
            QueuePair qp = pd.createQueuePair(QpConfig.builder(sendCq, recvCq)
                    .capabilities(QpCapabilities.of(16, 16)).build());
            return new ConnectionObjects(pd, sendChannel, recvChannel, sendCq, recvCq, qp, qp.qpNumber());
        }

        /** {@link #make}, then an (empty) poll of each queue: the data path reached them, so closing them hand-shakes. */
        static ConnectionObjects makeAndPoll(Context context, CompletionArray completions) {
            ConnectionObjects made = make(context);
            made.sendCq.poll(completions);
            made.recvCq.poll(completions);
            return made;
        }

        void closeEach() {
            qp.close();
            sendCq.close();
            recvCq.close();
            sendChannel.close();
            recvChannel.close();
            pd.close();
        }
    }
}
