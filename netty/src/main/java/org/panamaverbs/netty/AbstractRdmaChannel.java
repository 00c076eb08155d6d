package org.panamaverbs.netty;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.RejectedExecutionException;

import io.netty.channel.AbstractChannel;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoRegistration;
import org.panamaverbs.cm.CmEvent;
import org.panamaverbs.cm.CmId;

/**
 * What the RDMA channels share, as Netty's {@code AbstractEpollChannel} is shared by its epoll channels: the
 * registration with an event loop that serves RDMA ({@link RdmaIoHandler}'s, or an epoll loop's RDMA side), the
 * local address, and the rdma_cm id whose events the loop hands to {@link #onCmEvent} on the channel's own loop.
 */
abstract class AbstractRdmaChannel extends AbstractChannel {
    RdmaLoop.Registration registration;
    private IoRegistration ioRegistration;
    volatile InetSocketAddress local;
    /** The id whose events reach {@link #onCmEvent}, and the loop whose event channel reports them. */
    private CmId followedId;
    private RdmaLoop followingLoop;
    /** The loop a forwarded event is handed to; set at registration, before any call that makes one. */
    private volatile EventLoop cmEventLoop;

    AbstractRdmaChannel(Channel parent) {
        super(parent);
    }

    @Override
    protected SocketAddress localAddress0() {
        return local;
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return RdmaLoop.serves(loop);
    }

    @Override
    protected final void doRegister(ChannelPromise promise) {
        RdmaLoop.register(eventLoop(), (RdmaIoHandle) unsafe(), promise, (loopRegistration, rdmaRegistration) -> {
            ioRegistration = loopRegistration;
            registration = rdmaRegistration;
            cmEventLoop = eventLoop();
            registered(promise);
        });
    }

    /** The channel joined its loop's RDMA side ({@link #registration} is set); completes {@code promise}. */
    abstract void registered(ChannelPromise promise);

    @Override
    protected void doDeregister() {
        IoRegistration current = ioRegistration;
        if (current != null) {
            ioRegistration = null;
            registration = null;
            current.cancel();
        }
    }

    // ------------------------------------------------------------------------------------------------ rdma_cm

    /** An rdma_cm event of the followed id, on this channel's loop. */
    abstract void onCmEvent(CmEvent event);

    /** From now on the events of {@code id} (an id of {@code loop}'s event channel, this loop's) reach {@link #onCmEvent}. */
    final void follow(RdmaLoop loop, CmId id) {
        followedId = id;
        followingLoop = loop;
        loop.follow(id, this::onCmEvent);
    }

    /**
     * From now on the events of {@code id}, reported on the event channel of {@code loop} (another channel's: a
     * server's, whose request it was), are handed to this channel's loop. Before this channel is registered there
     * is nothing to hand them to: an event then is dropped (none comes before the accept that registration starts).
     */
    final void followFrom(RdmaLoop loop, CmId id) {
        followedId = id;
        followingLoop = loop;
        loop.follow(id, event -> {
            EventLoop own = cmEventLoop;
            if (own == null) {
                return;
            }
            if (own.inEventLoop()) {
                onCmEvent(event);
            } else {
                try {
                    own.execute(() -> onCmEvent(event));
                } catch (RejectedExecutionException e) {
                    // the channel's loop shuts down, and closes the channel with it
                }
            }
        });
    }

    /** The followed id's events go nowhere from now on (it is being closed). Idempotent. */
    final void unfollow() {
        RdmaLoop loop = followingLoop;
        if (loop != null) {
            loop.unfollow(followedId);
            followingLoop = null;
            followedId = null;
        }
    }

    /** The unsafe of an RDMA channel: what its loop hands news to, and Netty's entry points. */
    abstract class AbstractRdmaUnsafe extends AbstractUnsafe implements RdmaIoHandle {
        @Override
        public void close() {
            close(voidPromise());
        }
    }
}
