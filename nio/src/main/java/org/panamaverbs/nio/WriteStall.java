package org.panamaverbs.nio;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The bound of a blocking write that the peer does not take bytes from (system property
 * {@value RsocketSelectorProvider#WRITE_STALL_PROPERTY}): the write's waits are cut to what is left of it, and once
 * none is left the write fails with an {@link IOException} saying so.
 */
final class WriteStall {
    private WriteStall() {
    }

    /**
     * How long the write may still wait ({@link ChannelWaits#FOREVER} when there is no bound), the bound counted
     * from {@code progressed}, when it last took bytes.
     *
     * @throws IOException when the bound passed
     */
    static long left(long stallNanos, long progressed, InetSocketAddress peer) throws IOException {
        if (stallNanos <= 0) {
            return ChannelWaits.FOREVER;
        }
        long left = progressed + stallNanos - System.nanoTime();
        if (left <= 0) {
            throw new IOException("write stalled: " + (peer == null ? "the peer" : peer) + " took no byte for "
                    + TimeUnit.NANOSECONDS.toMillis(stallNanos) + " ms (" + RsocketSelectorProvider.WRITE_STALL_PROPERTY
                    + "); the bytes written before were sent and the channel is open");
        }
        return left;
    }
}
