package org.panamaverbs.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import org.junit.jupiter.api.Test;

/**
 * The transport on Netty's own epoll loops ({@code EpollIoHandler}): the in-process echo from 1 B to 16 MiB and the
 * connect to nothing ({@link InProcessEchoDeviceTest}'s, inherited), a peer that closes (each way), and an epoll TCP
 * channel and an RDMA channel served by one loop at once.
 */
@OnEpollLoops
class EpollLoopDeviceTest extends InProcessEchoDeviceTest {
    /** A close is seen "at once" (README); this bound leaves room for the emulated guest. */
    static final long PEER_CLOSE_BOUND_MILLIS = 2000;

    @Test
    void theLoopsAreNettysEpollLoops() {
        for (var executor : group) {
            assertTrue(((IoEventLoop) executor).isIoType(EpollIoHandler.class), executor + " runs EpollIoHandler");
        }
        assertTrue(server.isActive());
    }

    @Test
    void aServerThatClosesAfterWritingDeliversEveryByteThenInactiveWithoutException() throws Exception {
        byte[] sent = Echo.pattern(7, (256 << 10) + 1); // more than the receive buffer: credits flow before the end
        CompletableFuture<Long> closedAt = new CompletableFuture<>();
        Channel closingServer = bind(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                ctx.writeAndFlush(Unpooled.wrappedBuffer(sent)).addListener(ChannelFutureListener.CLOSE)
                        .addListener(f -> closedAt.complete(System.nanoTime()));
            }
        });
        try {
            Echo.Collector collector = new Echo.Collector(sent.length);
            new Bootstrap().group(group).channel(RdmaSocketChannel.class).handler(collector)
                    .connect(closingServer.localAddress()).sync();
            assertOrderlyEnd("the server's close reached the client", sent, collector, closedAt);
        } finally {
            closingServer.close().sync();
        }
    }

    @Test
    void aClientThatClosesAfterWritingDeliversEveryByteThenInactiveWithoutException() throws Exception {
        byte[] sent = Echo.pattern(11, (256 << 10) + 1);
        Echo.Collector child = new Echo.Collector(sent.length);
        Channel collectingServer = bind(child);
        try {
            Channel client = new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                    .handler(new ChannelInboundHandlerAdapter()).connect(collectingServer.localAddress()).sync().channel();
            client.writeAndFlush(Unpooled.wrappedBuffer(sent)).sync();
            CompletableFuture<Long> closedAt = CompletableFuture.completedFuture(System.nanoTime());
            client.close().sync();
            assertOrderlyEnd("the client's close reached the server's child", sent, child, closedAt);
        } finally {
            collectingServer.close().sync();
        }
    }

    /**
     * What the side that did not close sees: every byte, then {@code channelInactive} without an exception, within
     * the bound after the peer's close.
     */
    private static void assertOrderlyEnd(String what, byte[] sent, Echo.Collector receiver,
            CompletableFuture<Long> closedAt) throws Exception {
        assertArrayEquals(sent, receiver.done.get(60, TimeUnit.SECONDS), "every byte before the end");
        receiver.inactive.get(30, TimeUnit.SECONDS);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closedAt.get(30, TimeUnit.SECONDS));
        System.out.println("epoll loop: " + what + " within " + millis + " ms");
        assertFalse(receiver.failure.isDone(), () -> "an orderly close, not " + receiver.failure.join());
        assertTrue(millis < PEER_CLOSE_BOUND_MILLIS, millis + " ms");
    }

    @Test
    void oneEpollLoopServesATcpChannelAndAnRdmaChannelAtOnce() throws Exception {
        EventLoop loop = group.next();
        List<Channel> served = new CopyOnWriteArrayList<>();
        ChannelInitializer<Channel> echo = new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                served.add(ch);
                ch.pipeline().addLast(new Echo.Server());
            }
        };
        Channel tcpServer = serve(loop, EpollServerSocketChannel.class, echo);
        Channel rdmaServer = serve(loop, RdmaServerSocketChannel.class, echo);
        try {
            byte[] overTcp = Echo.pattern(3, 1 << 20);
            byte[] overRdma = Echo.pattern(5, 1 << 20);
            Echo.Collector tcpCollector = new Echo.Collector(overTcp.length);
            Echo.Collector rdmaCollector = new Echo.Collector(overRdma.length);
            Channel tcp = new Bootstrap().group(loop).channel(EpollSocketChannel.class).handler(tcpCollector)
                    .connect(tcpServer.localAddress()).sync().channel();
            Channel rdma = new Bootstrap().group(loop).channel(RdmaSocketChannel.class).handler(rdmaCollector)
                    .connect(rdmaServer.localAddress()).sync().channel();
            tcp.writeAndFlush(Unpooled.wrappedBuffer(overTcp));
            rdma.writeAndFlush(Unpooled.wrappedBuffer(overRdma));
            assertArrayEquals(overTcp, tcpCollector.done.get(60, TimeUnit.SECONDS), "TCP echo");
            assertArrayEquals(overRdma, rdmaCollector.done.get(60, TimeUnit.SECONDS), "RDMA echo");
            assertEquals(2, served.size(), "one TCP child and one RDMA child: " + served);
            for (Channel channel : List.of(tcpServer, rdmaServer, tcp, rdma, served.get(0), served.get(1))) {
                assertSame(loop, channel.eventLoop(), channel + " runs on the one loop");
            }
            assertTrue(served.stream().anyMatch(c -> c instanceof EpollSocketChannel), "a TCP child: " + served);
            assertTrue(served.stream().anyMatch(c -> c instanceof RdmaSocketChannel), "an RDMA child: " + served);
            tcp.close().sync();
            rdma.close().sync();
        } finally {
            tcpServer.close().sync();
            rdmaServer.close().sync();
        }
    }

    /** An RDMA server on the group whose children get {@code handler}. */
    private static Channel bind(io.netty.channel.ChannelHandler handler) throws InterruptedException {
        return new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class).childHandler(handler)
                .bind(new InetSocketAddress(address, 0)).sync().channel();
    }

    private static Channel serve(EventLoop loop, Class<? extends ServerChannel> type, ChannelInitializer<Channel> children)
            throws InterruptedException {
        return new ServerBootstrap().group(loop).channel(type).childHandler(children)
                .bind(new InetSocketAddress(address, 0)).sync().channel();
    }
}
