package org.panamaverbs.netty;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.time.Duration;

import io.netty.channel.ConnectTimeoutException;
import org.panamaverbs.cm.CmEvent;
import org.panamaverbs.cm.CmEventType;
import org.panamaverbs.cm.CmException;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.ConnParam;
import org.panamaverbs.rsocket.RsocketConnection;
import org.panamaverbs.rsocket.RsocketWire;

/**
 * A client channel's connect as steps on its event loop, the way Netty's epoll channels keep a non-blocking connect
 * on the loop ({@code AbstractEpollChannel}'s {@code connect} and {@code finishConnect}): {@code rdma_resolve_addr}
 * ends in ADDR_RESOLVED, which starts {@code rdma_resolve_route}; ROUTE_RESOLVED makes the connection's queue pair
 * and starts {@code rdma_connect}; ESTABLISHED brings the server's rsocket data. No step waits: each is started by
 * the event that ends the one before, read from the loop's polled event channel. A failure event or a refused call
 * ends the connect with the exception a socket would give ({@link #asConnectFailure}); the channel's connect timeout
 * bounds the whole.
 */
final class RdmaConnectSteps {
    /** What the channel does at the steps that concern it. */
    interface Outcome {
        /** The route is resolved: the connection (queue pair, buffers, receives posted) on the id. */
        RsocketConnection open();

        /** ESTABLISHED, with the server's rsocket data. */
        void established(RsocketWire.ConnectionData peer);

        /** The connect failed; the channel closes (and the id with it). */
        void failed(Throwable cause);
    }

    private final CmId id;
    private final InetSocketAddress target;
    private final Duration timeout;
    private final Outcome outcome;

    RdmaConnectSteps(CmId id, InetSocketAddress target, Duration timeout, Outcome outcome) {
        this.id = id;
        this.target = target;
        this.timeout = timeout;
        this.outcome = outcome;
    }

    /** The first step; what it refuses is thrown. */
    void start() {
        id.beginResolveAddress(target, timeout);
    }

    /** An event of the id while connecting: the next step, the end, or the failure. */
    void onCmEvent(CmEvent event) {
        try {
            switch (event.type()) {
                case ADDR_RESOLVED -> id.beginResolveRoute(timeout);
                case ROUTE_RESOLVED -> {
                    RsocketConnection connection = outcome.open();
                    id.beginConnect(new ConnParam(connection.localData(), 0, 0, 7, 7));
                }
                case ESTABLISHED -> outcome.established(RsocketWire.ConnectionData.decode(event.privateData()));
                case ADDR_ERROR, ROUTE_ERROR, UNREACHABLE, REJECTED, CONNECT_ERROR, DISCONNECTED, DEVICE_REMOVAL ->
                        outcome.failed(asConnectFailure(CmException.of(callOf(event.type()), event, "connecting to "
                                + target), target));
                default -> {
                    // CONNECT_RESPONSE and the like: not for an id with a queue pair of its own
                }
            }
        } catch (RuntimeException e) {
            outcome.failed(asConnectFailure(e, target));
        }
    }

    /** The call whose outcome a failure event reports. */
    private static String callOf(CmEventType type) {
        return switch (type) {
            case ADDR_ERROR -> "rdma_resolve_addr";
            case ROUTE_ERROR -> "rdma_resolve_route";
            default -> "rdma_connect";
        };
    }

    /** What a failed connect means in java.net terms: refused, unreachable, timed out. */
    static Throwable asConnectFailure(Throwable cause, InetSocketAddress target) {
        if (cause instanceof CmException cm) {
            if (cm.event() == CmEventType.REJECTED) {
                ConnectException e = new ConnectException("connection refused: " + target + " (" + cm.getMessage() + ")");
                e.initCause(cm);
                return e;
            }
            if (cm.timedOut()) {
                ConnectTimeoutException e = new ConnectTimeoutException("connection timed out: " + target + " ("
                        + cm.getMessage() + ")");
                e.initCause(cm);
                return e;
            }
            ConnectException e = new ConnectException("cannot connect to " + target + ": " + cm.getMessage());
            e.initCause(cm);
            return e;
        }
        if (cause instanceof RsocketWire.MalformedConnectionData malformed) {
            ConnectException e = new ConnectException(target + " is not an rsocket peer: " + malformed.getMessage());
            e.initCause(malformed);
            return e;
        }
        return cause;
    }
}
