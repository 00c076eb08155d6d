package org.panamaverbs.cm;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Objects;

/**
 * Exchanges {@link ExchangeMessage} with one peer over TCP, for verbs-only setups without rdma_cm (as
 * perftest does with its TCP port 18515). The server side accepts one connection, reads the client's
 * message and answers with its own; the client side connects, sends its message and reads the answer.
 *
 * <p>Two forms, and both sides must use the same one:
 * <ul>
 *   <li>{@link #accept} / {@link #connect}: exchange, close the connection, return the peer's info.</li>
 *   <li>{@link #acceptSession} / {@link #connectSession}: exchange and keep the connection open as a
 *       {@link Session}, whose {@link Session#barrier barrier} lets each side wait until the other has
 *       reached the same point. The usual sequence is: exchange, connect the queue pair (RTR, RTS), post
 *       the receives, barrier; only then may the client post sends, because before the barrier the
 *       server's queue pair may not yet be in RTR and would drop them.</li>
 * </ul>
 *
 * <p>Every wait is bounded by the {@code timeout} given, which is a deadline for the whole call: connecting,
 * accepting and each read get what is left of it. A peer that never connects, sends nothing, sends too
 * little, sends something that is not an endpoint message or closes early makes the call throw an
 * {@link ExchangeException} naming the peer and what happened, within the timeout; nothing is allocated
 * from a length the peer sends. A client does not retry a refused connection: start the server first.
 *
 * <p>Threads: the methods are blocking and thread-safe, and work from virtual threads (socket I/O parks
 * a virtual thread rather than blocking its carrier). To cancel a wait early, close the server socket or
 * the session from another thread. A {@link Session} is for one thread at a time.
 */
public final class EndpointExchange {
    /** The byte each side sends at a barrier; anything else there means the peers are out of step. */
    static final byte READY = 'R';
    private static final Duration MAX_TIMEOUT = Duration.ofMillis(Integer.MAX_VALUE);

    private EndpointExchange() {
    }

    /**
     * Accepts one peer on {@code server}, reads its message, sends {@code local}, and closes that connection.
     * The server socket stays open (and its {@code SO_TIMEOUT} unchanged) for the caller to close or reuse.
     *
     * @param server  a bound server socket, not null; its {@code SO_TIMEOUT} is changed for the call and restored
     * @param local   this side's queue pair endpoint (and region, if offered), not null
     * @param timeout the deadline for the whole call, not null; zero or negative is refused with an
     *                {@link IllegalArgumentException}, more than {@code Integer.MAX_VALUE} ms is capped there
     * @return the peer's info
     * @throws ExchangeException if no peer connects within {@code timeout} or the exchange fails
     */
    public static ExchangeMessage accept(ServerSocket server, ExchangeMessage local, Duration timeout)
            throws ExchangeException {
        try (Session session = acceptSession(server, local, timeout)) {
            return session.peer();
        }
    }

    /**
     * Connects to {@code server}, sends {@code local}, reads the peer's message, and closes the connection.
     *
     * @param server  the server side's IP address and TCP port, not null
     * @param local   this side's queue pair endpoint (and region, if offered), not null
     * @param timeout the deadline for the whole call, not null; zero or negative is refused with an
     *                {@link IllegalArgumentException}, more than {@code Integer.MAX_VALUE} ms is capped there
     * @return the peer's info
     * @throws ExchangeException if the connection is refused or the exchange fails or exceeds {@code timeout}
     */
    public static ExchangeMessage connect(InetSocketAddress server, ExchangeMessage local, Duration timeout)
            throws ExchangeException {
        try (Session session = connectSession(server, local, timeout)) {
            return session.peer();
        }
    }

    /**
     * As {@link #accept}, but keeps the connection open as a {@link Session}, which the caller must close.
     *
     * @param server  a bound server socket, not null; its {@code SO_TIMEOUT} is restored before returning
     * @param local   this side's queue pair endpoint (and region, if offered), not null
     * @param timeout the deadline for the whole call, not null; zero or negative is refused with an
     *                {@link IllegalArgumentException}, more than {@code Integer.MAX_VALUE} ms is capped there;
     *                it does not bound the session's barriers, which take their own
     * @return the open session, holding the peer's info
     * @throws ExchangeException if no peer connects within {@code timeout} or the exchange fails; the
     *                           accepted connection is closed then
     */
    public static Session acceptSession(ServerSocket server, ExchangeMessage local, Duration timeout)
            throws ExchangeException {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(local, "local");
        long deadline = deadline(timeout);
        Socket socket = acceptOne(server, deadline, timeout);
        try {
            ExchangeMessage peer = readMessage(socket, deadline, timeout);
            write(socket, local.encode(), "our endpoint message");
            return new Session(socket, peer);
        } catch (ExchangeException | RuntimeException e) {
            closeQuietly(socket);
            throw e;
        }
    }

    /**
     * As {@link #connect}, but keeps the connection open as a {@link Session}, which the caller must close.
     *
     * @param server  the server side's IP address and TCP port, not null
     * @param local   this side's queue pair endpoint (and region, if offered), not null
     * @param timeout the deadline for the whole call, not null; zero or negative is refused with an
     *                {@link IllegalArgumentException}, more than {@code Integer.MAX_VALUE} ms is capped there;
     *                it does not bound the session's barriers, which take their own
     * @return the open session, holding the peer's info
     * @throws ExchangeException if the connection is refused or the exchange fails or exceeds
     *                           {@code timeout}; the connection is closed then
     */
    public static Session connectSession(InetSocketAddress server, ExchangeMessage local, Duration timeout)
            throws ExchangeException {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(local, "local");
        long deadline = deadline(timeout);
        Socket socket = new Socket();
        try {
            try {
                socket.connect(server, remainingMillis(deadline));
                socket.setTcpNoDelay(true); // the messages are small and a barrier waits for each byte
            } catch (SocketTimeoutException e) {
                throw new ExchangeException("no answer from " + server + " within " + millis(timeout)
                        + " (is the address right, or is a firewall dropping the connection?)", e);
            } catch (ConnectException e) {
                throw new ExchangeException("could not connect to " + server + ": " + e.getMessage()
                        + " (is the server side running and listening on that port?)", e);
            } catch (IOException e) {
                throw new ExchangeException("could not connect to " + server + ": " + e, e);
            }
            write(socket, local.encode(), "our endpoint message");
            return new Session(socket, readMessage(socket, deadline, timeout));
        } catch (ExchangeException | RuntimeException e) {
            closeQuietly(socket);
            throw e;
        }
    }

    /**
     * A connection to the peer after the exchange: its info, and barriers. Closing it closes the connection;
     * a peer waiting at a barrier then fails at once rather than at its timeout.
     */
    public static final class Session implements AutoCloseable {
        private final Socket socket;
        private final ExchangeMessage peer;

        private Session(Socket socket, ExchangeMessage peer) {
            this.socket = socket;
            this.peer = peer;
        }

        /**
         * What the peer sent.
         *
         * @return the peer's decoded endpoint message
         */
        public ExchangeMessage peer() {
            return peer;
        }

        /**
         * The peer's IP address and TCP port.
         *
         * @return the remote address of the exchange's TCP connection (still known after {@link #close()})
         */
        public InetSocketAddress peerAddress() {
            return (InetSocketAddress) socket.getRemoteSocketAddress();
        }

        /**
         * Sends one ready byte and waits for the peer's: returns once both sides have called this. Barriers may
         * be repeated (for example before and after a measurement); each side must call it the same number of
         * times.
         *
         * @param timeout how long to wait for the peer's byte, not null; zero or negative is refused with an
         *                {@link IllegalArgumentException}, more than {@code Integer.MAX_VALUE} ms is capped there
         * @throws ExchangeException if the peer does not arrive within {@code timeout}, closes the connection
         *                           first, or sends something other than the ready byte
         */
        public void barrier(Duration timeout) throws ExchangeException {
            long deadline = deadline(timeout);
            write(socket, new byte[] {READY}, "the barrier byte");
            byte[] answer = new byte[1];
            readFully(socket, answer, 0, 1, deadline, timeout, "the barrier byte",
                    "did the peer fail before reaching the barrier?");
            if (answer[0] != READY) {
                throw new ExchangeException(describe(socket) + " sent 0x" + Integer.toHexString(answer[0] & 0xff)
                        + " instead of the barrier byte 0x" + Integer.toHexString(READY)
                        + ": the two sides are out of step (a different protocol, or unequal barrier counts)", null);
            }
        }

        /** Closes the connection. Idempotent. */
        @Override
        public void close() {
            closeQuietly(socket);
        }

        @Override
        public String toString() {
            return "EndpointExchange.Session[" + describe(socket) + ", " + peer + "]";
        }
    }

    private static Socket acceptOne(ServerSocket server, long deadline, Duration timeout) throws ExchangeException {
        int previousTimeout = -1;
        try {
            previousTimeout = server.getSoTimeout();
            server.setSoTimeout(remainingMillis(deadline));
            Socket socket = server.accept();
            socket.setTcpNoDelay(true);
            return socket;
        } catch (SocketTimeoutException e) {
            throw new ExchangeException("no peer connected to " + server.getLocalSocketAddress() + " within "
                    + millis(timeout) + " (is the client running, and pointed at this host and port?)", e);
        } catch (IOException e) {
            throw new ExchangeException("accepting a peer on " + server.getLocalSocketAddress() + " failed: " + e, e);
        } finally {
            if (previousTimeout >= 0) {
                try {
                    server.setSoTimeout(previousTimeout);
                } catch (IOException ignored) {
                    // Closed meanwhile (a cancellation): nothing to restore.
                }
            }
        }
    }

    /** Reads the header first so that a stranger or a bad length is refused before reading the rest. */
    private static ExchangeMessage readMessage(Socket socket, long deadline, Duration timeout) throws ExchangeException {
        byte[] message = new byte[ExchangeMessage.BYTES];
        String hint = "is the peer a Panama Verbs endpoint exchange?";
        readFully(socket, message, 0, ExchangeMessage.HEADER_BYTES, deadline, timeout, "its endpoint message", hint);
        try {
            ExchangeMessage.checkHeader(message, ExchangeMessage.HEADER_BYTES);
            readFully(socket, message, ExchangeMessage.HEADER_BYTES, message.length, deadline, timeout,
                    "its endpoint message", hint);
            return ExchangeMessage.decode(message);
        } catch (IllegalArgumentException e) {
            throw new ExchangeException(describe(socket) + " sent a malformed endpoint message: " + e.getMessage(), e);
        }
    }

    /** Reads {@code buffer[from, to)}, giving each read what is left of the deadline. */
    private static void readFully(Socket socket, byte[] buffer, int from, int to, long deadline, Duration timeout,
            String what, String hint) throws ExchangeException {
        int done = from;
        try {
            while (done < to) {
                socket.setSoTimeout(remainingMillis(deadline));
                int count = socket.getInputStream().read(buffer, done, to - done);
                if (count < 0) {
                    throw new ExchangeException(describe(socket) + " closed the connection after " + done + " of "
                            + buffer.length + " bytes of " + what + " (" + hint + ")", null);
                }
                done += count;
            }
        } catch (SocketTimeoutException e) {
            throw new ExchangeException("timed out after " + millis(timeout) + " waiting for " + what + " from "
                    + describe(socket) + ": received " + done + " of " + buffer.length + " bytes (" + hint + ")", e);
        } catch (ExchangeException e) {
            throw e;
        } catch (IOException e) {
            throw new ExchangeException("reading " + what + " from " + describe(socket) + " failed after " + done
                    + " of " + buffer.length + " bytes: " + e, e);
        }
    }

    /** Writes never wait for the peer: a message or a barrier byte fits in the socket's send buffer. */
    private static void write(Socket socket, byte[] bytes, String what) throws ExchangeException {
        try {
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
        } catch (IOException e) {
            throw new ExchangeException("sending " + what + " to " + describe(socket) + " failed: " + e, e);
        }
    }

    private static long deadline(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the timeout must be positive, not " + timeout
                    + ": an exchange never waits without a bound");
        }
        // SO_TIMEOUT is an int of milliseconds; longer timeouts are capped there (about 24 days).
        Duration capped = timeout.compareTo(MAX_TIMEOUT) > 0 ? MAX_TIMEOUT : timeout;
        return System.nanoTime() + capped.toNanos();
    }

    /** What is left of the deadline for SO_TIMEOUT, at least 1 ms: 0 would mean "wait forever". */
    private static int remainingMillis(long deadline) {
        long left = Math.ceilDiv(deadline - System.nanoTime(), 1_000_000L);
        return Math.clamp(left, 1, Integer.MAX_VALUE);
    }

    private static String millis(Duration timeout) {
        return timeout.toMillis() + " ms";
    }

    private static String describe(Socket socket) {
        return "peer " + socket.getRemoteSocketAddress();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closing is best effort: the exchange's outcome is already decided.
        }
    }
}
