package org.panamaverbs.bench.nio;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.Locale;

import org.HdrHistogram.Histogram;
import org.panamaverbs.bench.JitWarmUp;

/**
 * NettyBench's stream exchange (C {@code rstream}'s) as a plain blocking java.nio program, so that the same code
 * runs over TCP on the JDK's default provider or over RDMA on panama-verbs-nio by the system property
 * {@code java.nio.channels.spi.SelectorProvider} alone (bench/compare-nio runs both, alternating with the Netty
 * transport and rstream; see docs/benchmarks/nio.md).
 *
 * <pre>
 * NioBench server ADDRESS PORT                          the exchange's server on PORT, until standard input closes
 * NioBench stream ADDRESS PORT SIZE COUNT ITERATIONS    one client: NettyBench stream's exchange, warm-up and line
 * </pre>
 *
 * The exchange: a 12-byte header (size, count, iterations), 16 bytes each way to start, then per iteration COUNT
 * writes of SIZE bytes to the server and COUNT x SIZE bytes back ({@code -C 1} is a ping-pong). The client's warm-up
 * and its system properties ({@code warmup}, {@code settle}, {@code runs}) are NettyBench's, and so is its CSV line,
 * {@code stream,TRANSPORT,size,count,iterations,seconds,gbps,usec_per_xfer,p50_us,p90_us,p99_us}, where TRANSPORT is
 * {@code rdma} on panama-verbs-nio's provider and {@code tcp} on any other (the script refuses the provider's TCP
 * fallback, so {@code rdma} is RDMA there). The first line either mode prints names the provider in use. Each side
 * uses direct buffers made once per connection and reused, blocking channels and {@code TCP_NODELAY} (as Netty
 * sets it), so a transfer allocates nothing.
 */
public final class NioBench {
    /** The provider whose channels are RDMA; any other is taken for the JDK's TCP. */
    private static final String RDMA_PROVIDER = "org.panamaverbs.nio.RsocketSelectorProvider";

    private static final int HEADER_BYTES = 12;
    private static final int SYNC_BYTES = 16;

    private NioBench() {
    }

    public static void main(String[] args) throws Exception {
        SelectorProvider provider = SelectorProvider.provider();
        System.out.println("provider: " + provider.getClass().getName());
        String mode = args[0];
        InetSocketAddress address = new InetSocketAddress(InetAddress.getByName(args[1]), Integer.parseInt(args[2]));
        switch (mode) {
            case "server" -> serve(provider, address);
            case "stream" -> stream(provider, address, Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                    Integer.parseInt(args[5]));
            default -> throw new IllegalArgumentException("mode is server or stream, not " + mode);
        }
        System.exit(0);
    }

    private static String transport(SelectorProvider provider) {
        return provider.getClass().getName().equals(RDMA_PROVIDER) ? "rdma" : "tcp";
    }

    private static void serve(SelectorProvider provider, InetSocketAddress address) throws Exception {
        ServerSocketChannel listener = provider.openServerSocketChannel();
        listener.bind(address);
        Thread acceptor = new Thread(() -> acceptAll(listener), "accept");
        acceptor.setDaemon(true); // ends with the JVM when standard input closes
        acceptor.start();
        System.out.println("ready");
        System.out.flush();
        // until the script closes our standard input
        while (System.in.read() >= 0) {
            // nothing to read
        }
        listener.close();
    }

    /** A thread per connection: the script's clients come one at a time, but a failed one must not block the next. */
    private static void acceptAll(ServerSocketChannel listener) {
        while (listener.isOpen()) {
            try {
                SocketChannel connection = listener.accept();
                Thread server = new Thread(() -> serveConnection(connection), "stream-server");
                server.setDaemon(true);
                server.start();
            } catch (IOException e) {
                if (listener.isOpen()) {
                    e.printStackTrace();
                }
            }
        }
    }

    /** rstream's server side: header, 16 bytes in and out, then per iteration COUNT x SIZE in, then out. */
    private static void serveConnection(SocketChannel connection) {
        try (connection) {
            connection.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ByteBuffer header = ByteBuffer.allocateDirect(HEADER_BYTES);
            readFully(connection, header);
            header.flip();
            int size = header.getInt();
            int count = header.getInt();
            int iterations = header.getInt();
            ByteBuffer in = ByteBuffer.allocateDirect(Math.max(SYNC_BYTES, size));
            ByteBuffer payload = ByteBuffer.allocateDirect(size);
            ByteBuffer sync = ByteBuffer.allocateDirect(SYNC_BYTES);
            receive(connection, in, SYNC_BYTES);
            writeFully(connection, sync);
            long perIteration = (long) size * count;
            for (int i = 0; i < iterations; i++) {
                receive(connection, in, perIteration);
                for (int t = 0; t < count; t++) {
                    payload.clear();
                    writeFully(connection, payload);
                }
            }
        } catch (IOException e) {
            e.printStackTrace();
        }
    }

    private static void stream(SelectorProvider provider, InetSocketAddress server, int size, int count,
            int iterations) throws Exception {
        StreamClient client = new StreamClient(provider, server, size, count);
        // as long as the measured exchange, as NettyBench's: a shorter one leaves paths to the JIT that it then
        // compiles during the measured run (docs/benchmarks/netty.md)
        int warmUpIterations = Integer.getInteger("warmup", Math.max(10, iterations));
        JitWarmUp.warmUp(() -> client.exchange(warmUpIterations));
        String transport = transport(provider);
        for (int run = Integer.getInteger("runs", 1); run > 0; run--) { // each measured on a connection of its own
            long before = JitWarmUp.compilationMillis();
            long nanos = client.exchange(iterations);
            report(transport, size, count, iterations, nanos, client.roundTrips);
            System.err.printf(Locale.ROOT, "measured run: %d ms of compiling%n",
                    JitWarmUp.compilationMillis() - before);
        }
    }


    private static void report(String transport, int size, int count, int iterations, long nanos, Histogram h) {
        long bytes = (long) iterations * count * size * 2;
        double usec = nanos / 1000.0;
        System.out.printf(Locale.ROOT, "stream,%s,%d,%d,%d,%.3f,%.3f,%.2f,%.1f,%.1f,%.1f%n", transport,
                size, count, iterations, usec / 1e6, bytes * 8 / (1000.0 * usec), usec / iterations / (count * 2.0),
                h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(90) / 1000.0,
                h.getValueAtPercentile(99) / 1000.0);
    }

    /** rstream's client side, timed as rstream times it (after the 16-byte synchronisation); its buffers serve every exchange. */
    private static final class StreamClient {
        final Histogram roundTrips = new Histogram(3_600_000_000_000L, 3);
        private final SelectorProvider provider;
        private final InetSocketAddress server;
        private final int size;
        private final int count;
        private final ByteBuffer header = ByteBuffer.allocateDirect(HEADER_BYTES);
        private final ByteBuffer sync = ByteBuffer.allocateDirect(SYNC_BYTES);
        private final ByteBuffer payload;
        private final ByteBuffer in;

        StreamClient(SelectorProvider provider, InetSocketAddress server, int size, int count) {
            this.provider = provider;
            this.server = server;
            this.size = size;
            this.count = count;
            this.payload = ByteBuffer.allocateDirect(size);
            this.in = ByteBuffer.allocateDirect(Math.max(SYNC_BYTES, size));
        }

        /** One connection running the exchange to its end; returns the nanoseconds from the synchronisation on. */
        long exchange(int iterations) throws IOException {
            roundTrips.reset();
            try (SocketChannel channel = provider.openSocketChannel()) {
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                channel.connect(server);
                header.clear();
                header.putInt(size).putInt(count).putInt(iterations).flip();
                writeFully(channel, header);
                sync.clear();
                writeFully(channel, sync);
                receive(channel, in, SYNC_BYTES);
                long perIteration = (long) size * count;
                long start = System.nanoTime(); // synchronised: rstream's gettimeofday(&start)
                for (int i = 0; i < iterations; i++) {
                    long iterationStart = System.nanoTime();
                    for (int t = 0; t < count; t++) {
                        payload.clear();
                        writeFully(channel, payload);
                    }
                    receive(channel, in, perIteration);
                    roundTrips.recordValue(System.nanoTime() - iterationStart);
                }
                return System.nanoTime() - start;
            }
        }
    }

    /** Reads exactly {@code bytes} through {@code buffer} (at most its capacity a read), discarding them. */
    private static void receive(SocketChannel channel, ByteBuffer buffer, long bytes) throws IOException {
        long left = bytes;
        while (left > 0) {
            buffer.clear();
            buffer.limit((int) Math.min(left, buffer.capacity()));
            int read = channel.read(buffer);
            if (read < 0) {
                throw new EOFException("the peer closed the connection " + left + " bytes before the end");
            }
            left -= read;
        }
    }

    private static void readFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                throw new EOFException("the peer closed the connection " + buffer.remaining() + " bytes early");
            }
        }
    }

    private static void writeFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }
}
