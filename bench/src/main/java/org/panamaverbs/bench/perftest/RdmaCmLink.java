package org.panamaverbs.bench.perftest;

import java.net.InetSocketAddress;
import java.time.Duration;

import org.panamaverbs.cm.CmEvent;
import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.cm.CmEventType;
import org.panamaverbs.cm.CmException;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.ConnParam;
import org.panamaverbs.cm.PortSpace;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QueuePair;

/**
 * perftest's {@code -R}: the queue pair connected by rdma_cm ({@code create_rdma_cm_connection}) on the TCP port
 * number of the exchange, in rdma_cm's own TCP port space. The client resolves the server's address and route
 * (2 s each, as perftest) and connects, retrying a refused connection up to ten times 100 ms apart (the server may
 * not listen yet); the server listens on every device, takes one request and accepts it. The client disconnects
 * at the end, as perftest's {@code rdma_cm_disconnect_nodes}.
 */
final class RdmaCmLink implements AutoCloseable {
    /** perftest's timeouts of {@code rdma_resolve_addr} and {@code rdma_resolve_route}. */
    static final Duration RESOLVE_TIMEOUT = Duration.ofMillis(2000);
    /** perftest's {@code rdma_cm_client_connection}: ten attempts, 100 ms apart. */
    static final int CONNECT_ATTEMPTS = 10;
    static final long RETRY_DELAY_MILLIS = 100;
    /** How long the client waits for its disconnection to be confirmed before tearing down anyway. */
    private static final Duration DISCONNECT_TIMEOUT = Duration.ofSeconds(2);

    private final CmEventChannel channel;
    private final InetSocketAddress server;
    private final CmIdTuning tuning;
    /** The connection's id: the client's own, or the server's request id. */
    private CmId id;
    private CmId listener;
    private boolean connected;

    private RdmaCmLink(CmEventChannel channel, InetSocketAddress server, CmIdTuning tuning) {
        this.channel = channel;
        this.server = server;
        this.tuning = tuning;
    }

    /** The client's side: an id resolved to the server's address and route, not connected yet. */
    static RdmaCmLink resolve(String host, int port, CmIdTuning tuning) {
        RdmaCmLink link = new RdmaCmLink(CmEventChannel.create(), new InetSocketAddress(host, port), tuning);
        try {
            link.id = link.resolvedId();
            return link;
        } catch (RuntimeException e) {
            link.close();
            throw e;
        }
    }

    /**
     * The server's side, first step: listens on {@code port} of every device. Called before the handshake that
     * precedes the connection, since a C client connects right after it and gives up after about a second.
     */
    static RdmaCmLink listen(int port, CmIdTuning tuning) {
        RdmaCmLink link = new RdmaCmLink(CmEventChannel.create(), null, tuning);
        try {
            link.listener = CmId.create(link.channel, PortSpace.TCP);
            link.listener.bind(new InetSocketAddress(port));
            link.listener.listen(1);
            return link;
        } catch (RuntimeException e) {
            link.close();
            throw e;
        }
    }

    /** The server's side, second step: waits for one connection request. */
    void awaitRequest(Duration timeout) {
        CmEvent request = listener.awaitConnectionRequest(timeout);
        if (request == null) {
            throw new PerftestException("no rdma_cm connection request arrived on port " + listener.localAddress().getPort()
                    + " within " + timeout.toSeconds() + " s");
        }
        id = request.id();
    }

    private CmId resolvedId() {
        CmId fresh = CmId.create(channel, PortSpace.TCP);
        try {
            fresh.resolveAddress(server, RESOLVE_TIMEOUT);
            tuning.afterAddressResolved(fresh);
            fresh.resolveRoute(RESOLVE_TIMEOUT);
            return fresh;
        } catch (RuntimeException e) {
            fresh.close();
            throw e;
        }
    }

    /** The device rdma_cm chose: where the test's protection domain, queues and buffer must be created. */
    Context context() {
        return id.context();
    }

    /**
     * Creates the queue pair on the id and connects it: {@code rdma_connect} (client) or {@code rdma_accept}
     * (server), then waits for ESTABLISHED.
     *
     * @throws PerftestException naming the rdma_cm event when the connection fails
     */
    QueuePair connect(ProtectionDomain pd, QpConfig config, ConnParam parameters, Duration timeout) {
        try {
            if (server == null) {
                QueuePair qp = id.createQueuePair(pd, config);
                tuning.beforeAccept(id);
                id.accept(parameters);
                id.awaitEstablished(timeout);
                listener.close(); // perftest destroys its listening id once the connection is made
                connected = true;
                return qp;
            }
            for (int attempt = 1; ; attempt++) {
                QueuePair qp = id.createQueuePair(pd, config);
                try {
                    id.connect(parameters, timeout);
                    connected = true;
                    return qp;
                } catch (CmException e) {
                    if (e.event() != CmEventType.REJECTED || attempt == CONNECT_ATTEMPTS) {
                        throw e;
                    }
                }
                id.close(); // and its queue pair: a new id resolves again, as perftest's retry
                sleep(RETRY_DELAY_MILLIS);
                id = resolvedId();
            }
        } catch (CmException e) {
            throw new PerftestException("rdma_cm connection " + (server == null ? "from the client" : "to " + server)
                    + " failed: " + e.getMessage());
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PerftestException("interrupted while retrying the rdma_cm connection");
        }
    }

    /**
     * The client disconnects and waits (bounded) for the confirmation; then the id and its queue pair, what was
     * created on rdma_cm's device, and the channel are freed.
     */
    @Override
    public void close() {
        Context context = null;
        try {
            if (id != null) {
                context = id.isClosed() ? null : id.context();
                if (connected && server != null && !id.isDisconnected()) {
                    id.disconnect();
                    id.awaitDisconnected(DISCONNECT_TIMEOUT);
                }
            }
        } finally {
            if (id != null) {
                id.close();
            }
            if (listener != null) {
                listener.close();
            }
            if (context != null) {
                context.close(); // the buffer, queues and protection domain; librdmacm keeps the device open
            }
            channel.close();
        }
    }
}
