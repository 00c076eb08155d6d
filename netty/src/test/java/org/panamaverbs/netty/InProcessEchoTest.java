package org.panamaverbs.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Server and client of the transport in one JVM on the device (loopback through rxe): the quick check. */
class InProcessEchoTest extends DeviceTest {
    static Channel server;

    @BeforeAll
    static void start() throws Exception {
        server = new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class)
                .childHandler(new Echo.Server()).bind(new InetSocketAddress(address, 0)).sync().channel();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close().sync();
        }
    }

    @Test
    void echoesAMebibyteByteForByte() throws Exception {
        byte[] sent = Echo.pattern(0, 1 << 20);
        Echo.Collector collector = new Echo.Collector(sent.length);
        Channel client = new Bootstrap().group(group).channel(RdmaSocketChannel.class).handler(collector)
                .connect(server.localAddress()).sync().channel();
        try {
            client.writeAndFlush(Unpooled.wrappedBuffer(sent)).sync();
            assertArrayEquals(sent, collector.done.get(60, TimeUnit.SECONDS));
        } finally {
            client.close().sync();
        }
    }

    @Test
    void connectingToAPortWithoutListenerFailsAtOnce() {
        var future = new Bootstrap().group(group).channel(RdmaSocketChannel.class).handler(new Echo.Server())
                .connect(new InetSocketAddress(address, 1));
        long start = System.nanoTime();
        var e = assertThrows(ExecutionException.class, () -> future.get(10, TimeUnit.SECONDS));
        org.junit.jupiter.api.Assertions.assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5),
                "refused at once, not after a timeout");
        assertInstanceOf(ConnectException.class, e.getCause());
    }
}
