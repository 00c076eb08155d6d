package org.panamaverbs.bench.perftest;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * perftest 4.5's out-of-band exchange over TCP ("Data ex. method : Ethernet"), byte for byte (see
 * ../shared/reference/perftest-protocol.md and perftest's {@code perftest_communication.c}): every message is one
 * fixed-size write; in every exchange the client writes first and then reads, the server reads first and then
 * writes; a short read is an error. Every read is bounded by a timeout, so a silent or vanished peer becomes a
 * {@link PerftestException} naming what was awaited, not a hang.
 */
public final class PerftestWire implements AutoCloseable {
    /** What perftest 4.5 (Debian's 4.5+0.17) sends as its version. */
    public static final String VERSION = "6.06";
    /** perftest refuses peers older than this. */
    static final double OLDEST_COMPATIBLE_VERSION = 5.70;
    static final int VERSION_SIZE = 16;
    public static final int DEFAULT_PORT = 18515;
    private static final byte[] DONE = {'d', 'o', 'n', 'e', 0};

    private final Transport transport;
    private final boolean client;
    /** Over rdma_cm address records travel as perftest's binary {@code struct pingpong_dest}, and no "done" follows. */
    private final boolean rdmaCm;

    /** How the exchange's messages move: a TCP socket, or perftest's rdma_cm connection ({@link RdmaCmChannel}). */
    interface Transport extends AutoCloseable {
        /** Sends one message. */
        void send(String what, byte[] message);

        /** Receives exactly {@code into.length} bytes within {@code timeout}. */
        void receive(String what, byte[] into, Duration timeout);

        /** The peer, for messages. */
        String peer();

        @Override
        void close();
    }

    private PerftestWire(Transport transport, boolean client, boolean rdmaCm) {
        this.transport = transport;
        this.client = client;
        this.rdmaCm = rdmaCm;
    }

    /**
     * Server side: listens on {@code port} (all IPv4 addresses, as perftest does), accepts one client within
     * {@code timeout}, then closes the listener.
     */
    public static PerftestWire accept(int port, Duration timeout) {
        try (ServerSocket listener = new ServerSocket()) {
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress("0.0.0.0", port), 1);
            listener.setSoTimeout(millis(timeout));
            return new PerftestWire(new TcpTransport(listener.accept()), false, false);
        } catch (SocketTimeoutException e) {
            throw new PerftestException("no client connected to port " + port + " within " + timeout.toSeconds() + " s");
        } catch (IOException e) {
            throw new PerftestException("cannot listen on TCP port " + port + ": " + e.getMessage(), e);
        }
    }

    /** Client side: connects to the server within {@code timeout}. */
    public static PerftestWire connect(String host, int port, Duration timeout) {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(host, port), millis(timeout));
            return new PerftestWire(new TcpTransport(socket), true, false);
        } catch (IOException e) {
            closeQuietly(socket);
            throw new PerftestException("cannot connect to " + host + ":" + port + " (" + e.getMessage()
                    + "): is the server running and listening on that port?", e);
        }
    }

    /** Server side over rdma_cm ({@code -R}): accepts one client's exchange connection on {@code port}. */
    public static PerftestWire acceptRdmaCm(int port, Duration timeout) {
        return new PerftestWire(RdmaCmChannel.accept(port, timeout), false, true);
    }

    /** Client side over rdma_cm ({@code -R}). */
    public static PerftestWire connectRdmaCm(String host, int port, Duration timeout) {
        return new PerftestWire(RdmaCmChannel.connect(host, port, timeout), true, true);
    }

    /** Whether the exchange runs over rdma_cm ("Data ex. method : rdma_cm"). */
    public boolean isRdmaCm() {
        return rdmaCm;
    }

    /** Whether this is the client side (the one given a server address). */
    public boolean isClient() {
        return client;
    }

    /**
     * One exchange of equal-sized messages in perftest's order: the client sends and then receives, the
     * server receives and then sends.
     *
     * @param what    what is exchanged, for the error message
     * @param timeout how long to wait for the peer's message
     * @return the peer's message, exactly {@code mine.length} bytes
     */
    public byte[] exchange(String what, byte[] mine, Duration timeout) {
        byte[] theirs = new byte[mine.length];
        if (client) {
            transport.send(what, mine);
            transport.receive(what, theirs, timeout);
        } else {
            transport.receive(what, theirs, timeout);
            transport.send(what, mine);
        }
        return theirs;
    }

    /** Exchanges versions; refuses a peer perftest would refuse, or one that sends no version at all. */
    public String exchangeVersion(Duration timeout) {
        byte[] mine = new byte[VERSION_SIZE];
        byte[] ascii = VERSION.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(ascii, 0, mine, 0, ascii.length);
        byte[] theirs = exchange("version", mine, timeout);
        int end = 0;
        while (end < theirs.length && theirs[end] != 0) {
            end++;
        }
        String version = new String(theirs, 0, end, StandardCharsets.US_ASCII);
        double number;
        try {
            number = end == VERSION_SIZE ? Double.NaN : Double.parseDouble(version);
        } catch (NumberFormatException e) {
            number = Double.NaN;
        }
        if (Double.isNaN(number)) {
            throw new PerftestException("the peer did not send a perftest version (got \""
                    + version.replaceAll("[^\\x20-\\x7e]", "?") + "\"): is it a perftest tool?");
        }
        if (number < OLDEST_COMPATIBLE_VERSION) {
            throw new PerftestException("the peer runs perftest version " + version
                    + "; versions older than 5.70 are not compatible");
        }
        return version;
    }

    /** Exchanges a network-order int (cycle buffer, cache line size); returns the peer's. */
    public int exchangeInt(String what, int mine, Duration timeout) {
        return ByteBuffer.wrap(exchange(what, ByteBuffer.allocate(4).putInt(mine).array(), timeout)).getInt();
    }

    /** Exchanges a big-endian 8-byte value (a report field: u64 or IEEE-754 double bits). */
    public long exchangeLong(String what, long mine, Duration timeout) {
        return ByteBuffer.wrap(exchange(what, ByteBuffer.allocate(8).putLong(mine).array(), timeout)).getLong();
    }

    /**
     * Exchanges the {@code ibv_mtu} enum value as perftest does (one ASCII digit and a NUL); returns the peer's.
     *
     * @throws PerftestException if the peer's is not a valid {@code ibv_mtu} (1-5)
     */
    public int exchangeMtu(int mine, Duration timeout) {
        byte[] theirs = exchange("MTU", new byte[] {(byte) ('0' + mine), 0}, timeout);
        int code = theirs[0] - '0';
        if (theirs[1] != 0 || code < 1 || code > 5) {
            throw new PerftestException("the peer sent an invalid MTU code (bytes " + (theirs[0] & 0xff) + ", "
                    + (theirs[1] & 0xff) + "; expected an ibv_mtu digit 1-5 and a NUL)");
        }
        return code;
    }

    /** perftest's {@code ctx_hand_shake}: exchanges address records; also the barrier between phases. */
    public PeerAddress handshake(String what, PeerAddress mine, Duration timeout) {
        return rdmaCm ? PeerAddress.decodeBinary(exchange(what, mine.encodeBinary(), timeout))
                : PeerAddress.parse(exchange(what, mine.encode(), timeout));
    }

    /**
     * perftest's {@code ctx_close_connection}: a last handshake, then over TCP "done" and a NUL that nobody
     * reads, then the connection is closed.
     */
    public void closeConnection(PeerAddress mine, Duration timeout) {
        handshake("closing handshake", mine, timeout);
        if (!rdmaCm) {
            transport.send("done", DONE);
        }
        close();
    }

    @Override
    public void close() {
        transport.close();
    }

    /** The exchange over a TCP socket: fixed-size writes, reads of exactly the expected size. */
    private static final class TcpTransport implements Transport {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;
        private final String peer;

        TcpTransport(Socket socket) throws IOException {
            this.socket = socket;
            this.in = socket.getInputStream();
            this.out = socket.getOutputStream();
            this.peer = socket.getRemoteSocketAddress().toString();
            socket.setTcpNoDelay(true);
        }

        @Override
        public String peer() {
            return peer;
        }

        @Override
        public void send(String what, byte[] message) {
            try {
                out.write(message);
                out.flush();
            } catch (IOException e) {
                throw new PerftestException("cannot send the " + what + " to " + peer + ": " + e.getMessage(), e);
            }
        }

        @Override
        public void receive(String what, byte[] into, Duration timeout) {
            try {
                socket.setSoTimeout(millis(timeout));
                int at = 0;
                while (at < into.length) {
                    int n = in.read(into, at, into.length - at);
                    if (n < 0) {
                        throw new EOFException();
                    }
                    at += n;
                }
            } catch (SocketTimeoutException e) {
                throw new PerftestException("the peer " + peer + " sent no " + what + " within " + timeout.toSeconds()
                        + " s (is it out of step, or a different test?)");
            } catch (EOFException e) {
                throw new PerftestException("the peer " + peer + " closed the connection before sending the " + what
                        + " (" + into.length + " bytes expected)");
            } catch (IOException e) {
                throw new PerftestException("cannot read the " + what + " from " + peer + ": " + e.getMessage(), e);
            }
        }

        @Override
        public void close() {
            closeQuietly(socket);
        }
    }

    private static int millis(Duration timeout) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing to do: the connect already failed
        }
    }
}
