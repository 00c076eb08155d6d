package org.panamaverbs.bench.netty;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.panamaverbs.bench.JitWarmUp;
import org.panamaverbs.netty.RdmaIoHandler;
import org.panamaverbs.netty.RdmaServerSocketChannel;
import org.panamaverbs.netty.RdmaSocketChannel;

/**
 * Netty and gRPC over TCP (NIO) and over the RDMA transport, on its own event loops ({@code RdmaIoHandler}) or on
 * Netty's epoll loops ({@code EpollIoHandler}), with the exchange of C {@code rstream} so the Java figures line up
 * with rstream's (bench/compare-netty runs them alternating; see docs/benchmarks/).
 *
 * <pre>
 * NettyBench server TRANSPORT ADDRESS PORT [BUSY_POLL_US]      rstream-shaped server on PORT, gRPC echo on PORT+1
 * NettyBench stream TRANSPORT ADDRESS PORT SIZE COUNT ITERATIONS [BUSY_POLL_US]
 * NettyBench grpc   TRANSPORT ADDRESS PORT SIZE CALLS [BUSY_POLL_US]
 * </pre>
 *
 * TRANSPORT is {@code tcp} (NIO loops), {@code rdma} (the transport on {@code RdmaIoHandler} loops, which may
 * busy-poll BUSY_POLL_US) or {@code rdma-epoll} (the transport on Netty's {@code EpollIoHandler} loops, which never
 * busy-poll: BUSY_POLL_US must be 0). {@code stream} is rstream's exchange (16 bytes each way to start, then
 * per iteration COUNT transfers of SIZE bytes to the server and COUNT back; {@code -C 1} is a ping-pong), preceded
 * by a 12-byte header (size, count, iterations) that rstream does not need because it takes them from its command
 * line. It prints rstream's figures (Gb/s counting both directions, microseconds per transfer) and, per
 * iteration, the round trip's percentiles; a warm-up exchange as long (at least 10 iterations; the system
 * property {@code warmup} sets its iterations) runs first on a connection of its own and is not counted (with the
 * system property {@code settle}, it runs again until the JIT compiled for at most 1% of its time, at most 30 times;
 * stderr says how often, and how long the JIT compiled during each measured run); the system property {@code runs}
 * measures that many exchanges one after the other, each on a new connection, a line each.
 * {@code grpc} makes unary calls one after the other, after a tenth as many uncounted ones (at least 10; repeated as
 * the stream's warm-up with {@code settle}), and prints their latency percentiles. One CSV line each: {@code test,transport,size,count,iterations,seconds,gbps,usec_per_xfer,p50_us,p90_us,p99_us}.
 */
public final class NettyBench {
    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };
    private static final MethodDescriptor<byte[], byte[]> ECHO = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("bench.Echo/Echo")
            .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();

    /** A connect is not measured: under emulation a cold server JVM's first accept can take longer than Netty's 30 s. */
    private static final int CONNECT_TIMEOUT_MILLIS = 120_000;

    private NettyBench() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        String transport = args[1];
        if (!List.of("tcp", "rdma", "rdma-epoll").contains(transport)) {
            throw new IllegalArgumentException("transport is tcp, rdma or rdma-epoll, not " + transport);
        }
        InetAddress address = InetAddress.getByName(args[2]);
        int port = Integer.parseInt(args[3]);
        int busyIndex = switch (mode) {
            case "server" -> 4;
            case "stream" -> 7;
            case "grpc" -> 6;
            default -> throw new IllegalArgumentException(mode);
        };
        long busyPollMicros = args.length > busyIndex ? Long.parseLong(args[busyIndex]) : 0;
        if (transport.equals("rdma-epoll") && busyPollMicros != 0) {
            throw new IllegalArgumentException("an epoll loop does not busy-poll: BUSY_POLL_US must be 0 for rdma-epoll");
        }
        IoHandlerFactory factory = switch (transport) {
            case "rdma" -> RdmaIoHandler.newFactory(Duration.ofNanos(busyPollMicros * 1000));
            case "rdma-epoll" -> EpollIoHandler.newFactory();
            default -> NioIoHandler.newFactory();
        };
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, factory);
        try {
            switch (mode) {
                case "server" -> serve(transport, group, address, port);
                case "stream" -> stream(transport, group, new InetSocketAddress(address, port),
                        Integer.parseInt(args[4]), Integer.parseInt(args[5]), Integer.parseInt(args[6]));
                default -> grpc(transport, group, new InetSocketAddress(address, port + 1), Integer.parseInt(args[4]),
                        Integer.parseInt(args[5]));
            }
        } finally {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        }
        System.exit(0);
    }

    /** The RDMA channels on either kind of loop; NIO's for TCP. */
    private static Class<? extends Channel> channelType(String transport) {
        return transport.equals("tcp") ? NioSocketChannel.class : RdmaSocketChannel.class;
    }

    private static Class<? extends ServerChannel> serverType(String transport) {
        return transport.equals("tcp") ? NioServerSocketChannel.class : RdmaServerSocketChannel.class;
    }

    private static void serve(String transport, EventLoopGroup group, InetAddress address, int port) throws Exception {
        Channel server = new ServerBootstrap().group(group).channel(serverType(transport))
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel child) {
                        child.pipeline().addLast(new StreamServer()); // one per connection: it keeps its state
                    }
                }).bind(new InetSocketAddress(address, port)).sync().channel();
        ServerServiceDefinition service = ServerServiceDefinition.builder("bench.Echo")
                .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
                    response.onNext(request);
                    response.onCompleted();
                })).build();
        Server grpc = NettyServerBuilder.forAddress(new InetSocketAddress(address, port + 1))
                .channelType(serverType(transport)).bossEventLoopGroup(group).workerEventLoopGroup(group)
                .addService(service).build().start();
        System.out.println("ready");
        // until the script closes our standard input
        while (System.in.read() >= 0) {
            // nothing to read
        }
        grpc.shutdownNow();
        server.close().sync();
    }

    /** rstream's server side: header, 16 bytes in and out, then per iteration COUNT x SIZE in, then out. */
    private static final class StreamServer extends ChannelInboundHandlerAdapter {
        private final ByteBuf header = Unpooled.buffer(12);
        private int size;
        private int count;
        private int iterations;
        private long expect = -1;
        private long received;
        private ByteBuf payload;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                if (expect < 0) {
                    in.readBytes(header, Math.min(in.readableBytes(), header.writableBytes()));
                    if (header.isWritable()) {
                        return;
                    }
                    size = header.readInt();
                    count = header.readInt();
                    iterations = header.readInt();
                    payload = Unpooled.directBuffer(size).writeZero(size);
                    expect = 16;
                }
                received += in.readableBytes();
                while (expect > 0 && received >= expect) {
                    received -= expect;
                    if (expect == 16) {
                        ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[16]));
                    } else {
                        for (int t = 0; t < count; t++) {
                            ctx.write(payload.retainedDuplicate());
                        }
                        ctx.flush();
                        iterations--;
                    }
                    expect = iterations > 0 ? (long) size * count : 0;
                }
            } finally {
                in.release();
            }
        }
    }

    private static void stream(String transport, EventLoopGroup group, InetSocketAddress server, int size, int count,
            int iterations) throws Exception {
        // as long as the measured exchange: a shorter one leaves paths only a longer one reaches to the JIT, which
        // then deoptimises and recompiles them during the measured run (docs/benchmarks/netty.md)
        int warmUpIterations = Integer.getInteger("warmup", Math.max(10, iterations));
        JitWarmUp.warmUp(() -> exchange(transport, group, server, size, count, warmUpIterations));
        for (int run = Integer.getInteger("runs", 1); run > 0; run--) { // each measured on a connection of its own
            long before = JitWarmUp.compilationMillis();
            report(transport, size, count, iterations, exchange(transport, group, server, size, count, iterations));
            System.err.printf(Locale.ROOT, "measured run: %d ms of compiling%n",
                    JitWarmUp.compilationMillis() - before);
        }
    }


    private static void report(String transport, int size, int count, int iterations, StreamClient client)
            throws Exception {
        long nanos = client.done.get();
        long bytes = (long) iterations * count * size * 2;
        double usec = nanos / 1000.0;
        Histogram h = client.roundTrips;
        System.out.printf(Locale.ROOT, "stream,%s,%d,%d,%d,%.3f,%.3f,%.2f,%.1f,%.1f,%.1f%n", transport,
                size, count, iterations, usec / 1e6, bytes * 8 / (1000.0 * usec), usec / iterations / (count * 2.0),
                h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(90) / 1000.0,
                h.getValueAtPercentile(99) / 1000.0);
    }

    /** One connection running rstream's exchange to its end; the returned client holds the timings. */
    private static StreamClient exchange(String transport, EventLoopGroup group, InetSocketAddress server, int size,
            int count, int iterations) throws Exception {
        StreamClient client = new StreamClient(size, count, iterations);
        Channel channel = new Bootstrap().group(group).channel(channelType(transport)).handler(client)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MILLIS).connect(server)
                .sync().channel();
        channel.writeAndFlush(Unpooled.buffer(12).writeInt(size).writeInt(count).writeInt(iterations));
        channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[16]));
        try {
            client.done.get(30, TimeUnit.MINUTES);
            channel.close().sync();
        } finally {
            client.payload.release(); // each write sent a retained duplicate; this is the client's own reference
        }
        return client;
    }

    /** rstream's client side, timed as rstream times it (after the 16-byte synchronisation). */
    private static final class StreamClient extends ChannelInboundHandlerAdapter {
        final CompletableFuture<Long> done = new CompletableFuture<>();
        final Histogram roundTrips = new Histogram(3_600_000_000_000L, 3);
        private final int size;
        private final int count;
        private int iterationsLeft;
        final ByteBuf payload;
        private long expect = 16;
        private long received;
        private long start;
        private long iterationStart;

        StreamClient(int size, int count, int iterations) {
            this.size = size;
            this.count = count;
            this.iterationsLeft = iterations;
            this.payload = Unpooled.directBuffer(size).writeZero(size);
        }

        private void sendIteration(ChannelHandlerContext ctx) {
            iterationStart = System.nanoTime();
            for (int t = 0; t < count; t++) {
                ctx.write(payload.retainedDuplicate());
            }
            ctx.flush();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            received += in.readableBytes();
            in.release();
            while (expect > 0 && received >= expect) {
                received -= expect;
                long now = System.nanoTime();
                if (start == 0) {
                    start = now; // synchronised: rstream's gettimeofday(&start)
                } else {
                    roundTrips.recordValue(now - iterationStart);
                    iterationsLeft--;
                }
                if (iterationsLeft == 0) {
                    expect = 0;
                    done.complete(now - start);
                    return;
                }
                expect = (long) size * count;
                sendIteration(ctx);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            done.completeExceptionally(new IOException("the server closed the connection before the end"));
        }
    }

    private static void grpc(String transport, EventLoopGroup group, InetSocketAddress server, int size, int calls)
            throws Exception {
        ManagedChannel channel = NettyChannelBuilder.forAddress(server).channelType(channelType(transport),
                InetSocketAddress.class).eventLoopGroup(group).withOption(ChannelOption.CONNECT_TIMEOUT_MILLIS,
                CONNECT_TIMEOUT_MILLIS).usePlaintext().build();
        try {
            byte[] request = new byte[size];
            CallOptions options = CallOptions.DEFAULT.withMaxInboundMessageSize(64 << 20);
            JitWarmUp.warmUp(() -> {
                for (int i = 0; i < Math.max(10, calls / 10); i++) {
                    ClientCalls.blockingUnaryCall(channel, ECHO, options, request);
                }
            });
            Histogram h = new Histogram(3_600_000_000_000L, 3);
            long compiledBefore = JitWarmUp.compilationMillis();
            long start = System.nanoTime();
            for (int i = 0; i < calls; i++) {
                long t = System.nanoTime();
                ClientCalls.blockingUnaryCall(channel, ECHO, options, request);
                h.recordValue(System.nanoTime() - t);
            }
            double usec = (System.nanoTime() - start) / 1000.0;
            System.out.printf(Locale.ROOT, "grpc,%s,%d,1,%d,%.3f,%.3f,%.2f,%.1f,%.1f,%.1f%n", transport,
                    size, calls, usec / 1e6, (long) calls * size * 2 * 8 / (1000.0 * usec), usec / calls / 2,
                    h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(90) / 1000.0,
                    h.getValueAtPercentile(99) / 1000.0);
            System.err.printf(Locale.ROOT, "measured run: %d ms of compiling%n",
                    JitWarmUp.compilationMillis() - compiledBefore);
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
