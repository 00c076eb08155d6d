package org.panamaverbs.rsocket;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Function;

import org.panamaverbs.cm.CmEvent;
import org.panamaverbs.cm.CmEventType;
import org.panamaverbs.cm.CmException;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.ConnParam;

/**
 * A client's rsocket connect as steps driven by its id's rdma_cm events, the way Netty's epoll channels keep a
 * non-blocking connect on their loop ({@code AbstractEpollChannel}'s {@code connect} and {@code finishConnect}):
 * {@code rdma_resolve_addr} ends in ADDR_RESOLVED, which starts {@code rdma_resolve_route}; ROUTE_RESOLVED makes the
 * connection's queue pair and starts {@code rdma_connect} with rsocket's private data; ESTABLISHED brings the
 * server's. No step waits: each is started by the event that ends the one before, which the transport reads from the
 * id's polled event channel (an event loop's, or a blocking caller's own wait). A failure event or a refused call
 * ends the connect with the exception a socket gives ({@link #asConnectFailure}); the transport's connect timeout
 * bounds the whole. The transport's thread only.
 */
public final class RsocketConnectSteps {
    /** What the transport does at the steps that concern it. */
    public interface Outcome {
        /**
         * The route is resolved: the connection (queue pair, buffers, receives posted) on the id.
         *
         * @return the connection, whose private data goes into {@code rdma_connect}
         */
        RsocketConnection open();

        /**
         * ESTABLISHED, with the server's rsocket data.
         *
         * @param peer the server's connection data
         */
        void established(RsocketWire.ConnectionData peer);

        /**
         * The connect failed; the transport closes the connection and the id.
         *
         * @param cause a {@link ConnectException} (refused, unreachable, timed out) or what a call threw
         */
        void failed(Throwable cause);
    }

    private final CmId id;
    private final InetSocketAddress target;
    private final Duration timeout;
    private final Outcome outcome;
    private final Function<String, ConnectException> timedOut;

    /**
     * Steps to connect {@code id} to {@code target}.
     *
     * @param id       a client id on a polled event channel, its events handed to {@link #onCmEvent}
     * @param target   the server's address
     * @param timeout  each resolution step's bound (rdma_cm's own timeout)
     * @param outcome  what the transport does at each end
     * @param timedOut the exception a timed-out connect becomes (a transport's subclass of ConnectException)
     */
    public RsocketConnectSteps(CmId id, InetSocketAddress target, Duration timeout, Outcome outcome,
            Function<String, ConnectException> timedOut) {
        this.id = id;
        this.target = target;
        this.timeout = timeout;
        this.outcome = outcome;
        this.timedOut = timedOut;
    }

    /**
     * The first step, {@code rdma_resolve_addr}.
     *
     * @throws org.panamaverbs.verbs.VerbsException naming {@code rdma_resolve_addr} if the call is refused
     */
    public void start() {
        id.beginResolveAddress(target, timeout);
    }

    /**
     * An event of the id while connecting: the next step, the end, or the failure.
     *
     * @param event the event the transport read
     */
    public void onCmEvent(CmEvent event) {
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
                                + target), target, timedOut));
                default -> {
                    // CONNECT_RESPONSE and the like: not for an id with a queue pair of its own
                }
            }
        } catch (RuntimeException e) {
            outcome.failed(asConnectFailure(e, target, timedOut));
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

    /**
     * What a failed connect means in java.net terms: refused, unreachable, timed out, not an rsocket peer.
     *
     * @param cause    what the step threw or the failure event's exception
     * @param target   the server's address
     * @param timedOut the exception a timeout becomes
     * @return a {@link ConnectException} (its cause the original), or {@code cause} itself if it means none of these
     */
    public static Throwable asConnectFailure(Throwable cause, InetSocketAddress target,
            Function<String, ConnectException> timedOut) {
        if (cause instanceof CmException cm) {
            if (cm.event() == CmEventType.REJECTED) {
                ConnectException e = new ConnectException("connection refused: " + target + " (" + cm.getMessage() + ")");
                e.initCause(cm);
                return e;
            }
            if (cm.timedOut()) {
                ConnectException e = timedOut.apply("connection timed out: " + target + " (" + cm.getMessage() + ")");
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
