package org.panamaverbs.nio;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Pipe;
import java.nio.channels.spi.SelectorProvider;
import java.util.Objects;

/**
 * The write end of a {@link DescriptorPipe}: a kernel pipe's descriptor ({@link PipeEnd}), in blocking and
 * non-blocking mode, selectable by the provider's selectors ({@code OP_WRITE}), closed from another thread or by an
 * interrupt as the JDK's pipe channels are.
 */
final class PipeSinkChannel extends Pipe.SinkChannel implements RsocketSelectable, PipeEnd.Owner {
    private final PipeEnd pipeEnd;

    PipeSinkChannel(SelectorProvider provider, PipeEnd pipeEnd) {
        super(provider);
        this.pipeEnd = pipeEnd;
    }

    @Override
    public int write(ByteBuffer source) throws IOException {
        Objects.requireNonNull(source, "source");
        return (int) pipeEnd.transfer(this, source, null, 0, 0);
    }

    @Override
    public long write(ByteBuffer[] sources, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, sources.length);
        return pipeEnd.transfer(this, null, sources, offset, length);
    }

    @Override
    public long write(ByteBuffer[] sources) throws IOException {
        return write(sources, 0, sources.length);
    }

    @Override
    protected void implCloseSelectableChannel() {
        pipeEnd.close(this);
    }

    @Override
    protected void implConfigureBlocking(boolean block) {
        // each transfer looks at isBlocking(); the descriptor itself is always non-blocking
    }

    @Override
    public void enterBlocking() {
        begin();
    }

    @Override
    public void exitBlocking(boolean completed) throws AsynchronousCloseException {
        end(completed);
    }

    @Override
    public int readyOps() {
        return isOpen() ? pipeEnd.readyOps() : 0;
    }

    @Override
    public void arm() {
        // the kernel's pipe needs no arming
    }

    @Override
    public int descriptors(int interest, int[] fds, short[] events, int at) {
        return pipeEnd.descriptors(fds, events, at);
    }

    @Override
    public void selectorAdded(RsocketSelector selector) {
        pipeEnd.selectorAdded(selector);
    }

    @Override
    public void selectorRemoved(RsocketSelector selector) {
        pipeEnd.selectorRemoved(selector, this);
    }
}
