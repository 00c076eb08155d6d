package org.panamaverbs.netty;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.net.InetSocketAddress;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;

/**
 * A transport server on the test device ({@link DeviceTest#address}, its loops) whose children accept
 * {@code iomapSize} mapped regions of their peer and collect their stream; each accepted child queues up with its
 * collector for the test to take.
 */
record CollectingServer(Channel channel, LinkedBlockingQueue<CollectingServer.Child> children) implements AutoCloseable {

    /** An accepted channel and what arrives in its stream. */
    record Child(RdmaSocketChannel channel, Echo.Collector stream) {
    }

    static CollectingServer start(int iomapSize) throws InterruptedException {
        LinkedBlockingQueue<Child> children = new LinkedBlockingQueue<>();
        Channel channel = new ServerBootstrap().group(DeviceTest.group).channel(RdmaServerSocketChannel.class)
                .childOption(RdmaChannelOption.IOMAP_SIZE, iomapSize)
                .childHandler(new ChannelInitializer<RdmaSocketChannel>() {
                    @Override
                    protected void initChannel(RdmaSocketChannel child) {
                        Echo.Collector stream = new Echo.Collector(Long.MAX_VALUE);
                        child.pipeline().addLast(stream);
                        children.add(new Child(child, stream));
                    }
                }).bind(new InetSocketAddress(DeviceTest.address, 0)).sync().channel();
        return new CollectingServer(channel, children);
    }

    int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    /** The next accepted child, waiting up to 120 s ({@code peer} says who should have connected, for the message). */
    Child take(Object peer) throws InterruptedException {
        Child child = children.poll(120, TimeUnit.SECONDS);
        assertNotNull(child, "no connection within 120 s: " + peer);
        return child;
    }

    /** A Java client of this server with {@code iomapSize} table entries, its stream into {@code stream}. */
    RdmaSocketChannel connect(int iomapSize, Echo.Collector stream) throws InterruptedException {
        return (RdmaSocketChannel) new Bootstrap().group(DeviceTest.group).channel(RdmaSocketChannel.class)
                .option(RdmaChannelOption.IOMAP_SIZE, iomapSize).handler(stream).connect(channel.localAddress())
                .sync().channel();
    }

    @Override
    public void close() throws InterruptedException {
        channel.close().sync();
    }
}
