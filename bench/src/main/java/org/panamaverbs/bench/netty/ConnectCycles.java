package org.panamaverbs.bench.netty;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.panamaverbs.cm.Connection;
import org.panamaverbs.cm.ConnectionOptions;
import org.panamaverbs.cm.RdmaServer;
import org.panamaverbs.netty.RdmaChannelOption;
import org.panamaverbs.netty.RdmaIoHandler;
import org.panamaverbs.netty.RdmaServerSocketChannel;
import org.panamaverbs.netty.RdmaSocketChannel;
import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.VerbsException;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.WrOpcode;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Sequential connect, echo, close cycles: the library's {@link Connection#connect} against an {@link RdmaServer},
 * and the Netty transport's {@link RdmaSocketChannel} against a {@link RdmaServerSocketChannel} echo server, so
 * that the two connection lifecycles can be compared (bench/compare-connect-cycles runs them alternating; results in
 * docs/benchmarks/connect-cycles.md).
 *
 * <pre>
 * ConnectCycles server-library|server-netty ADDRESS PORT [--size BYTES]
 * ConnectCycles client-library|client-netty ADDRESS PORT [--cycles N] [--warmup W] [--size BYTES]
 * </pre>
 *
 * A server prints {@code ready} once it listens and serves until it is killed; it echoes what a connection sends
 * and closes the connection when the client has closed it. The library server is one thread: it accepts, waits for
 * the message, SENDs it back, waits for the client's disconnect and closes, then accepts the next request (a client
 * that connects meanwhile waits in the listen backlog); the Netty server is one event loop of {@link RdmaIoHandler}
 * for the listener and its children. A client runs W warm-up cycles and then N measured ones, one after the other on
 * one thread (the Netty client on one event loop); each cycle connects, sends SIZE bytes (a pattern that differs per
 * cycle), waits for their echo, compares it, and closes. A cycle's time runs from the start of the connect to the end
 * of the close: {@link Connection#close()} returning (it disconnects, waits for the disconnect to complete and frees
 * the connection's objects), or the Netty channel's close future completing (the transport frees the connection's
 * objects on its loop afterwards, once the last sends completed: that work lands in the next cycles' time and in
 * {@code total_ms}, not in this cycle's). Waits for completions in the library client and server poll the completion
 * queue and yield the CPU between empty polls (a busy-poll that does not yield would starve the peer on one vCPU);
 * the Netty loops block when idle (busy-poll 0).
 *
 * <p>The client prints one line: {@code RESULT impl=library|netty cycles=N warmup=W size=SIZE total_ms=T
 * per_cycle_ms_median=M p90=P min=.. max=.. connect_ms_median=.. echo_ms_median=.. close_ms_median=..
 * first_half_ms_median=.. second_half_ms_median=..}, where {@code total_ms} is the wall time of the N measured cycles
 * end to end, the phases' medians split the cycle (connect done, echo compared, close done), and the halves' medians
 * are those of the first and the last N/2 cycles (a JIT still compiling shows as a difference). It exits 1 if a cycle
 * fails.
 */
@Command(name = "connect-cycles", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Sequential connect, echo, close cycles over rdma_cm: the library (Connection/RdmaServer) or the"
                + " Netty transport (RdmaSocketChannel/RdmaServerSocketChannel).")
public final class ConnectCycles implements Callable<Integer> {
    /** Bounds every wait: under emulation a cold JVM's first connections take seconds, never minutes. */
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    @Parameters(index = "0", paramLabel = "MODE", description = "server-library, server-netty, client-library or client-netty")
    String mode;

    @Parameters(index = "1", paramLabel = "ADDRESS", description = "the server's RDMA device address")
    String address;

    @Parameters(index = "2", paramLabel = "PORT", description = "the rdma_cm (TCP port space) port")
    int port;

    @Option(names = {"-n", "--cycles"}, paramLabel = "N", description = "measured cycles (client; default ${DEFAULT-VALUE})")
    int cycles = 200;

    @Option(names = {"-w", "--warmup"}, paramLabel = "W", description = "warm-up cycles before them, not counted (client; default ${DEFAULT-VALUE})")
    int warmup = 20;

    @Option(names = {"-s", "--size"}, paramLabel = "BYTES", description = "bytes echoed per cycle (default ${DEFAULT-VALUE})")
    int size = 64;

    @Option(names = "--buffer", paramLabel = "BYTES", description = "Netty: each connection's send and receive buffer"
            + " (RdmaChannelOption.SEND_BUFFER_SIZE / RECEIVE_BUFFER_SIZE, client and server children; default: the"
            + " transport's)")
    int buffer;

    @Option(names = "--queue-depth", paramLabel = "N", description = "Netty: each connection's queue depth"
            + " (RdmaChannelOption.QUEUE_DEPTH, client and server children; default: the transport's)")
    int queueDepth;

    public static void main(String[] args) {
        CommandLine cli = new CommandLine(new ConnectCycles());
        cli.setExecutionExceptionHandler((e, failed, parsed) -> {
            System.err.println("connect-cycles: " + e);
            e.printStackTrace();
            return 1;
        });
        int rc = cli.execute(args);
        System.exit(rc); // the Netty loops and the library's pooled threads do not keep the JVM
    }

    @Override
    public Integer call() throws Exception {
        if (cycles < 1 || warmup < 0 || size < 1 || size > 4096) {
            throw new CommandLine.ParameterException(new CommandLine(this), "cycles >= 1, warmup >= 0, 1 <= size <= 4096");
        }
        InetSocketAddress server = new InetSocketAddress(address, port);
        switch (mode) {
            case "server-library" -> serveLibrary(server);
            case "server-netty" -> serveNetty(server);
            case "client-library" -> report("library", new LibraryClient(server));
            case "client-netty" -> {
                EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
                try {
                    report("netty", new NettyClient(group, server));
                } finally {
                    group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
                }
            }
            default -> throw new CommandLine.ParameterException(new CommandLine(this),
                    "MODE is server-library, server-netty, client-library or client-netty, not " + mode);
        }
        return 0;
    }

    // ------------------------------------------------------------------------------------------------ clients

    /** One cycle's three phases, in nanoseconds, written by {@link Cycler#cycle}. */
    private static final class Phases {
        long connect;
        long echo;
        long close;
    }

    private interface Cycler {
        /** Connects, echoes {@code payload}, compares, closes; fills {@code phases}. */
        void cycle(byte[] payload, Phases phases) throws Exception;
    }

    private void report(String impl, Cycler cycler) throws Exception {
        byte[] payload = new byte[size];
        Phases phases = new Phases();
        for (int i = 0; i < warmup; i++) {
            fill(payload, i);
            cycler.cycle(payload, phases);
        }
        long[] total = new long[cycles];
        long[] connect = new long[cycles];
        long[] echo = new long[cycles];
        long[] close = new long[cycles];
        long start = System.nanoTime();
        for (int i = 0; i < cycles; i++) {
            fill(payload, warmup + i);
            cycler.cycle(payload, phases);
            connect[i] = phases.connect;
            echo[i] = phases.echo;
            close[i] = phases.close;
            total[i] = phases.connect + phases.echo + phases.close;
        }
        long wall = System.nanoTime() - start;
        // the trend under a JIT that is still compiling: the first and the second half of the measured cycles
        double firstHalf = median(Arrays.copyOfRange(total, 0, Math.max(1, cycles / 2)));
        double secondHalf = median(Arrays.copyOfRange(total, cycles / 2, cycles));
        Arrays.sort(total);
        System.out.printf(Locale.ROOT, "RESULT impl=%s cycles=%d warmup=%d size=%d total_ms=%.1f per_cycle_ms_median=%.2f"
                        + " p90=%.2f min=%.2f max=%.2f connect_ms_median=%.2f echo_ms_median=%.2f close_ms_median=%.2f"
                        + " first_half_ms_median=%.2f second_half_ms_median=%.2f%n",
                impl, cycles, warmup, size, wall / 1e6, median(total), percentile(total, 90), total[0] / 1e6,
                total[cycles - 1] / 1e6, median(connect), median(echo), median(close), firstHalf, secondHalf);
    }

    private static void fill(byte[] payload, int cycle) {
        for (int j = 0; j < payload.length; j++) {
            payload[j] = (byte) (cycle * 31 + j);
        }
    }

    /** Median in milliseconds (the mean of the middle two for an even count). */
    private static double median(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return (n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0) / 1e6;
    }

    /** Nearest-rank percentile of sorted values, in milliseconds. */
    private static double percentile(long[] sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)] / 1e6;
    }

    /** {@link Connection#connect}: a connection with its own region (send half, receive half), SEND, RECV, close. */
    private final class LibraryClient implements Cycler {
        private final InetSocketAddress server;
        private final RecvChain recvs = RecvChain.allocate(1, 1);
        private final SendChain sends = SendChain.allocate(1, 1);
        private final CompletionArray completions = CompletionArray.allocate(2);
        private final ConnectionOptions options;
        private MemoryRegion region;

        LibraryClient(InetSocketAddress server) {
            this.server = server;
            // the receive is posted before the connection is made, as a library user must
            options = ConnectionOptions.builder().prepare(c -> {
                region = c.protectionDomain().allocateAndRegister(2L * size, Access.LOCAL_WRITE);
                recvs.get(0).wrId(1).sge(region, size, size);
                c.queuePair().postRecvOrThrow(recvs, 1);
            }).build();
        }

        @Override
        public void cycle(byte[] payload, Phases phases) {
            long t0 = System.nanoTime();
            long t1;
            long t2;
            try (Connection c = Connection.connect(server, options, TIMEOUT)) {
                t1 = System.nanoTime();
                MemorySegment buffer = region.segment();
                MemorySegment.copy(payload, 0, buffer, ValueLayout.JAVA_BYTE, 0, size);
                sends.get(0).wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(region, 0, size);
                c.queuePair().postSendOrThrow(sends, 1);
                boolean sent = false;
                boolean received = false;
                while (!sent || !received) {
                    int n = await(c.completionQueue(), completions);
                    for (int k = 0; k < n; k++) {
                        WorkCompletion wc = completions.get(k);
                        if (wc.wrId() == 2) {
                            sent = true;
                        } else if (wc.byteLength() != size) {
                            throw new IllegalStateException("echo of " + wc.byteLength() + " bytes, not " + size);
                        } else {
                            received = true;
                        }
                    }
                }
                byte[] echoed = buffer.asSlice(size, size).toArray(ValueLayout.JAVA_BYTE);
                if (!Arrays.equals(echoed, payload)) {
                    throw new IllegalStateException("the echo differs from what was sent");
                }
                t2 = System.nanoTime();
            }
            long t3 = System.nanoTime();
            phases.connect = t1 - t0;
            phases.echo = t2 - t1;
            phases.close = t3 - t2;
        }
    }

    /** Polls {@code cq} until it has completions, yielding between empty polls; fails on an error status. */
    private static int await(CompletionQueue cq, CompletionArray completions) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        int n;
        while ((n = cq.poll(completions)) == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no completion on " + cq + " within " + TIMEOUT);
            }
            Thread.yield(); // on one vCPU the peer needs this CPU to answer
        }
        if (n < 0) {
            throw new VerbsException("ibv_poll_cq", -n, cq.toString());
        }
        for (int k = 0; k < n; k++) {
            WorkCompletion wc = completions.get(k);
            if (!wc.isSuccess()) {
                throw new IllegalStateException("work request " + wc.wrId() + " failed: " + wc.status());
            }
        }
        return n;
    }

    /** {@code Bootstrap.connect} of an {@link RdmaSocketChannel}, writeAndFlush, the echo, {@code close().sync()}. */
    private final class NettyClient implements Cycler {
        private final Bootstrap bootstrap;
        private final InetSocketAddress server;

        NettyClient(EventLoopGroup group, InetSocketAddress server) {
            this.server = server;
            bootstrap = new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) TIMEOUT.toMillis());
            if (buffer > 0) {
                bootstrap.option(RdmaChannelOption.SEND_BUFFER_SIZE, buffer).option(RdmaChannelOption.RECEIVE_BUFFER_SIZE, buffer);
            }
            if (queueDepth > 0) {
                bootstrap.option(RdmaChannelOption.QUEUE_DEPTH, queueDepth);
            }
        }

        @Override
        public void cycle(byte[] payload, Phases phases) throws Exception {
            EchoClient echo = new EchoClient(size);
            long t0 = System.nanoTime();
            Channel channel = bootstrap.handler(echo).connect(server).sync().channel();
            long t1 = System.nanoTime();
            byte[] echoed;
            try {
                channel.writeAndFlush(Unpooled.wrappedBuffer(payload.clone()));
                echoed = echo.done.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                if (!Arrays.equals(echoed, payload)) {
                    throw new IllegalStateException("the echo differs from what was sent");
                }
            } finally {
                long t2 = System.nanoTime();
                channel.close().sync();
                long t3 = System.nanoTime();
                phases.connect = t1 - t0;
                phases.echo = t2 - t1;
                phases.close = t3 - t2;
            }
        }
    }

    /** Collects the echo; completes with it once {@code size} bytes arrived. */
    private static final class EchoClient extends ChannelInboundHandlerAdapter {
        final CompletableFuture<byte[]> done = new CompletableFuture<>();
        private final byte[] received;
        private int filled;

        EchoClient(int size) {
            received = new byte[size];
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                int n = Math.min(in.readableBytes(), received.length - filled);
                in.readBytes(received, filled, n);
                filled += n;
                if (in.isReadable()) {
                    done.completeExceptionally(new IllegalStateException("more bytes echoed than sent"));
                } else if (filled == received.length) {
                    done.complete(received);
                }
            } finally {
                in.release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            done.completeExceptionally(new IllegalStateException("the server closed the connection before the echo"));
        }
    }

    // ------------------------------------------------------------------------------------------------ servers

    /** One thread: accept, echo one message, wait for the client's disconnect, close; then the next request. */
    private void serveLibrary(InetSocketAddress local) {
        RecvChain recvs = RecvChain.allocate(1, 1);
        SendChain sends = SendChain.allocate(1, 1);
        CompletionArray completions = CompletionArray.allocate(1);
        MemoryRegion[] region = new MemoryRegion[1];
        ConnectionOptions options = ConnectionOptions.builder().prepare(c -> {
            region[0] = c.protectionDomain().allocateAndRegister(size, Access.LOCAL_WRITE);
            recvs.get(0).wrId(1).sge(region[0], 0, size);
            c.queuePair().postRecvOrThrow(recvs, 1);               // before the client can send
        }).build();
        try (RdmaServer server = RdmaServer.listen(local, options, 128)) {
            System.out.println("ready on " + server.localAddress());
            System.out.flush();
            long served = 0;
            while (true) {
                Connection c = server.accept(Duration.ofDays(1));
                if (c == null) {
                    continue;
                }
                try (c) {
                    await(c.completionQueue(), completions);
                    int length = completions.get(0).byteLength();
                    sends.get(0).wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(region[0], 0, length);
                    c.queuePair().postSendOrThrow(sends, 1);
                    await(c.completionQueue(), completions);
                    if (!c.awaitDisconnected(TIMEOUT)) {
                        System.err.println("server-library: the client did not disconnect within " + TIMEOUT);
                    }
                    served++;
                } catch (RuntimeException e) { // one client's failure: report it, serve the next
                    System.err.println("server-library: connection " + served + " failed: " + e);
                }
            }
        }
    }

    /** A {@link ServerBootstrap} of {@link RdmaServerSocketChannel} on one {@link RdmaIoHandler} loop, echoing. */
    private void serveNetty(InetSocketAddress local) throws InterruptedException {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
        try {
            ServerBootstrap bootstrap = new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class)
                    .childHandler(new EchoServer());
            if (buffer > 0) {
                bootstrap.childOption(RdmaChannelOption.SEND_BUFFER_SIZE, buffer)
                        .childOption(RdmaChannelOption.RECEIVE_BUFFER_SIZE, buffer);
            }
            if (queueDepth > 0) {
                bootstrap.childOption(RdmaChannelOption.QUEUE_DEPTH, queueDepth);
            }
            Channel server = bootstrap.bind(local).sync().channel();
            System.out.println("ready on " + server.localAddress());
            System.out.flush();
            server.closeFuture().sync(); // until killed
        } finally {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        }
    }

    @ChannelHandler.Sharable
    private static final class EchoServer extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            System.err.println("server-netty: " + cause);
            ctx.close();
        }
    }
}
