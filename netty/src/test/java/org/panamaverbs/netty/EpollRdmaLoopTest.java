package org.panamaverbs.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.unix.FileDescriptor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Without a device: RDMA channels register with Netty's epoll loops beside epoll TCP channels, a loop's shutdown
 * closes them and releases the loop's RDMA side, a loop of neither kind is refused, and a completion channel's
 * descriptor lent to Netty is never closed by it.
 */
class EpollRdmaLoopTest {
    @BeforeAll
    static void epoll() {
        DeviceTest.requireEpoll();
    }

    @Test
    void rdmaChannelsRegisterBesideTcpOnOneEpollLoopAndItsShutdownClosesThemAndReleasesTheRdmaSide() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        IoEventLoop loop = (IoEventLoop) group.next();
        try {
            Channel tcp = new ServerBootstrap().group(loop).channel(EpollServerSocketChannel.class)
                    .childHandler(new ChannelInboundHandlerAdapter())
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            RdmaServerSocketChannel server = new RdmaServerSocketChannel();
            RdmaSocketChannel client = new RdmaSocketChannel();
            loop.register(server).sync();
            loop.register(client).sync();
            assertTrue(server.isRegistered() && client.isRegistered());
            assertSame(loop, server.eventLoop());
            assertSame(loop, tcp.eventLoop());
            assertTrue(loop.submit(() -> EpollRdmaLoop.holds(loop)).get(10, TimeUnit.SECONDS));

            // a deregistered channel leaves the loop; registered again, it comes back to the same RDMA side
            client.deregister().sync();
            assertFalse(client.isRegistered());
            loop.register(client).sync();
            assertTrue(client.isRegistered());
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
        assertFalse(EpollRdmaLoop.holds(loop), "the loop's RDMA side is released with the loop");
    }

    @Test
    void theLoopsShutdownClosesItsRdmaChannels() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        RdmaServerSocketChannel server = new RdmaServerSocketChannel();
        RdmaSocketChannel client = new RdmaSocketChannel();
        try {
            group.register(server).sync();
            group.register(client).sync();
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
        assertTrue(server.closeFuture().isDone(), "the server channel is closed with its loop");
        assertTrue(client.closeFuture().isDone(), "the channel is closed with its loop");
        assertFalse(server.isOpen() || client.isOpen());
    }

    @Test
    void aLoopOfNeitherRdmaIoHandlerNorEpollIsRefused() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            ChannelFuture registered = group.register(new RdmaSocketChannel()).await();
            assertFalse(registered.isSuccess());
            assertInstanceOf(IllegalStateException.class, registered.cause());
            assertTrue(registered.cause().getMessage().contains("incompatible event loop"), registered.cause().getMessage());
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void aDescriptorLentToNettyIsNeverClosedByIt() throws Exception {
        FileDescriptor[] pipe = FileDescriptor.pipe();
        try {
            EpollRdmaLoop.BorrowedDescriptor lent = new EpollRdmaLoop.BorrowedDescriptor(pipe[1].intValue());
            lent.close();
            assertFalse(lent.isOpen(), "closed for Netty");
            ByteBuffer one = ByteBuffer.allocateDirect(1).put(0, (byte) 42);
            assertEquals(1, pipe[1].write(one, 0, 1), "the descriptor itself is still open");
            ByteBuffer in = ByteBuffer.allocateDirect(1);
            assertEquals(1, pipe[0].read(in, 0, 1));
            assertEquals(42, in.get(0));
        } finally {
            pipe[0].close();
            pipe[1].close();
        }
    }
}
