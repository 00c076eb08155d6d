package org.panamaverbs.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The transport against librdmacm's own rsockets, in both directions: C {@code rstream} (rdmacm-utils) as client
 * of a Java echo server and as server of a Java client, with rstream's data verification on ({@code -T v}) and the
 * bytes compared on the Java side too; C {@code rcopy} copying a file to a Java server that speaks rcopy's protocol,
 * and a Java client copying one to C {@code rcopy}'s server, the files compared; C {@code riostream} (rsocket's
 * {@code riomap}/{@code riowrite}: RDMA writes straight into a region the peer mapped) against a Java peer playing
 * its exchange with {@link RdmaMappedRegion} and {@link RdmaDirectWrite}, as client and as server, the bytes checked
 * by both sides; a Java client without an iomap table ({@link RdmaChannelOption#IOMAP_SIZE} 0, the default, as in
 * rsocket), which a {@code riostream} server refuses at {@code riomap}; and an unchanged
 * C socket program, {@code curl}, run under {@code LD_PRELOAD=librspreload.so} against a Java HTTP server, the file it
 * saved compared byte for byte.
 */
@Tag(DeviceTest.CI)
class RsocketInteropDeviceTest extends DeviceTest {
    /** The files rcopy copies: some MiB and an odd tail, random. */
    private static final int RCOPY_BYTES = (4 << 20) + 12345;
    static String tool(String name) {
        // PATH first: an rdma-core build tree's own tools (scripts/rdma-core-versions puts its bin/ there), then the system's
        List<String> dirs = new java.util.ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
        dirs.addAll(List.of("/usr/bin", "/usr/local/bin", "/bin"));
        for (String dir : dirs) {
            if (dir.isEmpty()) {
                continue;
            }
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
                assertEquals(16, collector.awaitSize(16, 60), "rstream's 16 synchronization bytes");
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
    void riostreamClientAndAJavaServerWriteIntoEachOthersMappedRegions() throws Exception {
        String riostream = tool("riostream");
        try (CollectingServer server = CollectingServer.start(1)) {
            // size x count: riowrite's inline path and one transfer; then 2 KiB doubling to 64 KiB, an odd tail
            for (int[] run : new int[][] {{64, 50}, {100_000, 5}}) {
                // -T b: blocking calls (riostream still spins on the marker byte); -T v: it checks our bytes
                try (PeerProcess client = PeerProcess.program(Map.of(), "stdbuf", "-oL", riostream, "-s",
                        address.getHostAddress(), "-p", Integer.toString(server.port()), "-S", Integer.toString(run[0]),
                        "-C", Integer.toString(run[1]), "-T", "b", "-T", "v")) {
                    CollectingServer.Child child = server.take(client.describe());
                    try {
                        int checked = new Riostream(child.channel(), child.stream(), false, run[0], run[1]).run();
                        assertEquals(run[0] - 1, checked);
                        assertEquals(0, client.awaitExit(120), "riostream -S " + run[0] + " -C " + run[1]
                                + " verified our bytes: " + client.output());
                    } finally {
                        child.channel().close().sync();
                    }
                }
            }
        }
    }

    @Test
    void javaClientAndAnRiostreamServerWriteIntoEachOthersMappedRegions() throws Exception {
        String riostream = tool("riostream");
        int port = 19000 + (int) (ProcessHandle.current().pid() % 1000);
        int size = 100_000;
        int count = 5;
        try (PeerProcess server = PeerProcess.program(Map.of(), "stdbuf", "-oL", riostream, "-b", address.getHostAddress(),
                "-p", Integer.toString(port), "-S", Integer.toString(size), "-C", Integer.toString(count), "-T", "b",
                "-T", "v")) {
            server.awaitLine("name", 60); // the table header: riostream is listening
            Echo.Collector stream = new Echo.Collector(Long.MAX_VALUE);
            RdmaSocketChannel client = (RdmaSocketChannel) new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                    .option(RdmaChannelOption.IOMAP_SIZE, 1).option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 120_000)
                    .handler(stream).connect(new InetSocketAddress(address, port)).sync().channel();
            try {
                assertEquals(size - 1, new Riostream(client, stream, true, size, count).run());
                assertEquals(0, server.awaitExit(120), "riostream verified our bytes: " + server.output());
            } finally {
                client.close().sync();
            }
        }
    }

    @Test
    void javaClientWithoutAnIomapTableIsRefusedByRiostreamAtRiomap() throws Exception {
        String riostream = tool("riostream");
        int port = 18000 + (int) (ProcessHandle.current().pid() % 1000);
        // one custom test (-S/-C/-I: the server serves one connection and exits), blocking calls (-T b: no spinning)
        try (PeerProcess server = PeerProcess.program(Map.of(), "stdbuf", "-oL", riostream, "-b", address.getHostAddress(),
                "-p", Integer.toString(port), "-S", "4096", "-C", "1", "-I", "1", "-T", "b")) {
            server.awaitLine("name", 60); // the table header: riostream is listening
            Echo.Collector collector = new Echo.Collector(Long.MAX_VALUE);
            long started = System.nanoTime();
            // a first connect in a cold JVM under emulation can take longer than the default 30 s
            ChannelFuture connect = new Bootstrap().group(group).channel(RdmaSocketChannel.class).handler(collector)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 120_000)
                    .connect(new InetSocketAddress(address, port)).await();
            // riostream's run_test begins with riomap, which needs an iomap table in its peer's connection data (none
            // by default, IOMAP_SIZE 0, as in rsocket): it fails with ENOMEM at once, and riostream closes the connection (rshutdown,
            // rclose) and exits with run_test's -1. The close can reach us before our side of the handshake is done
            // (then the connect fails) or after it (then the channel ends): either way nothing is sent, nothing hangs.
            String outcome;
            if (connect.isSuccess()) {
                Channel client = connect.channel();
                // riostream's 16 synchronization bytes: never read by it, not awaited (the close may come first)
                client.writeAndFlush(Unpooled.wrappedBuffer(Echo.pattern(0, 16)));
                try {
                    collector.inactive.get(60, TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    client.close();
                    throw new AssertionError("still open 60 s after riostream's riomap failed: "
                            + ((RdmaSocketChannel) client).describeState() + "; riostream " + server.describe(), e);
                }
                assertEquals(0, collector.size(), "riostream sends nothing before its riomap");
                Throwable failure = collector.failure.getNow(null);
                assertTrue(failure == null || failure instanceof java.io.IOException, "the end of the connection: " + failure);
                outcome = "connected, then closed by riostream (" + (failure == null ? "in order" : failure.getMessage()) + ")";
            } else {
                assertInstanceOf(ConnectException.class, connect.cause(), "riostream closed during the handshake");
                outcome = "the connect failed: " + connect.cause().getMessage();
            }
            System.out.println("riostream server: " + outcome + ", after "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + " ms");
            int exit = server.awaitExit(60);
            assertEquals(255, exit, "riostream ends with run_test's -1: " + server.output());
            assertTrue(server.output().stream().anyMatch(l -> l.startsWith("riomap: Cannot allocate memory")),
                    "riostream's riomap found no iomap entry of ours (ENOMEM): " + server.output());
        }
    }

    @Test
    void rcopyClientCopiesAFileToAJavaServer() throws Exception {
        String rcopy = tool("rcopy");
        Rcopy.Server protocol = new Rcopy.Server();
        Channel server = new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class)
                .childHandler(protocol).bind(new InetSocketAddress(address, 0)).sync().channel();
        Path source = scratchFile("rcopy-source");
        Path destination = scratchFile("rcopy-destination");
        try {
            byte[] bytes = randomBytes(RCOPY_BYTES);
            Files.write(source, bytes);
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            try (PeerProcess copy = PeerProcess.program(Map.of(), rcopy, source.toString(),
                    address.getHostAddress() + ":" + destination, "-p", Integer.toString(port))) {
                assertEquals(0, copy.awaitExit(180), "rcopy " + source + " to the Java server: " + copy.output());
            }
            assertEquals(destination, protocol.copied.get(10, TimeUnit.SECONDS), "the path rcopy sent");
            assertArrayEquals(bytes, Files.readAllBytes(destination), "the file the Java server wrote from rcopy's bytes");
        } finally {
            Files.deleteIfExists(source);
            Files.deleteIfExists(destination);
            server.close().sync();
        }
    }

    @Test
    void javaClientCopiesAFileToAnRcopyServer() throws Exception {
        String rcopy = tool("rcopy");
        int port = 19000 + (int) (ProcessHandle.current().pid() % 1000);
        Path destination = scratchFile("rcopy-written-by-c");
        try (PeerProcess server = PeerProcess.program(Map.of(), rcopy, "-p", Integer.toString(port))) {
            byte[] bytes = randomBytes(RCOPY_BYTES);
            Channel client = connectWhenListening(new InetSocketAddress(address, port), server);
            Echo.Collector responses = client.pipeline().get(Echo.Collector.class);
            try {
                client.writeAndFlush(Rcopy.open(destination.toString(), 0644)).sync();
                Rcopy.checkResponse(awaitBytes(responses, Rcopy.HEADER), 0, Rcopy.OPEN);
                client.write(Rcopy.write(bytes.length));
                client.writeAndFlush(Unpooled.wrappedBuffer(bytes)).sync();
                Rcopy.checkResponse(awaitBytes(responses, 2 * Rcopy.HEADER), Rcopy.HEADER, Rcopy.WRITE);
                client.writeAndFlush(Rcopy.close()).sync();
                Rcopy.checkResponse(awaitBytes(responses, 3 * Rcopy.HEADER), 2 * Rcopy.HEADER, Rcopy.CLOSE);
            } finally {
                client.close().sync();
            }
            assertArrayEquals(bytes, Files.readAllBytes(destination), "the file rcopy's server wrote from our bytes");
            server.kill(); // it waits for the next client
        } finally {
            Files.deleteIfExists(destination);
        }
    }

    /**
     * Connects once {@code server} listens, with an {@link Echo.Collector} of its own in the pipeline: rcopy's server
     * says "waiting for connection..." without a newline, so the client tries again while the connection is refused
     * (at once when nothing listens).
     */
    private static Channel connectWhenListening(InetSocketAddress target, PeerProcess server) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            ChannelFuture connect = new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                    .handler(new Echo.Collector(Long.MAX_VALUE)).connect(target).await();
            if (connect.isSuccess()) {
                return connect.channel();
            }
            if (!(connect.cause() instanceof ConnectException) || System.nanoTime() > deadline) {
                throw new AssertionError("cannot connect to rcopy's server at " + target + ": " + server.output(),
                        connect.cause());
            }
            Thread.sleep(100);
        }
    }

    /** Waits until {@code collector} has {@code count} bytes (failing after a minute); returns what it has. */
    private static byte[] awaitBytes(Echo.Collector collector, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (collector.size() < count && System.nanoTime() < deadline && !collector.inactive.isDone()) {
            Thread.sleep(5);
        }
        synchronized (collector.received) {
            byte[] bytes = collector.received.toByteArray();
            assertTrue(bytes.length >= count, "the peer answered " + bytes.length + " of " + count + " bytes");
            return bytes;
        }
    }

    private static byte[] randomBytes(int count) {
        byte[] bytes = new byte[count];
        new Random(count).nextBytes(bytes);
        return bytes;
    }

    /**
     * A new file in the directory of {@code TMPDIR} if set (the project's guest points it at a tmpfs: rcopy's server
     * maps the file it writes shared and writable, which a 9p mount may refuse), else in the JVM's temporary directory.
     */
    private static Path scratchFile(String prefix) throws java.io.IOException {
        String tmpdir = System.getenv("TMPDIR");
        return tmpdir != null && !tmpdir.isBlank() ? Files.createTempFile(Path.of(tmpdir), prefix, ".bin")
                : Files.createTempFile(prefix, ".bin");
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
