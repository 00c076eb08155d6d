package org.panamaverbs.nio;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NotYetBoundException;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.nio.channels.spi.SelectorProvider;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.panamaverbs.cm.CmEvent;
import org.panamaverbs.cm.CmEventType;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.PortSpace;
import org.panamaverbs.rsocket.RsocketWire;
import org.panamaverbs.verbs.VerbsException;

/**
 * A {@link ServerSocketChannel} that accepts rsocket connections from Java and C peers: an rdma_cm id in the TCP
 * port space bound ({@code rdma_bind_addr}) and listening ({@code rdma_listen}, the backlog as given, else 1024).
 * A thread of the channel reads the connection requests ({@code rdma_get_cm_event}) as they come, refuses one that
 * does not carry rsocket's version-1 data ({@code rdma_reject}) and accepts the others at once ({@code rdma_accept})
 * into a backlog of the listen backlog's size, as a TCP listener's kernel does; {@link #accept()} takes the next
 * connection from it: a blocking accept waits, a non-blocking one returns null. The port is rdma_cm's: it does not collide with a TCP
 * socket's on the same number. Closing the channel leaves the connections it accepted open.
 */
final class RsocketServerSocketChannel extends ServerSocketChannel implements RsocketSelectable {
    /** rdma_listen's backlog when the caller gives none (as the JDK's default of 50 is too small for rdma_cm). */
    private static final int DEFAULT_BACKLOG = 1024;
    /** rdma_bind_addr's errno for an address that no RDMA device serves. */
    private static final int ENODEV = 19;

    private final ChannelWaits waits;
    private final ReentrantLock lock;
    private final ReentrantLock acceptLock = new ReentrantLock();
    /** Signalled when the backlog gains a connection or a failure, and at close. */
    private final Condition acceptable;
    private final ConcurrentLinkedQueue<CmEvent> requests = new ConcurrentLinkedQueue<>();
    /** Connections accepted by the listener's thread and not yet taken by {@link #accept()}; under the lock. */
    private final ArrayDeque<SocketChannel> backlog = new ArrayDeque<>();
    /** What the listener's thread could not accept, for the next {@link #accept()} to throw. */
    private final ConcurrentLinkedQueue<Exception> failures = new ConcurrentLinkedQueue<>();
    private int backlogLimit = DEFAULT_BACKLOG;
    /** Made on the first {@link #socket()}. */
    private volatile ServerSocketAdaptor adaptor;
    /** The selectors this channel is registered with, woken when the listener's thread fills the backlog. */
    private final List<RsocketSelector> selectors = new CopyOnWriteArrayList<>();
    private final RsocketOptions options = RsocketOptions.forServer();
    private CmEvents events;
    private CmId listening;
    private InetSocketAddress local;
    /** The TCP socket this channel listens on instead (set once, under the lock), or null while it is rdma_cm's. */
    private volatile TcpListener tcp;

    RsocketServerSocketChannel(SelectorProvider provider) throws IOException {
        super(provider);
        waits = new ChannelWaits(() -> { }); // a listener drives no queue pair
        lock = waits.lock;
        acceptable = lock.newCondition();
    }

    private void unlock() {
        waits.unlock();
    }

    @Override
    public ServerSocketChannel bind(SocketAddress address, int requestedBacklog) throws IOException {
        lock.lock();
        try {
            ensureOpen();
            if (listening != null || tcp != null) {
                throw new AlreadyBoundException();
            }
            if (address != null && !(address instanceof InetSocketAddress)) {
                throw new UnsupportedAddressTypeException();
            }
            InetSocketAddress inet = address == null ? new InetSocketAddress(0) : (InetSocketAddress) address;
            if (inet.isUnresolved()) {
                throw new UnresolvedAddressException();
            }
            backlogLimit = requestedBacklog < 1 ? DEFAULT_BACKLOG : requestedBacklog;
            CmEvents made;
            try {
                made = new CmEvents();
            } catch (RuntimeException e) { // no rdma_cm on this machine
                return listenOverTcp(inet, e);
            }
            CmId id = null;
            try {
                id = CmId.create(made.channel(), PortSpace.TCP);
                made.follow(id, this::deliver);
                id.bind(inet);
                id.listen(backlogLimit);
                local = id.localAddress();
            } catch (RuntimeException e) {
                made.release(); // closes the id with it
                if (e instanceof VerbsException failed && failed.errno() == ENODEV) { // no RDMA device on it
                    return listenOverTcp(inet, e);
                }
                throw new IOException("cannot listen on " + inet + " over RDMA: " + e.getMessage(), e);
            }
            events = made;
            listening = id;
            Thread.ofPlatform().daemon().name("rsocket listener " + local).start(this::acceptRequests);
            return this;
        } finally {
            unlock();
        }
    }

    /** Under the lock: rdma_cm cannot serve {@code address}; listens on TCP instead, or refuses as the switch says. */
    private ServerSocketChannel listenOverTcp(InetSocketAddress address, RuntimeException rdmaFailure)
            throws IOException {
        if (!(provider() instanceof RsocketSelectorProvider ours && ours.tcpFallback())) {
            throw new IOException("cannot listen on " + address + " over RDMA: " + rdmaFailure.getMessage(),
                    rdmaFailure);
        }
        TcpListener listener = TcpListener.listen(address, backlogLimit,
                Boolean.TRUE.equals(options.explicit().get(StandardSocketOptions.SO_REUSEADDR)));
        Object receiveBuffer = options.explicit().get(StandardSocketOptions.SO_RCVBUF);
        if (receiveBuffer != null) {
            listener.setOption(StandardSocketOptions.SO_RCVBUF, receiveBuffer);
        }
        tcp = listener;
        local = listener.localAddress();
        return this;
    }

    /** A connection request, from whichever thread read the event channel: queued, and accept() woken. */
    private void deliver(CmEvent event) {
        if (event.type() == CmEventType.CONNECT_REQUEST) {
            requests.add(event);
            waits.wakeup();
        }
    }

    /**
     * The listener's thread: reads the connection requests as they come and accepts each at once into
     * {@link #backlog} (up to the backlog), as a TCP listener's kernel completes handshakes before {@code accept()};
     * so a client's blocking connect returns although the server calls {@code accept()} later, on the same thread
     * or not at all yet. Ends with the channel.
     */
    private void acceptRequests() {
        lock.lock();
        try {
            while (isOpen()) {
                events.poll();
                while (backlog.size() < backlogLimit) {
                    CmEvent request = requests.poll();
                    if (request == null) {
                        break;
                    }
                    try {
                        SocketChannel channel = acceptRequest(request);
                        if (channel != null) {
                            backlog.add(channel);
                        }
                    } catch (IOException | RuntimeException e) {
                        failures.add(e); // the next accept() reports it; the request was refused
                    }
                    acceptable.signalAll();
                    for (RsocketSelector selector : selectors) {
                        selector.wakeup();
                    }
                }
                waits.await(events.fd(), -1, ChannelWaits.FOREVER);
            }
        } finally {
            unlock();
        }
    }

    @Override
    public SocketChannel accept() throws IOException {
        acceptLock.lock();
        try {
            boolean blocking = isBlocking();
            SocketChannel accepted = null;
            try {
                if (blocking) {
                    begin();
                }
                accepted = tcp != null ? acceptOverTcp(blocking) : acceptFromBacklog(blocking);
                return accepted;
            } finally {
                if (blocking) {
                    end(accepted != null);
                }
            }
        } finally {
            acceptLock.unlock();
        }
    }

    /** The next connection the listener's thread accepted; null when none waits and the channel does not block. */
    private SocketChannel acceptFromBacklog(boolean blocking) throws IOException {
        lock.lock();
        try {
            for (;;) {
                ensureOpen();
                if (listening == null) {
                    throw new NotYetBoundException();
                }
                Exception failed = failures.poll();
                if (failed != null) {
                    throw failed instanceof IOException io ? io : new IOException(failed.getMessage(), failed);
                }
                SocketChannel accepted = backlog.poll();
                if (accepted != null) {
                    waits.wakeup(); // room in the backlog: the listener's thread accepts what waits
                    return accepted;
                }
                if (!blocking) {
                    return null;
                }
                try {
                    acceptable.await(); // a close (or the interrupt's close) signals too
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt(); // the interrupt closes the channel: end() says so
                }
            }
        } finally {
            unlock();
        }
    }

    /** The next connection the kernel completed on the TCP fallback listener. */
    private SocketChannel acceptOverTcp(boolean blocking) throws IOException {
        ensureOpen();
        TcpConnection connection = tcp.accept(blocking,
                provider() instanceof RsocketSelectorProvider ours ? ours.writeStallNanos() : 0);
        return connection == null ? null : RsocketSocketChannel.acceptedOverTcp(provider(), connection);
    }

    /** The channel of one request, or null when it was refused (not rsocket's data). */
    private SocketChannel acceptRequest(CmEvent request) throws IOException {
        RsocketWire.ConnectionData client;
        try {
            client = RsocketWire.ConnectionData.decode(request.privateData());
        } catch (RsocketWire.MalformedConnectionData e) {
            try {
                request.id().reject(null);
            } finally {
                request.id().closeAsync();
            }
            return null;
        }
        try {
            return RsocketSocketChannel.accepted(provider(), events, request, client, options);
        } catch (IOException e) {
            request.id().closeAsync();
            throw e;
        }
    }

    @Override
    protected void implCloseSelectableChannel() {
        TcpListener listener = tcp;
        if (listener != null) {
            listener.close(); // a blocked accept returns; the socket goes once no accept or selector uses it
            if (isRegistered()) {
                selectors.forEach(RsocketSelector::wakeup);
            } else {
                releaseListener(listener);
            }
            return;
        }
        lock.lock();
        try {
            acceptable.signalAll();
            waits.close(TimeUnit.SECONDS.toNanos(1));
            if (listening != null) {
                events.unfollow(listening);
                listening.closeAsync();
                listening = null;
            }
            for (CmEvent request; (request = requests.poll()) != null; ) {
                request.id().closeAsync(); // refused by its destruction, as a closed C listener's requests are
            }
            for (SocketChannel accepted; (accepted = backlog.poll()) != null; ) {
                try {
                    accepted.close(); // never taken: closed, as a TCP listener's close resets its backlog
                } catch (IOException e) {
                    // closing the rest all the same
                }
            }
            if (events != null) {
                events.release(); // closed once the connections accepted from it are closed too
                events = null;
            }
        } finally {
            unlock();
        }
    }

    @Override
    public int readyOps() {
        TcpListener listener = tcp;
        if (listener != null) {
            return isOpen() ? listener.readyOps() : 0;
        }
        lock.lock();
        try {
            return isOpen() && (!backlog.isEmpty() || !failures.isEmpty()) ? SelectionKey.OP_ACCEPT : 0;
        } finally {
            unlock();
        }
    }

    @Override
    public void arm() {
        // the listener's thread wakes the selectors; there is no queue to arm
    }

    @Override
    public int descriptors(int interest, int[] fds, short[] events, int at) {
        TcpListener listener = tcp;
        return listener == null ? 0 : listener.descriptors(fds, events, at);
    }

    @Override
    public void selectorAdded(RsocketSelector selector) {
        selectors.add(selector);
    }

    @Override
    public void selectorRemoved(RsocketSelector selector) {
        selectors.remove(selector);
        TcpListener listener = tcp;
        if (listener != null && !isOpen() && !isRegistered()) {
            Thread.ofVirtual().name("tcp listener close").start(() -> releaseListener(listener));
        }
    }

    /** Closes a TCP listener's socket once no accept runs (bounded: one that does not leave keeps it open). */
    private void releaseListener(TcpListener listener) {
        try {
            if (acceptLock.tryLock(1, TimeUnit.SECONDS)) {
                try {
                    listener.release();
                } finally {
                    acceptLock.unlock();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    protected void implConfigureBlocking(boolean block) {
        // accept() looks at isBlocking()
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        lock.lock();
        try {
            ensureOpen();
            return local;
        } finally {
            unlock();
        }
    }

    @Override
    public <T> ServerSocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        ensureOpen();
        options.set(name, value);
        TcpListener listener = tcp;
        if (listener != null) {
            listener.setOption(name, value);
        }
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        ensureOpen();
        return options.get(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return options.supported();
    }

    @Override
    public ServerSocket socket() {
        ServerSocketAdaptor made = adaptor;
        if (made == null) {
            synchronized (this) {
                made = adaptor;
                if (made == null) {
                    try {
                        adaptor = made = new ServerSocketAdaptor(this);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e); // ServerSocket() opens nothing; never seen
                    }
                }
            }
        }
        return made;
    }

    private void ensureOpen() throws ClosedChannelException {
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
    }

    @Override
    public String toString() {
        return "RsocketServerSocketChannel[" + (local == null ? "unbound" : local) + "]";
    }
}
