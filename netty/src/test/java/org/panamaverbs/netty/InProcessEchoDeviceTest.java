package org.panamaverbs.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Server and client of the transport in one JVM on the device (loopback through rxe): the quick check. */
@Tag(DeviceTest.CI)
class InProcessEchoDeviceTest extends DeviceTest {
    static Channel server;
    static final List<Channel> children = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        server = new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        children.add(ch);
                        ch.pipeline().addLast(new Echo.Server());
                    }
                }).bind(new InetSocketAddress(address, 0)).sync().channel();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close().sync();
        }
    }

    static String state(Channel channel) throws Exception {
        RdmaSocketChannel rdma = (RdmaSocketChannel) channel;
        return rdma.eventLoop().submit(rdma::describeState).get(10, TimeUnit.SECONDS);
    }

    @Test
    void echoesBothWaysAtOnceFromOneByteToSixteenMebibytes() throws Exception {
        for (int size : new int[] {1, 65537, 1 << 20, 16 << 20}) {
            byte[] sent = Echo.pattern(size, size);
            Echo.Collector collector = new Echo.Collector(sent.length);
            Channel client = new Bootstrap().group(group).channel(RdmaSocketChannel.class).handler(collector)
                    .connect(server.localAddress()).sync().channel();
            try {
                for (int offset = 0; offset < size; offset += 1 << 20) {
                    client.write(Unpooled.wrappedBuffer(sent, offset, Math.min(1 << 20, size - offset)));
                }
                client.flush();
                try {
                    assertArrayEquals(sent, collector.done.get(120, TimeUnit.SECONDS), size + " bytes");
                } catch (TimeoutException e) {
                    StringBuilder states = new StringBuilder();
                    for (Channel child : children) {
                        states.append("\n  server child: ").append(state(child));
                    }
                    fail(size + " bytes: " + collector.size() + " echoed within 120 s; client: " + state(client) + states);
                }
            } finally {
                client.close().sync();
                children.clear();
            }
        }
    }

    /**
     * Connects, accepts and disconnects run on the event loops: with 32 connections open (both ends in this JVM) the
     * JVM has no more threads, platform or virtual, than with none. Before, each connect, accept, listener and live
     * connection had a virtual thread of its own.
     */
    @Test
    void thirtyTwoConnectionsAtOnceAddNoThread() throws Exception {
        int connections = 32;
        for (Channel channel : openAndEcho(connections)) { // every loop of the group started, every lazy thread made
            channel.close().sync();
        }
        Thread.sleep(2500); // the library's pooled rdma_destroy_id threads end after 1 s idle
        List<String> before = JvmThreads.names();
        List<Channel> open = openAndEcho(connections);
        List<String> during = JvmThreads.names();
        for (Channel channel : open) {
            channel.close().sync();
        }
        System.out.println("threads, platform and virtual: " + before.size() + " with no connection, " + during.size()
                + " with " + connections + " open (both ends in this JVM)");
        org.junit.jupiter.api.Assertions.assertTrue(during.size() <= before.size() + 2, "threads with " + connections
                + " connections open: " + during + "; with none: " + before);
        org.junit.jupiter.api.Assertions.assertEquals(List.of(), during.stream().filter(n -> n.startsWith("rsocket-"))
                .toList(), "a thread per connection");
    }

    /** Opens {@code connections} clients at once and has each echo 1000 bytes (compared); the caller closes them. */
    private static List<Channel> openAndEcho(int connections) throws Exception {
        List<Echo.Collector> collectors = new java.util.ArrayList<>();
        List<io.netty.channel.ChannelFuture> connects = new java.util.ArrayList<>();
        for (int i = 0; i < connections; i++) {
            Echo.Collector collector = new Echo.Collector(1000);
            collectors.add(collector);
            connects.add(new Bootstrap().group(group).channel(RdmaSocketChannel.class).handler(collector)
                    .option(io.netty.channel.ChannelOption.CONNECT_TIMEOUT_MILLIS, 120_000).connect(server.localAddress()));
        }
        List<Channel> channels = new java.util.ArrayList<>();
        for (int i = 0; i < connections; i++) {
            Channel channel = connects.get(i).sync().channel();
            channels.add(channel);
            channel.writeAndFlush(Unpooled.wrappedBuffer(Echo.pattern(i * 7L, 1000)));
        }
        for (int i = 0; i < connections; i++) {
            assertArrayEquals(Echo.pattern(i * 7L, 1000), collectors.get(i).done.get(120, TimeUnit.SECONDS),
                    "connection " + i);
        }
        return channels;
    }

    @Test
    void connectingToAPortWithoutListenerFailsAtOnce() throws InterruptedException {
        // a JVM's first connect links the rdma_cm calls (seconds under emulation, more on a loaded host): not timed
        connectToNothing().await(30, TimeUnit.SECONDS);
        long start = System.nanoTime();
        var future = connectToNothing();
        var e = assertThrows(ExecutionException.class, () -> future.get(30, TimeUnit.SECONDS));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.println("in-process connect to nothing: " + e.getCause() + " after " + millis + " ms");
        assertInstanceOf(ConnectException.class, e.getCause());
        org.junit.jupiter.api.Assertions.assertTrue(millis < 5000, "refused at once, not after a timeout: " + millis + " ms");
    }

    @Test
    void aServerThatClosesAtOnceIsReadToTheEndByItsClient() throws Exception {
        // a peer that writes and closes, or closes, as soon as it accepts (a greeting, a refusal): its data and its
        // DISCONNECT may complete at the client before the client's channel is active; the client must still read the
        // bytes, then see an orderly end
        for (byte[] greeting : new byte[][] {Echo.pattern(7, 100), new byte[0]}) {
            Channel closer = new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class)
                    .childHandler(new Greeter(greeting)).bind(new InetSocketAddress(address, 0)).sync().channel();
            try {
                for (int round = 0; round < 2; round++) {
                    String what = (greeting.length == 0 ? "closed at once" : "a greeting, then closed") + ", round " + round;
                    Echo.Collector collector = new Echo.Collector(Math.max(1, greeting.length));
                    Channel client = new Bootstrap().group(group).channel(RdmaSocketChannel.class).handler(collector)
                            .connect(closer.localAddress()).sync().channel();
                    try {
                        collector.inactive.get(30, TimeUnit.SECONDS);
                    } catch (TimeoutException e) {
                        fail(what + ": still open after 30 s: " + state(client));
                    }
                    synchronized (collector.received) {
                        assertArrayEquals(greeting, collector.received.toByteArray(), what);
                    }
                    assertFalse(collector.failure.isDone(), what + ": an orderly end, not " + collector.failure.getNow(null));
                }
            } finally {
                closer.close().sync();
            }
        }
    }

    /** Writes its greeting (if any) to each connection as soon as it is active, then closes it. */
    @ChannelHandler.Sharable
    private static final class Greeter extends ChannelInboundHandlerAdapter {
        private final byte[] greeting;

        Greeter(byte[] greeting) {
            this.greeting = greeting;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            if (greeting.length == 0) {
                ctx.close();
            } else {
                ctx.writeAndFlush(Unpooled.wrappedBuffer(greeting)).addListener(ChannelFutureListener.CLOSE);
            }
        }
    }

    private static io.netty.channel.ChannelFuture connectToNothing() {
        return new Bootstrap().group(group).channel(RdmaSocketChannel.class).handler(new Echo.Server())
                .connect(new InetSocketAddress(address, 1));
    }
}
