package org.panamaverbs.cm;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.panamaverbs.internal.ControlEvents;

/**
 * An rdma_cm listener: binds an address and port ({@code rdma_bind_addr}; {@code 0.0.0.0} or {@code ::}
 * for every RDMA device), listens ({@code rdma_listen}) and turns each connection request into a
 * {@link Connection} with {@link #accept(Duration)}. Usable from virtual threads (waits park); one thread
 * may accept while others use the connections already made.
 *
 * <p>Closing the server stops listening and closes the connections it accepted that are still open
 * (their ids report to the server's event channel). Idempotent.
 */
public final class RdmaServer implements AutoCloseable {
    private final CmEventChannel channel;
    private final CmId listener;
    private final ConnectionOptions options;
    private final List<Connection> accepted = new ArrayList<>();

    private RdmaServer(CmEventChannel channel, CmId listener, ConnectionOptions options) {
        this.channel = channel;
        this.listener = listener;
        this.options = options;
    }

    /**
     * Listens on {@code local} (port 0: any free port, see {@link #localAddress()}).
     *
     * @param local   the local IP address and port (resolved): a device's address, or {@code 0.0.0.0} /
     *                {@code ::} for every RDMA device; port 0 picks a free port
     * @param options what every accepted connection is set up with; its port space is also the listener's
     * @param backlog connection requests the kernel queues before they are accepted
     * @return the listening server, which owns its event channel; the caller closes it
     * @throws org.panamaverbs.verbs.VerbsException {@code rdma_bind_addr} EADDRINUSE (port taken),
     *                                              EADDRNOTAVAIL/ENODEV (no RDMA device has the address)
     */
    public static RdmaServer listen(InetSocketAddress local, ConnectionOptions options, int backlog) {
        CmEventChannel channel = CmEventChannel.create();
        try {
            CmId listener = CmId.create(channel, options.portSpace());
            listener.bind(local);
            listener.listen(backlog);
            return new RdmaServer(channel, listener, options);
        } catch (RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * The bound address and port.
     *
     * @return the listening address, with the port the kernel picked when 0 was asked for
     */
    public InetSocketAddress localAddress() {
        return listener.localAddress();
    }

    /**
     * Waits for a connection request and accepts it: creates the connection's protection domain, completion
     * queue and queue pair on the device the request came in on, runs the options' prepare hook, accepts
     * with the options' private data (and offered region), and for RC waits until the connection is
     * established.
     *
     * <p>A request whose client withdrew it before this accept (its connect gave up, or it closed;
     * {@link CmException#requestWithdrawn()}) is closed, logged at INFO on logger {@code org.panamaverbs.cm},
     * and skipped: the wait goes on for the next request within {@code timeout}.
     *
     * @param timeout the longest wait for a request and its establishment together, not null; a request that
     *                arrives late gets what is left (at least 1 ms) to be established
     * @return the connection, or null if no request (that its client still wanted) arrived within {@code timeout}
     * @throws CmException if the request could not be accepted or established in time (nothing is left open)
     */
    public Connection accept(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            CmEvent request = listener.awaitConnectionRequest(left);
            if (request == null) {
                return null;
            }
            try {
                Connection connection = Connection.accept(request, options, deadline);
                synchronized (accepted) {
                    accepted.removeIf(c -> c.id().isClosed());
                    accepted.add(connection);
                }
                return connection;
            } catch (CmException e) {
                if (!e.requestWithdrawn()) {
                    throw e;
                }
                ControlEvents.CM.log(System.Logger.Level.INFO, "skipped a connection request: {0}", e.getMessage());
            }
        }
    }

    /**
     * The listening id (for its address, or to accept requests by hand with {@link CmId#awaitConnectionRequest}).
     *
     * @return the listening id, which {@link #close()} closes; a request taken from it by hand is the
     *         caller's to accept or reject (its id is still closed with the server's event channel)
     */
    public CmId listeningId() {
        return listener;
    }

    /** Closes the accepted connections that are still open, the listening id and the event channel. */
    @Override
    public void close() {
        List<Connection> open;
        synchronized (accepted) {
            open = List.copyOf(accepted);
            accepted.clear();
        }
        RuntimeException failure = null;
        for (Connection connection : open.reversed()) {
            try {
                connection.close();
            } catch (RuntimeException e) {
                failure = failure == null ? e : failure;
            }
        }
        channel.close();
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "RdmaServer[" + listener.portSpace() + (listener.isClosed() ? " closed" : " on " + listener.localAddressOrNull()) + "]";
    }
}
