package org.panamaverbs.nio;

import java.io.IOException;
import java.nio.channels.Pipe;
import java.nio.channels.spi.SelectorProvider;

/**
 * {@code Pipe.open()} of the provider: a kernel pipe ({@code pipe2}) whose two ends are channels its selectors take
 * beside the socket channels, as a program that wakes its selector loop through a pipe expects.
 */
final class DescriptorPipe extends Pipe {
    private final PipeSourceChannel source;
    private final PipeSinkChannel sink;

    DescriptorPipe(SelectorProvider provider) throws IOException {
        PipeEnd[] ends = PipeEnd.open();
        source = new PipeSourceChannel(provider, ends[0]);
        sink = new PipeSinkChannel(provider, ends[1]);
    }

    @Override
    public SourceChannel source() {
        return source;
    }

    @Override
    public SinkChannel sink() {
        return sink;
    }
}
