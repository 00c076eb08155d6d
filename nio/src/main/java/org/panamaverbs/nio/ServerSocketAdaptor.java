package org.panamaverbs.nio;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;

/**
 * The {@link ServerSocket} an {@link RsocketServerSocketChannel} hands out from {@code socket()}: binding, the
 * address, the options the channel supports, accept (in blocking mode, as the JDK's adaptor) and close go to the
 * channel. {@code SO_TIMEOUT} is kept and reported; accept waits without it.
 */
final class ServerSocketAdaptor extends ServerSocket {
    private final RsocketServerSocketChannel channel;
    private volatile int timeoutMillis;

    ServerSocketAdaptor(RsocketServerSocketChannel channel) throws IOException {
        this.channel = channel;
    }

    @Override
    public ServerSocketChannel getChannel() {
        return channel;
    }

    @Override
    public void bind(SocketAddress local) throws IOException {
        channel.bind(local, 0);
    }

    @Override
    public void bind(SocketAddress local, int backlog) throws IOException {
        channel.bind(local, backlog);
    }

    @Override
    public InetAddress getInetAddress() {
        InetSocketAddress local = AdaptorCalls.localAddress(channel);
        return local == null ? null : local.getAddress();
    }

    @Override
    public int getLocalPort() {
        InetSocketAddress local = AdaptorCalls.localAddress(channel);
        return local == null ? -1 : local.getPort();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        return AdaptorCalls.localAddress(channel);
    }

    @Override
    public Socket accept() throws IOException {
        if (!channel.isBlocking()) {
            throw new IllegalBlockingModeException();
        }
        SocketChannel accepted = channel.accept();
        return accepted.socket();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    @Override
    public boolean isBound() {
        return AdaptorCalls.localAddress(channel) != null;
    }

    @Override
    public boolean isClosed() {
        return !channel.isOpen();
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout < 0");
        }
        timeoutMillis = timeout;
    }

    @Override
    public int getSoTimeout() {
        return timeoutMillis;
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
        AdaptorCalls.set(channel, StandardSocketOptions.SO_REUSEADDR, on);
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
        return AdaptorCalls.get(channel, StandardSocketOptions.SO_REUSEADDR);
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        AdaptorCalls.set(channel, StandardSocketOptions.SO_RCVBUF, size);
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        return AdaptorCalls.get(channel, StandardSocketOptions.SO_RCVBUF);
    }

    @Override
    public <T> ServerSocket setOption(SocketOption<T> name, T value) throws IOException {
        channel.setOption(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return channel.getOption(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return channel.supportedOptions();
    }

    @Override
    public String toString() {
        return "ServerSocket[" + channel + "]";
    }
}
