package org.panamaverbs.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NoConnectionPendingException;
import java.nio.channels.NotYetBoundException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;

import org.junit.jupiter.api.Test;

/**
 * What the channels decide before any device is touched, as the JDK's channels decide it: states, addresses,
 * options, the refusals of what is not provided yet, and close.
 */
class RsocketChannelsTest {
    private final RsocketSelectorProvider provider = new RsocketSelectorProvider();

    @Test
    void anUnconnectedChannelRefusesReadsWritesAndFinishConnect() throws Exception {
        try (SocketChannel channel = provider.openSocketChannel()) {
            assertSame(provider, channel.provider());
            assertTrue(channel.isBlocking());
            assertFalse(channel.isConnected());
            assertFalse(channel.isConnectionPending());
            assertNull(channel.getRemoteAddress());
            assertThrows(NotYetConnectedException.class, () -> channel.read(ByteBuffer.allocate(1)));
            assertThrows(NotYetConnectedException.class, () -> channel.write(ByteBuffer.allocate(1)));
            assertThrows(NotYetConnectedException.class, channel::shutdownOutput);
            assertThrows(NoConnectionPendingException.class, channel::finishConnect);
        }
    }

    @Test
    void addressesAreCheckedAsTheJdkChecksThem() throws Exception {
        try (SocketChannel channel = provider.openSocketChannel()) {
            assertThrows(UnresolvedAddressException.class,
                    () -> channel.connect(InetSocketAddress.createUnresolved("nowhere.invalid", 7471)));
            assertThrows(UnsupportedAddressTypeException.class, () -> channel.connect(new SocketAddress() { }));
            channel.bind(new InetSocketAddress(0));
            assertEquals(new InetSocketAddress(0), channel.getLocalAddress());
            assertThrows(AlreadyBoundException.class, () -> channel.bind(null));
        }
    }

    @Test
    void theRingSizesAreOptionsAndTheRestIsRefused() throws Exception {
        try (SocketChannel channel = provider.openSocketChannel()) {
            assertEquals(1 << 17, channel.getOption(StandardSocketOptions.SO_RCVBUF), "rsocket's default ring");
            channel.setOption(StandardSocketOptions.SO_SNDBUF, 1 << 20).setOption(StandardSocketOptions.TCP_NODELAY, true);
            assertEquals(1 << 20, channel.getOption(StandardSocketOptions.SO_SNDBUF));
            assertTrue(channel.getOption(StandardSocketOptions.TCP_NODELAY));
            assertThrows(IllegalArgumentException.class, () -> channel.setOption(StandardSocketOptions.SO_RCVBUF, 0));
            assertThrows(UnsupportedOperationException.class,
                    () -> channel.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, true));
            assertTrue(channel.supportedOptions().contains(StandardSocketOptions.SO_RCVBUF));
            assertEquals(7200, channel.getOption(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE), "rsocket's default");
            channel.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE, 30);
            assertEquals(30, channel.getOption(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE));
            assertThrows(IllegalArgumentException.class,
                    () -> channel.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE, 0));
        }
        try (ServerSocketChannel server = provider.openServerSocketChannel()) {
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            assertTrue(server.getOption(StandardSocketOptions.SO_REUSEADDR));
            assertThrows(UnsupportedOperationException.class,
                    () -> server.getOption(StandardSocketOptions.TCP_NODELAY));
        }
    }

    @Test
    void anUnboundServerRefusesAccept() throws Exception {
        try (ServerSocketChannel server = provider.openServerSocketChannel()) {
            assertNull(server.getLocalAddress());
            assertThrows(NotYetBoundException.class, server::accept);
            server.configureBlocking(false);
            assertThrows(NotYetBoundException.class, server::accept);
        }
    }

    @Test
    void closeIsIdempotentAndEveryCallAfterItThrows() throws Exception {
        SocketChannel channel = provider.openSocketChannel();
        channel.close();
        channel.close();
        assertFalse(channel.isOpen());
        assertThrows(ClosedChannelException.class, () -> channel.read(ByteBuffer.allocate(1)));
        assertThrows(ClosedChannelException.class, () -> channel.connect(new InetSocketAddress("127.0.0.1", 1)));
        assertThrows(ClosedChannelException.class, channel::getLocalAddress);
        ServerSocketChannel server = provider.openServerSocketChannel();
        server.close();
        server.close();
        assertThrows(ClosedChannelException.class, server::accept);
    }

    @Test
    void theSocketAdaptorsAreTheChannels() throws Exception {
        SocketChannel channel = provider.openSocketChannel();
        java.net.Socket socket = channel.socket();
        assertSame(socket, channel.socket());
        assertSame(channel, socket.getChannel());
        assertFalse(socket.isConnected());
        assertNull(socket.getRemoteSocketAddress());
        socket.setTcpNoDelay(true);
        assertTrue(channel.getOption(StandardSocketOptions.TCP_NODELAY), "an option set through the socket");
        socket.setReceiveBufferSize(1 << 18);
        assertEquals(1 << 18, socket.getReceiveBufferSize());
        assertFalse(socket.getKeepAlive());
        socket.setKeepAlive(true);
        assertTrue(socket.getKeepAlive());
        assertTrue(channel.getOption(StandardSocketOptions.SO_KEEPALIVE), "rsocket's keepalive, through the socket");
        assertThrows(java.net.SocketException.class, () -> socket.setOOBInline(true));
        assertThrows(java.net.SocketException.class, () -> socket.sendUrgentData(1));
        socket.close();
        assertTrue(socket.isClosed());
        assertFalse(channel.isOpen());
        assertThrows(java.net.SocketException.class, () -> socket.setTcpNoDelay(false));
        try (ServerSocketChannel server = provider.openServerSocketChannel()) {
            java.net.ServerSocket serverSocket = server.socket();
            assertSame(server, serverSocket.getChannel());
            assertFalse(serverSocket.isBound());
            serverSocket.setReuseAddress(true);
            assertTrue(server.getOption(StandardSocketOptions.SO_REUSEADDR));
            server.configureBlocking(false);
            assertThrows(java.nio.channels.IllegalBlockingModeException.class, serverSocket::accept);
        }
    }

    @Test
    void datagramChannelsAreRefusedByName() {
        assertTrue(assertThrows(UnsupportedOperationException.class, provider::openDatagramChannel).getMessage()
                .contains("DatagramChannel.open()"));
    }
}
