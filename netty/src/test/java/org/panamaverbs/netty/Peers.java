package org.panamaverbs.netty;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.cm.CmException;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.ConnParam;
import org.panamaverbs.cm.PortSpace;
import org.panamaverbs.verbs.QpConfig;

/**
 * The peers of the device tests, each run in a JVM of its own ({@link PeerProcess#java}): servers print
 * {@code listening PORT} and run until their standard input closes (the test ends) or they are killed.
 *
 * <ul>
 *   <li>{@code echo-server ADDRESS}: Netty echo over the transport
 *   <li>{@code http-server ADDRESS}: HTTP/1.1 ({@code GET /bytes/N}: N bytes of the pattern; {@code POST /echo})
 *   <li>{@code stall-server ADDRESS}: accepts and does not read (auto-read off), so the client runs out of credits;
 *       the line {@code read} on its standard input turns reading on: it then checks the bytes against the test
 *       pattern and prints {@code received N} after each read (or {@code corrupt at N})
 *   <li>{@code streamer ADDRESS PORT}: connects and writes without end (to be killed mid-stream)
 *   <li>{@code grpc-server ADDRESS}: {@link GrpcTestService} over gRPC, from {@code Grpc.newServerBuilderForPort}
 *   <li>{@code grpc-client ADDRESS PORT}: one unary call through {@code Grpc.newChannelBuilder}
 * </ul>
 */
public final class Peers {
    private Peers() {
    }

    public static void main(String[] args) throws Exception {
        InetAddress address = InetAddress.getByName(args[1]);
        Thread.ofPlatform().daemon().start(Peers::exitWhenStdinCloses);
        switch (args[0]) {
            case "echo-server" -> serve(address, new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel channel) {
                    channel.pipeline().addLast(new Echo.Server());
                }
            }, false);
            case "http-server" -> serve(address, new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel channel) {
                    channel.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(32 << 20),
                            new HttpBytes());
                }
            }, false);
            case "stall-server" -> serve(address, new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel channel) {
                    System.out.println("accepted " + channel.remoteAddress());
                    STALLED.add(channel);
                    channel.pipeline().addLast(new PatternChecker());
                }
            }, true);
            case "streamer" -> stream(new InetSocketAddress(address, Integer.parseInt(args[2])));
            case "garbage" -> {
                System.out.println(garbage(new InetSocketAddress(address, Integer.parseInt(args[2]))));
                System.exit(0);
            }
            case "grpc-server" -> GrpcTestService.serve(address);
            case "grpc-client" -> {
                GrpcTestService.callOnce(new InetSocketAddress(address, Integer.parseInt(args[2])));
                System.exit(0);
            }
            default -> throw new IllegalArgumentException(Arrays.toString(args));
        }
    }

    /** The stall server's children, to be set reading by the command {@code read}. */
    private static final java.util.List<Channel> STALLED = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Runs the commands on standard input ({@code read}); exits when the test closes it. */
    private static void exitWhenStdinCloses() {
        try (var in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.equals("read")) {
                    STALLED.forEach(channel -> channel.config().setAutoRead(true));
                }
            }
        } catch (IOException e) {
            // treated as closed
        }
        System.exit(0);
    }

    /** Checks what arrives against the test pattern from 0 and prints the running total. */
    static final class PatternChecker extends ChannelInboundHandlerAdapter {
        private long received;
        private boolean corrupt;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buffer = (ByteBuf) msg;
            try {
                for (int i = buffer.readerIndex(); i < buffer.writerIndex() && !corrupt; i++, received++) {
                    if (buffer.getByte(i) != Echo.pattern(received)) {
                        corrupt = true;
                        System.out.println("corrupt at " + received);
                    }
                }
            } finally {
                buffer.release();
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            if (!corrupt) {
                System.out.println("received " + received);
            }
        }
    }

    private static void serve(InetAddress address, ChannelInitializer<Channel> initializer, boolean stall)
            throws InterruptedException {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory());
        ServerBootstrap bootstrap = new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 256).childHandler(initializer);
        if (stall) {
            bootstrap.childOption(ChannelOption.AUTO_READ, false)
                    .childOption(RdmaChannelOption.RECEIVE_BUFFER_SIZE, 16384);
        }
        Channel server = bootstrap.bind(new InetSocketAddress(address, 0)).sync().channel();
        System.out.println("listening " + ((InetSocketAddress) server.localAddress()).getPort());
        server.closeFuture().sync();
    }

    /** Serves {@code GET /bytes/N} (N pattern bytes) and {@code POST /echo}, keep-alive as the client asks. */
    static final class HttpBytes extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            ByteBuf body;
            HttpResponseStatus status = HttpResponseStatus.OK;
            String uri = request.uri();
            if (request.method() == HttpMethod.GET && uri.startsWith("/bytes/")) {
                body = Unpooled.wrappedBuffer(Echo.pattern(0, Integer.parseInt(uri.substring(7))));
            } else if (request.method() == HttpMethod.POST && uri.equals("/echo")) {
                body = request.content().retainedDuplicate();
            } else if (uri.equals("/")) {
                body = Unpooled.copiedBuffer("hello over rsockets\n", StandardCharsets.US_ASCII);
            } else {
                status = HttpResponseStatus.NOT_FOUND;
                body = Unpooled.EMPTY_BUFFER;
            }
            FullHttpResponse response = new DefaultFullHttpResponse(request.protocolVersion(), status, body);
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream")
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            HttpUtil.setKeepAlive(response, keepAlive);
            var written = ctx.writeAndFlush(response);
            if (!keepAlive) {
                written.addListener(ChannelFutureListener.CLOSE);
            }
        }
    }

    /** Connects and writes 64 KiB buffers as fast as credits allow, forever. */
    private static void stream(InetSocketAddress server) throws InterruptedException {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
        Channel channel = new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        System.out.println("streaming");
                        pump(ctx.channel());
                    }

                    @Override
                    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                        pump(ctx.channel());
                    }
                }).connect(server).sync().channel();
        channel.closeFuture().sync();
    }

    private static void pump(Channel channel) {
        while (channel.isWritable()) {
            channel.write(Unpooled.wrappedBuffer(Echo.pattern(0, 65536)));
        }
        channel.flush();
    }

    /** rdma_cm connect (TCP port space) whose private data is not rsocket's; prints what the server answered. */
    /** An rdma_cm connect whose private data is 56 bytes of garbage: what came of it, as one line. */
    static String garbage(InetSocketAddress server) {
        byte[] junk = new byte[56];
        new java.util.Random(30).nextBytes(junk);
        junk[0] = 9; // not version 1
        try (CmEventChannel events = CmEventChannel.create();
             CmId id = CmId.create(events, PortSpace.TCP)) {
            id.resolveAddress(server, Duration.ofSeconds(10));
            id.resolveRoute(Duration.ofSeconds(10));
            try (var pd = id.context().allocateProtectionDomain();
                 var cq = id.context().createCompletionQueue(16)) {
                id.createQueuePair(pd, QpConfig.builder(cq).build());
                id.connect(new ConnParam(junk, 0, 0, 7, 7), Duration.ofSeconds(20));
                return "garbage accepted";
            }
        } catch (CmException e) {
            return "garbage refused " + e.event() + " errno " + e.errno();
        }
    }
}
