package org.panamaverbs.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Java to Java over the transport, the server in a JVM of its own ({@link Peers}), the client here: echo and
 * HTTP/1.1 with bytes compared from 1 B to 16 MiB, 100 connections at once, and sequential connect/close cycles
 * with the descriptors and threads of both processes counted before and after.
 */
@Tag(DeviceTest.EXTENDED)
class TransportDeviceTest extends DeviceTest {
    /** Sequential connect/close cycles (the issue asks 10 000; -Dnetty.cycles to change). */
    static final int CYCLES = Integer.getInteger("netty.cycles", 10_000);

    static PeerProcess echo;
    static PeerProcess http;
    static InetSocketAddress echoAddress;
    static InetSocketAddress httpAddress;

    @BeforeAll
    static void start() throws Exception {
        echo = PeerProcess.java("echo-server", address.getHostAddress());
        http = PeerProcess.java("http-server", address.getHostAddress());
        echoAddress = new InetSocketAddress(address, port(echo));
        httpAddress = new InetSocketAddress(address, port(http));
    }

    static int port(PeerProcess peer) throws InterruptedException {
        return Integer.parseInt(peer.awaitLine("listening ", 120).split(" ")[1]);
    }

    @AfterAll
    static void stop() throws Exception {
        if (echo != null) {
            echo.close();
        }
        if (http != null) {
            http.close();
        }
    }

    static Channel connect(InetSocketAddress server, io.netty.channel.ChannelHandler handler) throws InterruptedException {
        return new Bootstrap().group(group).channel(RdmaSocketChannel.class).handler(handler).connect(server).sync()
                .channel();
    }

    @Test
    void echoFromOneByteToSixteenMebibytes() throws Exception {
        for (int size : new int[] {1, 2, 1000, 4096, 65536, 65537, 1 << 20, 16 << 20}) {
            byte[] sent = Echo.pattern(size, size);
            Echo.Collector collector = new Echo.Collector(size);
            Channel channel = connect(echoAddress, collector);
            try {
                // written in pieces of up to 1 MiB, as an application streams
                for (int offset = 0; offset < size; offset += 1 << 20) {
                    channel.write(Unpooled.wrappedBuffer(sent, offset, Math.min(1 << 20, size - offset)));
                }
                channel.flush();
                assertArrayEquals(sent, collector.done.get(300, TimeUnit.SECONDS), size + " bytes echoed");
            } finally {
                channel.close().sync();
            }
        }
    }

    @Test
    void httpGetAndPostFromOneByteToSixteenMebibytesOnOneKeptAliveConnection() throws Exception {
        List<CompletableFuture<FullHttpResponse>> pending = new ArrayList<>();
        Channel channel = connect(httpAddress, new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(32 << 20),
                        new SimpleChannelInboundHandler<FullHttpResponse>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
                                synchronized (pending) {
                                    pending.removeFirst().complete(response.retainedDuplicate());
                                }
                            }
                        });
            }
        });
        try {
            for (int size : new int[] {1, 1000, 65536, 1 << 20, 16 << 20}) {
                FullHttpResponse response = exchange(channel, pending, new DefaultFullHttpRequest(HttpVersion.HTTP_1_1,
                        HttpMethod.GET, "/bytes/" + size));
                assertEquals(HttpResponseStatus.OK, response.status());
                assertArrayEquals(Echo.pattern(0, size), ByteBufUtil.getBytes(response.content()), "GET " + size);
                response.release();
            }
            byte[] body = Echo.pattern(7, 3 << 20);
            FullHttpRequest post = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/echo",
                    Unpooled.wrappedBuffer(body));
            post.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
            FullHttpResponse response = exchange(channel, pending, post);
            assertArrayEquals(body, ByteBufUtil.getBytes(response.content()), "POST /echo");
            response.release();
        } finally {
            channel.close().sync();
        }
    }

    private static FullHttpResponse exchange(Channel channel, List<CompletableFuture<FullHttpResponse>> pending,
            FullHttpRequest request) throws Exception {
        CompletableFuture<FullHttpResponse> response = new CompletableFuture<>();
        synchronized (pending) {
            pending.add(response);
        }
        request.headers().set(HttpHeaderNames.HOST, httpAddress.getAddress().getHostAddress());
        channel.writeAndFlush(request).sync();
        return response.get(300, TimeUnit.SECONDS);
    }

    @Test
    void aHundredConnectionsAtOnceEachGetTheirOwnBytesBack() throws Exception {
        int connections = 100;
        int size = 8192;
        List<Channel> channels = new ArrayList<>();
        List<Echo.Collector> collectors = new ArrayList<>();
        try {
            List<io.netty.channel.ChannelFuture> connects = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                Echo.Collector collector = new Echo.Collector(size);
                collectors.add(collector);
                connects.add(new Bootstrap().group(group).channel(RdmaSocketChannel.class).handler(collector)
                        .option(io.netty.channel.ChannelOption.CONNECT_TIMEOUT_MILLIS, 180_000).connect(echoAddress));
            }
            for (int i = 0; i < connections; i++) {
                Channel channel = connects.get(i).sync().channel();
                channels.add(channel);
                channel.writeAndFlush(Unpooled.wrappedBuffer(Echo.pattern(i * 31L, size)));
            }
            for (int i = 0; i < connections; i++) {
                assertArrayEquals(Echo.pattern(i * 31L, size), collectors.get(i).done.get(300, TimeUnit.SECONDS),
                        "connection " + i);
            }
        } finally {
            for (Channel channel : channels) {
                channel.close().sync();
            }
        }
    }

    @Test
    void sequentialConnectCloseCyclesLeakNoDescriptorsOrThreads() throws Exception {
        int warmUp = Math.min(50, CYCLES);
        cycles(warmUp);
        Thread.sleep(3000); // closes linger until their last sends complete; ids are destroyed after that
        long files = openFiles();
        long threads = Thread.activeCount();
        long peerFiles = echo.openFiles();
        long peerThreads = echo.threads();
        String resources = rdmaResources();
        long start = System.nanoTime();
        cycles(CYCLES);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.printf("%d connect/echo/close cycles in %d ms (%.2f ms each)%n", CYCLES, millis,
                (double) millis / CYCLES);
        Thread.sleep(3000);
        assertEquals(resources, rdmaResources(), "RDMA objects of the device (rdma resource show: PDs, CQs, QPs,"
                + " rdma_cm ids, MRs) after " + CYCLES + " cycles");
        assertEquals(files, openFiles(), "descriptors of this JVM after " + CYCLES + " cycles");
        assertEquals(threads, Thread.activeCount(), "threads of this JVM");
        assertEquals(peerFiles, echo.openFiles(), "descriptors of the server's JVM");
        assertTrue(echo.threads() <= peerThreads + 2, "threads of the server's JVM: " + echo.threads() + " after, "
                + peerThreads + " before");
    }

    @Test
    void aPeerThatStopsReadingTurnsWritabilityOffAndGetsEveryByteWhenItReadsAgain() throws Exception {
        try (PeerProcess stall = PeerProcess.java("stall-server", address.getHostAddress())) {
            int port = Integer.parseInt(stall.awaitLine("listening ", 120).split(" ")[1]);
            CompletableFuture<Void> unwritable = new CompletableFuture<>();
            CompletableFuture<Void> writableAgain = new CompletableFuture<>();
            Channel channel = new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                    .option(io.netty.channel.ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(32768, 65536))
                    .handler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                            if (!ctx.channel().isWritable()) {
                                unwritable.complete(null);
                            } else if (unwritable.isDone()) {
                                writableAgain.complete(null);
                            }
                        }
                    }).connect(new InetSocketAddress(address, port)).sync().channel();
            try {
                int chunk = 16384;
                int total = 1 << 20;
                List<ChannelFuture> writes = new ArrayList<>();
                for (long offset = 0; offset < total; offset += chunk) {
                    writes.add(channel.writeAndFlush(Unpooled.wrappedBuffer(Echo.pattern(offset, chunk))));
                }
                unwritable.get(30, TimeUnit.SECONDS);
                Thread.sleep(2000); // the peer still reads nothing: nothing moves, nothing fails
                assertFalse(channel.isWritable(), "writability stays off while the peer grants nothing");
                long done = writes.stream().filter(ChannelFuture::isDone).count();
                assertTrue(done * chunk <= 16384, done + " writes done into a 16 KiB receive buffer");
                assertTrue(writes.stream().noneMatch(w -> w.isDone() && !w.isSuccess()), "no write failed");
                stall.send("read");
                stall.awaitLine("received " + total, 120);
                for (ChannelFuture write : writes) {
                    assertTrue(write.await(30, TimeUnit.SECONDS) && write.isSuccess(), "every write succeeded");
                }
                writableAgain.get(30, TimeUnit.SECONDS);
                assertTrue(stall.output().stream().noneMatch(l -> l.startsWith("corrupt")), stall.output().toString());
            } finally {
                channel.close().sync();
            }
        }
    }

    private static void cycles(int count) throws Exception {
        byte[] ping = {42};
        for (int i = 0; i < count; i++) {
            Echo.Collector collector = new Echo.Collector(1);
            Channel channel = new Bootstrap().group(group).channel(RdmaSocketChannel.class).handler(collector)
                    .option(RdmaChannelOption.QUEUE_DEPTH, 16).option(RdmaChannelOption.RECEIVE_BUFFER_SIZE, 4096)
                    .option(RdmaChannelOption.SEND_BUFFER_SIZE, 4096).connect(echoAddress).sync().channel();
            channel.writeAndFlush(Unpooled.wrappedBuffer(ping));
            assertArrayEquals(ping, collector.done.get(60, TimeUnit.SECONDS), "cycle " + i);
            channel.close().sync();
        }
    }

    /** The device's object counts from iproute2's {@code rdma resource show}, e.g. "rxe0: pd 4 cq 6 qp 4 ...". */
    static String rdmaResources() throws IOException, InterruptedException {
        Process process = new ProcessBuilder("rdma", "resource", "show").redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes()).trim();
        assertEquals(0, process.waitFor(), "rdma resource show: " + output);
        return output;
    }

    private static long openFiles() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }
}
