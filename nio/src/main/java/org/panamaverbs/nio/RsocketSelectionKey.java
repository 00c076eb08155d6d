package org.panamaverbs.nio;

import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.Selector;
import java.nio.channels.spi.AbstractSelectionKey;

/** A registration of one of the provider's channels with an {@link RsocketSelector}: interest and ready sets. */
final class RsocketSelectionKey extends AbstractSelectionKey {
    private final SelectableChannel channel;
    private final RsocketSelector selector;
    private volatile int interestOps;
    /** Written by the selecting thread, read after the select returns. */
    private volatile int readyOps;

    RsocketSelectionKey(SelectableChannel channel, RsocketSelector selector) {
        this.channel = channel;
        this.selector = selector;
    }

    @Override
    public SelectableChannel channel() {
        return channel;
    }

    @Override
    public Selector selector() {
        return selector;
    }

    RsocketSelectable selectable() {
        return (RsocketSelectable) channel;
    }

    @Override
    public int interestOps() {
        ensureValid();
        return interestOps;
    }

    @Override
    public RsocketSelectionKey interestOps(int ops) {
        ensureValid();
        if ((ops & ~channel.validOps()) != 0) {
            throw new IllegalArgumentException("Invalid interest ops: " + ops + " (valid " + channel.validOps() + ")");
        }
        interestOps = ops;
        return this;
    }

    /** The interest set without the validity check, for the selector. */
    int interest() {
        return interestOps;
    }

    @Override
    public int readyOps() {
        ensureValid();
        return readyOps;
    }

    void readyOps(int ops) {
        readyOps = ops;
    }

    private void ensureValid() {
        if (!isValid()) {
            throw new CancelledKeyException();
        }
    }
}
