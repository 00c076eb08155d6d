package org.panamaverbs.nio;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.nio.channels.NetworkChannel;

/**
 * What both {@code java.net} adaptors ({@link SocketAdaptor}, {@link ServerSocketAdaptor}) do with their channel as
 * {@code Socket} and {@code ServerSocket} report it: an option set or read fails with a {@link SocketException}
 * (closed, or not supported), and a closed channel's local address is null.
 */
final class AdaptorCalls {
    private AdaptorCalls() {
    }

    static <T> void set(NetworkChannel channel, SocketOption<T> name, T value) throws SocketException {
        ensureOpen(channel);
        try {
            channel.setOption(name, value);
        } catch (UnsupportedOperationException e) {
            throw new SocketException(name + " is not supported by an rsocket channel");
        } catch (IOException e) {
            throw new SocketException("Socket is closed");
        }
    }

    static <T> T get(NetworkChannel channel, SocketOption<T> name) throws SocketException {
        ensureOpen(channel);
        try {
            return channel.getOption(name);
        } catch (UnsupportedOperationException e) {
            throw new SocketException(name + " is not supported by an rsocket channel");
        } catch (IOException e) {
            throw new SocketException("Socket is closed");
        }
    }

    static void ensureOpen(NetworkChannel channel) throws SocketException {
        if (!channel.isOpen()) {
            throw new SocketException("Socket is closed");
        }
    }

    /** The channel's bound address, null before the bind or after the close. */
    static InetSocketAddress localAddress(NetworkChannel channel) {
        try {
            return (InetSocketAddress) channel.getLocalAddress();
        } catch (IOException closed) {
            return null;
        }
    }
}
