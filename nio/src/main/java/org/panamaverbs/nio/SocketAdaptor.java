package org.panamaverbs.nio;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.util.Set;

/**
 * The {@link Socket} an {@link RsocketSocketChannel} hands out from {@code socket()}, as the JDK's channels hand
 * out theirs: every call goes to the channel (addresses, state, the options it supports, shutdown, close; streams
 * over it in blocking mode). What the channel does not support is refused as {@code Socket} refuses an option it
 * lacks, with a {@link SocketException}; {@code SO_TIMEOUT} is kept and reported but blocking reads through the
 * streams wait without it, and {@code sendUrgentData} is refused (rsockets carry no urgent data).
 */
final class SocketAdaptor extends Socket {
    private final RsocketSocketChannel channel;
    private volatile int timeoutMillis;

    SocketAdaptor(RsocketSocketChannel channel) {
        this.channel = channel;
    }

    @Override
    public SocketChannel getChannel() {
        return channel;
    }

    @Override
    public void connect(SocketAddress remote) throws IOException {
        channel.connect(remote);
    }

    @Override
    public void connect(SocketAddress remote, int timeout) throws IOException {
        channel.connect(remote); // bounded by the channel's own connect timeout
    }

    @Override
    public void bind(SocketAddress local) throws IOException {
        channel.bind(local);
    }

    @Override
    public InetAddress getInetAddress() {
        InetSocketAddress remote = remote();
        return remote == null ? null : remote.getAddress();
    }

    @Override
    public int getPort() {
        InetSocketAddress remote = remote();
        return remote == null ? 0 : remote.getPort();
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
        return remote();
    }

    private InetSocketAddress remote() {
        try {
            return (InetSocketAddress) channel.getRemoteAddress();
        } catch (IOException closed) {
            return null;
        }
    }

    @Override
    public InetAddress getLocalAddress() {
        InetSocketAddress local = AdaptorCalls.localAddress(channel);
        return local == null ? InetAddress.getLoopbackAddress() : local.getAddress();
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
    public InputStream getInputStream() throws IOException {
        AdaptorCalls.ensureOpen(channel);
        return Channels.newInputStream(channel);
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
        AdaptorCalls.ensureOpen(channel);
        return Channels.newOutputStream(channel);
    }

    @Override
    public boolean isConnected() {
        return channel.isConnected();
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
    public boolean isInputShutdown() {
        return channel.isInputShutdown();
    }

    @Override
    public boolean isOutputShutdown() {
        return channel.isOutputShutdown();
    }

    @Override
    public void shutdownInput() throws IOException {
        channel.shutdownInput();
    }

    @Override
    public void shutdownOutput() throws IOException {
        channel.shutdownOutput();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    @Override
    public void setTcpNoDelay(boolean on) throws SocketException {
        AdaptorCalls.set(channel, StandardSocketOptions.TCP_NODELAY, on);
    }

    @Override
    public boolean getTcpNoDelay() throws SocketException {
        return AdaptorCalls.get(channel, StandardSocketOptions.TCP_NODELAY);
    }

    @Override
    public void setSendBufferSize(int size) throws SocketException {
        AdaptorCalls.set(channel, StandardSocketOptions.SO_SNDBUF, size);
    }

    @Override
    public int getSendBufferSize() throws SocketException {
        return AdaptorCalls.get(channel, StandardSocketOptions.SO_SNDBUF);
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
    public void setSoTimeout(int timeout) throws SocketException {
        AdaptorCalls.ensureOpen(channel);
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout < 0");
        }
        timeoutMillis = timeout;
    }

    @Override
    public int getSoTimeout() throws SocketException {
        AdaptorCalls.ensureOpen(channel);
        return timeoutMillis;
    }

    @Override
    public void setKeepAlive(boolean on) throws SocketException {
        AdaptorCalls.set(channel, StandardSocketOptions.SO_KEEPALIVE, on);
    }

    @Override
    public boolean getKeepAlive() throws SocketException {
        return AdaptorCalls.get(channel, StandardSocketOptions.SO_KEEPALIVE);
    }

    @Override
    public void setSoLinger(boolean on, int linger) throws SocketException {
        AdaptorCalls.set(channel, StandardSocketOptions.SO_LINGER, on ? linger : -1);
    }

    @Override
    public int getSoLinger() throws SocketException {
        AdaptorCalls.ensureOpen(channel);
        return -1; // a close lingers up to 2 s for the last sends, as rclose waits for them
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
        AdaptorCalls.ensureOpen(channel); // rdma_cm's ports have no TIME_WAIT: nothing to reuse
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
        AdaptorCalls.ensureOpen(channel);
        return false;
    }

    @Override
    public void setTrafficClass(int tc) throws SocketException {
        AdaptorCalls.set(channel, StandardSocketOptions.IP_TOS, tc);
    }

    @Override
    public int getTrafficClass() throws SocketException {
        AdaptorCalls.ensureOpen(channel);
        return 0;
    }

    @Override
    public void setOOBInline(boolean on) throws SocketException {
        if (on) {
            throw new SocketException("rsockets carry no urgent data");
        }
    }

    @Override
    public boolean getOOBInline() throws SocketException {
        AdaptorCalls.ensureOpen(channel);
        return false;
    }

    @Override
    public void sendUrgentData(int data) throws IOException {
        throw new SocketException("rsockets carry no urgent data");
    }

    @Override
    public <T> Socket setOption(SocketOption<T> name, T value) throws IOException {
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
        return "Socket[" + channel + "]";
    }
}
