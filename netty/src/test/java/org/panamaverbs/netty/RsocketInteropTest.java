package org.panamaverbs.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The transport against librdmacm's own rsockets, in both directions: C {@code rstream} (rdmacm-utils) as client
 * of a Java echo server and as server of a Java client, with rstream's data verification on ({@code -T v}) and the
 * bytes compared on the Java side too; and an unchanged C socket program, {@code curl}, run under
 * {@code LD_PRELOAD=librspreload.so} against a Java HTTP server, the file it saved compared byte for byte.
 */
@Tag(DeviceTest.CI)
class RsocketInteropTest extends DeviceTest {



    static String tool(String name) {
        for (String dir : List.of("/usr/bin", "/usr/local/bin", "/bin")) {
            if (Files.isExecutable(Path.of(dir, name))) {
                return dir + "/" + name;
            }
        }
        requireTool(false, name + " is not installed (Debian: apt-get install rdmacm-utils curl)");
        return null;
    }

    static String preloadLibrary() {
        for (String path : List.of("/usr/lib/x86_64-linux-gnu/rsocket/librspreload.so",
                "/usr/lib/aarch64-linux-gnu/rsocket/librspreload.so", "/usr/lib64/rsocket/librspreload.so",
                "/usr/lib/rsocket/librspreload.so")) {
            if (Files.exists(Path.of(path))) {
                return path;
            }
        }
        requireTool(false, "librspreload.so is not installed (Debian: librdmacm1, rsocket/ directory)");
        return null;
    }

    @Test
    void rstreamClientAgainstAJavaEchoServer() throws Exception {
        String rstream = tool("rstream");
        Channel server = new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class)
                .childHandler(new Echo.Server(false)).bind(new InetSocketAddress(address, 0)).sync().channel();
        try {
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            // count x size: small messages (credits), a 64 KiB transfer, and a size that is not a power of two
            for (String[] run : new String[][] {{"1", "1000"}, {"4096", "200"}, {"65536", "20"}, {"1000000", "3"}}) {
                try (PeerProcess client = PeerProcess.program(Map.of(), "stdbuf", "-oL", rstream, "-s",
                        address.getHostAddress(), "-p", Integer.toString(port), "-S", run[0], "-C", run[1], "-T", "v")) {
                    int exit = client.awaitExit(300);
                    assertEquals(0, exit, "rstream -S " + run[0] + " -C " + run[1] + " (verifying): " + client.output());
                    assertEquals(0, client.output().stream().filter(l -> l.contains("verification failed")).count());
                }
            }
        } finally {
            server.close().sync();
        }
    }

    @Test
    void javaClientAgainstAnRstreamServer() throws Exception {
        String rstream = tool("rstream");
        int port = 17000 + (int) (ProcessHandle.current().pid() % 1000);
        int size = 100_000;
        int count = 10;
        try (PeerProcess server = PeerProcess.program(Map.of(), "stdbuf", "-oL", rstream, "-b", address.getHostAddress(), "-p",
                Integer.toString(port), "-S", Integer.toString(size), "-C", Integer.toString(count), "-T", "v")) {
            server.awaitLine("name", 60); // the table header (line-buffered by stdbuf): rstream is listening
            // rstream's exchange: 16 bytes each way to synchronize, then count x size to the server and back.
            // With -T v both directions carry one counter mod 256 and each side verifies what it receives.
            long total = 16 + (long) size * count;
            Echo.Collector collector = new Echo.Collector(total);
            Channel client = new Bootstrap().group(group).channel(RdmaSocketChannel.class).handler(collector)
                    .connect(new InetSocketAddress(address, port)).sync().channel();
            try {
                client.writeAndFlush(Unpooled.wrappedBuffer(Echo.pattern(0, 16))).sync();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (collector.size() < 16 && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                assertEquals(16, collector.size(), "rstream's 16 synchronization bytes");
                for (int t = 0; t < count; t++) {
                    client.write(Unpooled.wrappedBuffer(Echo.pattern(16 + (long) t * size, size)));
                }
                client.flush();
                byte[] received = collector.done.get(300, TimeUnit.SECONDS);
                assertArrayEquals(Echo.pattern(0, (int) total), received, "rstream's bytes, as it sent them");
                assertEquals(0, server.awaitExit(120), "rstream verified our bytes: " + server.output());
            } finally {
                client.close().sync();
            }
        }
    }

    @Test
    void curlUnderLdPreloadFetchesFromAJavaHttpServer() throws Exception {
        String curl = tool("curl");
        String preload = preloadLibrary();
        Channel server = new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20),
                                new Peers.HttpBytes());
                    }
                }).bind(new InetSocketAddress(address, 0)).sync().channel();
        File saved = File.createTempFile("curl-rsocket", ".bin");
        try {
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            int size = 3 << 20;
            String url = "http://" + address.getHostAddress() + ":" + port + "/bytes/" + size;
            try (PeerProcess fetch = PeerProcess.program(Map.of("LD_PRELOAD", preload), curl, "-sS", "--fail",
                    "--max-time", "120", "-o", saved.getPath(), url)) {
                assertEquals(0, fetch.awaitExit(180), "curl " + url + ": " + fetch.output());
            }
            assertArrayEquals(Echo.pattern(0, size), Files.readAllBytes(saved.toPath()), "the page curl saved");
        } finally {
            saved.delete();
            server.close().sync();
        }
    }
}
