package org.panamaverbs.bench.perftest;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.panamaverbs.verbs.DeviceAttributes;

/**
 * perftest's out-of-band exchange over TCP ("Data ex. method : Ethernet"), byte for byte (see
 * docs/perftest-protocol.md and perftest's {@code perftest_communication.c}): every message is one fixed-size write;
 * in every exchange the client writes first and then reads, the server reads first and then writes; a short read is
 * an error. Every read is bounded by a timeout, so a silent or vanished peer becomes a {@link PerftestException}
 * naming what was awaited, not a hang. After the version exchange the wire speaks the peer's release's dialect
 * ({@link PerftestRelease}): the parameter negotiation of 26.01 and later, the binary address record of 26.04 over
 * rdma_cm, "done" at the close before 23.10; and every error names the peer's release.
 */
public final class PerftestWire implements AutoCloseable {
    /** The version the Java tools send: perftest 26.04's, whose exchange they speak (and every older one's). */
    public static final String VERSION = PerftestRelease.NEWEST_KNOWN_VERSION;
    static final int VERSION_SIZE = 16;
    /**
     * How long a parameter negotiation record's last 8 bytes may trail its first 312 over TCP: perftest writes the
     * record in one write, so they come together; a build without mlx5 direct verbs sends no more.
     */
    static final Duration NEGOTIATION_GRACE = Duration.ofSeconds(1);
    public static final int DEFAULT_PORT = 18515;
    private static final byte[] DONE = {'d', 'o', 'n', 'e', 0};

    private final Transport transport;
    private final boolean client;
    /** Over rdma_cm address records travel as perftest's binary {@code struct pingpong_dest}, and no "done" follows. */
    private final boolean rdmaCm;
    /** The peer's release, once {@link #exchangeVersion} ran. */
    private PerftestRelease peerRelease;
    /** Whether the address records carry the tail markers ({@code --data_validation}, see {@link #validating}). */
    private boolean validating;

    /** How the exchange's messages move: a TCP socket, or perftest's rdma_cm connection ({@link RdmaCmChannel}). */
    interface Transport extends AutoCloseable {
        /** Sends one message. */
        void send(String what, byte[] message);

        /** Receives exactly {@code into.length} bytes within {@code timeout}. */
        void receive(String what, byte[] into, Duration timeout);

        /**
         * Receives one message of {@code shortest} to {@code into.length} bytes within {@code timeout}, the peer's
         * single write; over TCP the bytes after the first {@code shortest} must follow within {@code grace}.
         *
         * @return the message's length
         * @throws PerftestException if the peer sends less than {@code shortest} bytes or more than {@code into.length}
         */
        int receiveRecord(String what, byte[] into, int shortest, Duration timeout, Duration grace);

        /** The peer, for messages. */
        String peer();

        /** Adds the peer's release to {@link #peer()}, once known. */
        void namePeer(String release);

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
        return accept(port, false, timeout);
    }

    /** As {@link #accept(int, Duration)}; with {@code ipv6} ({@code --ipv6-addr}) on every IPv6 (and IPv4) address. */
    public static PerftestWire accept(int port, boolean ipv6, Duration timeout) {
        try (ServerSocket listener = new ServerSocket()) {
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress(ipv6 ? "::" : "0.0.0.0", port), 1);
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
        return connect(host, port, false, null, timeout);
    }

    /**
     * As {@link #connect(String, int, Duration)}, to the server's IPv6 address with {@code ipv6} ({@code --ipv6-addr})
     * and from {@code source} when not null ({@code --bind_source_ip}).
     */
    public static PerftestWire connect(String host, int port, boolean ipv6, InetAddress source, Duration timeout) {
        Socket socket = new Socket();
        try {
            if (source != null) {
                socket.bind(new InetSocketAddress(source, 0));
            }
            socket.connect(new InetSocketAddress(serverAddress(host, ipv6), port), millis(timeout));
            return new PerftestWire(new TcpTransport(socket), true, false);
        } catch (IOException e) {
            closeQuietly(socket);
            throw new PerftestException("cannot connect to " + host + ":" + port + " (" + e.getMessage()
                    + "): is the server running and listening on that port?", e);
        }
    }

    /** Server side over rdma_cm ({@code -R}, {@code -z}): accepts one client's exchange connection on {@code port}. */
    static PerftestWire acceptRdmaCm(int port, boolean ipv6, CmIdTuning tuning, Duration timeout) {
        return new PerftestWire(RdmaCmChannel.accept(new InetSocketAddress(ipv6 ? "::" : "0.0.0.0", port), tuning,
                timeout), false, true);
    }

    /** Client side over rdma_cm ({@code -R}, {@code -z}), from {@code source} when not null. */
    static PerftestWire connectRdmaCm(String host, int port, boolean ipv6, InetAddress source, CmIdTuning tuning,
            Duration timeout) {
        return new PerftestWire(RdmaCmChannel.connect(new InetSocketAddress(serverAddress(host, ipv6), port), source,
                tuning, timeout), true, true);
    }

    /** {@code host} resolved as perftest's getaddrinfo does with {@code ai_family} AF_INET, or AF_INET6 with {@code ipv6}. */
    static InetAddress serverAddress(String host, boolean ipv6) {
        try {
            for (InetAddress a : InetAddress.getAllByName(host)) {
                if ((a instanceof Inet6Address) == ipv6) {
                    return a;
                }
            }
        } catch (UnknownHostException e) {
            throw new PerftestException("cannot resolve the server " + host + ": " + e.getMessage(), e);
        }
        throw new PerftestException("the server " + host + " has no " + (ipv6 ? "IPv6" : "IPv4") + " address"
                + (ipv6 ? "" : " (--ipv6-addr exchanges over IPv6)"));
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

    /**
     * Exchanges versions; refuses a peer perftest would refuse, or one that sends no version at all. From here on the
     * wire speaks the peer's release's dialect and names the release in its errors.
     */
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
        PerftestRelease release = end == VERSION_SIZE ? null : PerftestRelease.of(version);
        if (release == null) {
            throw new PerftestException("the peer did not send a perftest version (got \""
                    + version.replaceAll("[^\\x20-\\x7e]", "?") + "\"): is it a perftest tool?");
        }
        if (release.isTooOld()) {
            throw new PerftestException("the peer runs " + release.describe()
                    + "; versions older than 5.70 are not compatible (perftest refuses them too): upgrade it");
        }
        peerRelease = release;
        transport.namePeer(release.describe());
        return version;
    }

    /** The peer's release, from {@link #exchangeVersion}; null before it. */
    PerftestRelease peerRelease() {
        return peerRelease;
    }

    /**
     * perftest 26.01's {@code negotiate_params}, when the peer's release runs it (26.01 and later; nothing is sent to
     * an older one): one record each way in the usual order. This side's record is {@code recordSize} bytes (320, or
     * 312 for a perftest built without mlx5 direct verbs; null: a client sends 320 and a server answers with the
     * client's size). Over TCP the sizes must agree, since perftest reads the record with one {@code read} of its own
     * size; over rdma_cm a receive takes either.
     *
     * @return the peer's parameters, checked to be a well-formed record but not yet compared; null if the peer's
     *         release does not negotiate
     */
    ParameterNegotiation.Parameters negotiate(ParameterNegotiation.Parameters mine, DeviceAttributes attributes,
            Integer recordSize, Duration timeout) {
        ParameterNegotiation.Layout layout = peerRelease.negotiation();
        if (layout == null) {
            return null;
        }
        String what = "parameter negotiation record";
        String release = peerRelease.describe();
        int shortest = recordSize != null ? recordSize : ParameterNegotiation.RECORD_SIZE_WITHOUT_MLX5DV;
        int longest = recordSize != null ? recordSize : ParameterNegotiation.RECORD_SIZE;
        byte[] theirs;
        int received;
        if (client) {
            transport.send(what, ParameterNegotiation.encode(mine, attributes, layout, longest));
            // a C server read what it could of it with one read of its own size and answers with that size: over TCP a
            // shorter answer means this side's last bytes are still in its stream
            theirs = new byte[rdmaCm ? ParameterNegotiation.RECORD_SIZE : longest];
            try {
                received = transport.receiveRecord(what, theirs, ParameterNegotiation.RECORD_SIZE_WITHOUT_MLX5DV, timeout,
                        NEGOTIATION_GRACE);
            } catch (PerftestException e) {
                if (longest == ParameterNegotiation.RECORD_SIZE_WITHOUT_MLX5DV && e.getMessage().contains("closed the connection")) {
                    throw new PerftestException(e.getMessage() + ": it did not take this side's " + longest
                            + "-byte record; a perftest built with mlx5 direct verbs (as distributions build it) expects "
                            + ParameterNegotiation.RECORD_SIZE + ": run this side without --negotiation-size", e);
                }
                throw e;
            }
            if (received != longest && !rdmaCm) {
                throw new PerftestException(release + " answered the " + longest + "-byte " + what + " with "
                        + received + " bytes: it is a build without mlx5 direct verbs and has taken only the first "
                        + received + " bytes of this side's; run this side with --negotiation-size " + received);
            }
        } else {
            theirs = new byte[longest];
            received = transport.receiveRecord(what, theirs, shortest, timeout, NEGOTIATION_GRACE);
            transport.send(what, ParameterNegotiation.encode(mine, attributes, layout, received));
        }
        return ParameterNegotiation.decode(java.util.Arrays.copyOf(theirs, received), layout, release);
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

    /**
     * From now on every record goes in {@code --data_validation}'s form, with the tail markers' address (perftest 26.04
     * writes every handshake so once the option is on, both sides having agreed on it in the parameter negotiation).
     */
    void validating() {
        validating = true;
    }

    /** perftest's {@code ctx_hand_shake}: exchanges address records; also the barrier between phases. */
    public PeerAddress handshake(String what, PeerAddress mine, Duration timeout) {
        boolean tailMarkers = peerRelease != null && peerRelease.hasTailMarkers();
        return rdmaCm ? PeerAddress.decodeBinary(exchange(what, mine.encodeBinary(tailMarkers), timeout), tailMarkers)
                : PeerAddress.parse(exchange(what, mine.encode(validating), timeout), validating);
    }

    /**
     * perftest's {@code ctx_close_connection}: a last handshake, then the connection is closed; over TCP a peer
     * release older than 23.10 writes "done" and a NUL before that, which nobody reads, and so does this side to it.
     */
    public void closeConnection(PeerAddress mine, Duration timeout) {
        handshake("closing handshake", mine, timeout);
        if (!rdmaCm && (peerRelease == null || peerRelease.writesDone())) {
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
        private String peer;

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
        public void namePeer(String release) {
            peer = peer + " running " + release;
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
            receiveRecord(what, into, into.length, timeout, timeout);
        }

        @Override
        public int receiveRecord(String what, byte[] into, int shortest, Duration timeout, Duration grace) {
            int at = 0;
            try {
                socket.setSoTimeout(millis(timeout));
                while (at < shortest) {
                    int n = in.read(into, at, into.length - at);
                    if (n < 0) {
                        throw new EOFException();
                    }
                    at += n;
                }
                if (at < into.length) { // a record of either size: the rest comes at once, or not at all
                    socket.setSoTimeout(millis(grace));
                    try {
                        int n = 0;
                        while (at < into.length && n >= 0) { // an end of stream here: the next read reports it
                            n = in.read(into, at, into.length - at);
                            at += Math.max(n, 0);
                        }
                    } catch (SocketTimeoutException e) {
                        // the shorter record: what came is all
                    }
                }
                if (shortest < into.length && at == into.length && in.available() > 0) { // the peer awaits an answer now
                    throw new PerftestException("the peer " + peer + " sent more than " + into.length + " bytes as the "
                            + what + " (is it out of step, or a release with a longer one?)");
                }
                return at;
            } catch (SocketTimeoutException e) {
                throw new PerftestException("the peer " + peer + " sent " + (at == 0 ? "no " + what
                        : "only " + at + " of the " + shortest + " bytes of the " + what) + " within "
                        + timeout.toSeconds() + " s (is it out of step, or a different test?)");
            } catch (EOFException e) {
                throw new PerftestException("the peer " + peer + " closed the connection " + (at == 0
                        ? "before sending the " + what : "after " + at + " bytes of the " + what) + " ("
                        + (shortest == into.length ? into.length : shortest + " or " + into.length) + " bytes expected)");
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
