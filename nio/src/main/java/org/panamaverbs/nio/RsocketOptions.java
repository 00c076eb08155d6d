package org.panamaverbs.nio;

import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import jdk.net.ExtendedSocketOptions;

import org.panamaverbs.rsocket.RsocketConnection;

/**
 * The socket options of a channel that mean something to an rsocket: {@code SO_SNDBUF} and {@code SO_RCVBUF} size
 * the send and receive rings of a connection made after they were set (as rsocket's {@code rsetsockopt} before
 * {@code rconnect}); {@code TCP_NODELAY} is kept and reported, rsocket never delays a send; {@code SO_KEEPALIVE}
 * sends rsocket's keepalive every {@code TCP_KEEPIDLE} seconds (jdk.net's option; 7200 by default, as rsocket's);
 * {@code SO_REUSEADDR} on a server is kept, rdma_cm's ports having no TIME_WAIT to reuse. A server's options are its
 * accepted channels' first.
 */
final class RsocketOptions {
    private static final Set<SocketOption<?>> SOCKET = Set.of(StandardSocketOptions.SO_SNDBUF,
            StandardSocketOptions.SO_RCVBUF, StandardSocketOptions.TCP_NODELAY, StandardSocketOptions.SO_KEEPALIVE,
            ExtendedSocketOptions.TCP_KEEPIDLE);
    /** rsocket's keepalive interval when {@code TCP_KEEPIDLE} is not set, as librdmacm's (TCP's own default). */
    static final int KEEPALIVE_SECONDS = 7200;
    private static final Set<SocketOption<?>> SERVER = Set.of(StandardSocketOptions.SO_RCVBUF,
            StandardSocketOptions.SO_REUSEADDR);

    private final Map<SocketOption<?>, Object> values = new HashMap<>();
    /** What the application set itself (a TCP fallback socket takes these, and the kernel's defaults for the rest). */
    private final Map<SocketOption<?>, Object> explicit = new HashMap<>();
    private final Set<SocketOption<?>> supported;

    /** A socket channel's options, with rsocket's defaults. */
    static RsocketOptions forSocket() {
        return new RsocketOptions(SOCKET);
    }

    /** A server channel's options, with rsocket's defaults. */
    static RsocketOptions forServer() {
        return new RsocketOptions(SERVER);
    }

    private RsocketOptions(Set<SocketOption<?>> supported) {
        this.supported = supported;
        RsocketConnection.Settings defaults = RsocketConnection.Settings.DEFAULT;
        values.put(StandardSocketOptions.SO_SNDBUF, defaults.sendBufferSize());
        values.put(StandardSocketOptions.SO_RCVBUF, defaults.receiveBufferSize());
        values.put(StandardSocketOptions.TCP_NODELAY, Boolean.FALSE);
        values.put(StandardSocketOptions.SO_REUSEADDR, Boolean.FALSE);
        values.put(StandardSocketOptions.SO_KEEPALIVE, Boolean.FALSE);
        values.put(ExtendedSocketOptions.TCP_KEEPIDLE, KEEPALIVE_SECONDS);
    }

    /** A socket channel's options that start as this server's (a connection it accepted). */
    synchronized RsocketOptions forAccepted() {
        RsocketOptions accepted = forSocket();
        accepted.values.putAll(values);
        accepted.explicit.putAll(explicit);
        return accepted;
    }

    /** The options a channel of this kind supports. */
    Set<SocketOption<?>> supported() {
        return supported;
    }

    /** Sets {@code name}, one the channel supports; sizes must be positive. */
    synchronized <T> void set(SocketOption<T> name, T value) {
        Objects.requireNonNull(name, "name");
        if (!supported.contains(name)) {
            throw new UnsupportedOperationException("'" + name + "' not supported by an rsocket channel");
        }
        if (!name.type().isInstance(value)) {
            throw new IllegalArgumentException("Invalid value '" + value + "' for " + name);
        }
        if ((name == StandardSocketOptions.SO_SNDBUF || name == StandardSocketOptions.SO_RCVBUF)
                && (Integer) value <= 0) {
            throw new IllegalArgumentException("Invalid send/receive buffer size: " + value);
        }
        if (name == ExtendedSocketOptions.TCP_KEEPIDLE && ((Integer) value < 1 || (Integer) value > 32767)) {
            throw new IllegalArgumentException("Invalid keepalive idle time (1 to 32767 s): " + value);
        }
        values.put(name, value);
        explicit.put(name, value);
    }

    /** The options the application set, with their values. */
    synchronized Map<SocketOption<?>, Object> explicit() {
        return Map.copyOf(explicit);
    }

    synchronized <T> T get(SocketOption<T> name) {
        Objects.requireNonNull(name, "name");
        if (!supported.contains(name)) {
            throw new UnsupportedOperationException("'" + name + "' not supported by an rsocket channel");
        }
        return name.type().cast(values.get(name));
    }

    /** What a connection is made with: rsocket's queue depth and no iomap table, the rings as the options say. */
    synchronized RsocketConnection.Settings settings() {
        RsocketConnection.Settings defaults = RsocketConnection.Settings.DEFAULT;
        return new RsocketConnection.Settings(defaults.queueDepth(), (Integer) values.get(StandardSocketOptions.SO_SNDBUF),
                (Integer) values.get(StandardSocketOptions.SO_RCVBUF), defaults.iomapSize());
    }
}
