package org.panamaverbs.nio;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Pipe;
import java.nio.channels.spi.SelectorProvider;
import java.util.Objects;

/**
 * The read end of a {@link DescriptorPipe}: a kernel pipe's descriptor ({@link PipeEnd}), in blocking and
 * non-blocking mode, selectable by the provider's selectors ({@code OP_READ}), closed from another thread or by an
 * interrupt as the JDK's pipe channels are.
 */
final class PipeSourceChannel extends Pipe.SourceChannel implements RsocketSelectable, PipeEnd.Owner {
    private final PipeEnd pipeEnd;

    PipeSourceChannel(SelectorProvider provider, PipeEnd pipeEnd) {
        super(provider);
        this.pipeEnd = pipeEnd;
    }

    @Override
    public int read(ByteBuffer target) throws IOException {
        Objects.requireNonNull(target, "target");
        return (int) pipeEnd.transfer(this, target, null, 0, 0);
    }

    @Override
    public long read(ByteBuffer[] targets, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, targets.length);
        return pipeEnd.transfer(this, null, targets, offset, length);
    }

    @Override
    public long read(ByteBuffer[] targets) throws IOException {
        return read(targets, 0, targets.length);
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
