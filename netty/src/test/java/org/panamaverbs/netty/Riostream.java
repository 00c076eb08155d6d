package org.panamaverbs.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;

/**
 * {@code riostream}'s exchange (rdma-core's {@code librdmacm/examples/riostream.c}, {@code run_test} with one
 * iteration and data verification, {@code -T v}) played by a Java peer on a connected channel: both sides map a
 * region of {@code size} bytes at offset 0, send 16 bytes each way to synchronize, then each in turn writes
 * {@code count} transfers of the whole region into the other's with {@code riowrite}, the last one carrying the
 * counter bytes of {@code format_buf} and a marker in the last byte that the other side spins on before it checks
 * the bytes ({@code verify_buf}). Here the writes are {@link RdmaDirectWrite}s and the region an
 * {@link RdmaMappedRegion}.
 */
final class Riostream {
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();

    private final RdmaSocketChannel channel;
    private final Echo.Collector stream;
    private final boolean client;
    private final int size;
    private final int count;
    private final byte[] local;
    private byte formatted;
    private byte verified;

    /**
     * @param stream the channel's handler, collecting what arrives in the stream (the 16 synchronization bytes)
     * @param client riostream's client role (it writes first) or its server's
     */
    Riostream(RdmaSocketChannel channel, Echo.Collector stream, boolean client, int size, int count) {
        this.channel = channel;
        this.stream = stream;
        this.client = client;
        this.size = size;
        this.count = count;
        this.local = new byte[size];
    }

    /** Runs the exchange; fails the test on wrong bytes or a wait past 120 s. Returns the bytes this side verified. */
    int run() throws Exception {
        try (RdmaMappedRegion region = channel.mapRegion(size, 0).get(60, TimeUnit.SECONDS)) {
            MemorySegment memory = region.segment();
            memory.set(ValueLayout.JAVA_BYTE, size - 1, (byte) -1);
            local[size - 1] = (byte) -1;
            if (client) {
                channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[16])).sync();
                awaitStream(16);
            } else {
                awaitStream(16);
                channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[16])).sync();
            }
            byte marker = 0;
            if (client) {
                sendTransfers(marker++);
                return receiveTransfer(memory, marker);
            }
            int checked = receiveTransfer(memory, marker++);
            sendTransfers(marker);
            return checked;
        }
    }

    /** {@code count - 1} transfers of the region, then the marker and the formatted bytes in the last. */
    private void sendTransfers(byte marker) throws InterruptedException {
        for (int t = 0; t < count - 1; t++) {
            channel.write(new RdmaDirectWrite(0, Unpooled.copiedBuffer(local)));
        }
        local[size - 1] = marker;
        for (int i = 0; i < size - 1; i++) {
            local[i] = formatted++;
        }
        ChannelFuture last = channel.writeAndFlush(new RdmaDirectWrite(0, Unpooled.copiedBuffer(local)));
        if (!last.await(120, TimeUnit.SECONDS) || !last.isSuccess()) {
            throw new AssertionError("the last direct write: " + last.cause() + "; " + channel.describeState(),
                    last.cause());
        }
    }

    /** Spins on the region's last byte as riostream's {@code recv_xfer} does, then checks the bytes before it. */
    private int receiveTransfer(MemorySegment memory, byte marker) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while ((byte) BYTE.getAcquire(memory, (long) size - 1) != marker) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("marker " + marker + " not in the region's last byte after 120 s (it holds "
                        + memory.get(ValueLayout.JAVA_BYTE, size - 1) + "); " + channel.describeState());
            }
            LockSupport.parkNanos(20_000);
        }
        for (int i = 0; i < size - 1; i++) {
            byte expected = verified++;
            assertEquals(expected, memory.get(ValueLayout.JAVA_BYTE, i), "byte " + i + " of the peer's transfer");
        }
        return size - 1;
    }

    private void awaitStream(int bytes) throws InterruptedException {
        assertEquals(bytes, stream.awaitSize(bytes, 120), "riostream's synchronization bytes; " + channel.describeState());
    }
}
