package org.panamaverbs.nio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code Pipe.open()} of the provider: a kernel pipe's two ends under the JDK's channel contracts and selectors. */
class PipeChannelsTest {
    private final RsocketSelectorProvider provider = new RsocketSelectorProvider();
    private final ExecutorService threads = Executors.newCachedThreadPool(); // blocking tasks: never the common pool

    @AfterEach
    void stopThreads() throws InterruptedException {
        threads.shutdownNow();
        assertTrue(threads.awaitTermination(10, TimeUnit.SECONDS), "a test thread did not stop");
    }

    @Test
    void bytesCrossThePipeBetweenThreadsAndTheCloseEndsTheStream() throws Exception {
        Pipe pipe = provider.openPipe();
        assertSame(provider, pipe.source().provider());
        assertSame(provider, pipe.sink().provider());
        byte[] sent = new byte[1_000_003]; // past the kernel's 64 KiB: the writer blocks until the reader takes
        new Random(5).nextBytes(sent);
        Future<?> writer = threads.submit(() -> {
            try (Pipe.SinkChannel sink = pipe.sink()) {
                ByteBuffer direct = ByteBuffer.allocateDirect(3).put(sent, 0, 3).flip();
                ByteBuffer heap = ByteBuffer.wrap(sent, 3, sent.length - 3);
                ByteBuffer[] gather = {direct, heap};
                while (heap.hasRemaining()) {
                    sink.write(gather);
                }
            }
            return null;
        });
        ByteBuffer received = ByteBuffer.allocate(sent.length + 1);
        try (Pipe.SourceChannel source = pipe.source()) {
            ByteBuffer[] scatter = {received.slice(0, 10), received.slice(10, sent.length + 1 - 10)};
            long total = 0;
            for (long n; (n = source.read(scatter)) >= 0; ) {
                total += n;
            }
            assertEquals(sent.length, total);
            assertEquals(-1, source.read(ByteBuffer.allocate(1)), "the end stays the end");
        }
        writer.get(30, TimeUnit.SECONDS);
        byte[] got = new byte[sent.length];
        received.get(0, got);
        assertArrayEquals(sent, got);
    }

    @Test
    void nonBlockingEndsAndASelectorSeeWhatThePipeHas() throws Exception {
        Pipe pipe = provider.openPipe();
        try (Selector selector = provider.openSelector(); Pipe.SourceChannel source = pipe.source();
                Pipe.SinkChannel sink = pipe.sink()) {
            source.configureBlocking(false);
            sink.configureBlocking(false);
            assertEquals(0, source.read(ByteBuffer.allocate(8)), "nothing in the pipe yet");
            SelectionKey readKey = source.register(selector, SelectionKey.OP_READ);
            SelectionKey writeKey = sink.register(selector, SelectionKey.OP_WRITE);
            assertEquals(1, selector.selectNow(), "an empty pipe has room, no data");
            assertTrue(selector.selectedKeys().contains(writeKey));
            selector.selectedKeys().clear();
            writeKey.interestOps(0);
            assertEquals(0, selector.select(100), "nothing to read within 100 ms");
            long filled = 0;
            ByteBuffer chunk = ByteBuffer.allocateDirect(4096);
            for (int n; (n = sink.write(chunk.clear())) > 0; ) {
                filled += n;
            }
            assertTrue(filled >= 4096, "a non-blocking write fills the pipe, then takes nothing: " + filled);
            assertEquals(1, selector.select(5_000));
            assertTrue(selector.selectedKeys().contains(readKey));
            assertTrue(readKey.isReadable());
            long drained = 0;
            ByteBuffer into = ByteBuffer.allocate(8192);
            for (int n; (n = source.read(into.clear())) > 0; ) {
                drained += n;
            }
            assertEquals(filled, drained);
        }
    }

    @Test
    void aSelectorLoopIsWokenThroughAPipe() throws Exception {
        Pipe pipe = provider.openPipe();
        try (Selector selector = provider.openSelector(); Pipe.SourceChannel source = pipe.source();
                Pipe.SinkChannel sink = pipe.sink()) {
            source.configureBlocking(false);
            source.register(selector, SelectionKey.OP_READ);
            Future<Integer> selection = threads.submit(() -> selector.select(30_000));
            Thread.sleep(200);
            assertFalse(selection.isDone(), "the selection waits");
            sink.write(ByteBuffer.wrap(new byte[] {1}));
            assertEquals(1, selection.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void closeAndInterruptEndBlockedTransfersAsTheJdkDoes() throws Exception {
        Pipe pipe = provider.openPipe();
        Pipe.SourceChannel source = pipe.source();
        Future<?> closer = threads.submit(() -> {
            Thread.sleep(300);
            source.close();
            return null;
        });
        assertThrows(AsynchronousCloseException.class, () -> source.read(ByteBuffer.allocate(1)));
        closer.get(10, TimeUnit.SECONDS);
        assertThrows(ClosedChannelException.class, () -> source.read(ByteBuffer.allocate(1)));
        IOException broken = assertThrows(IOException.class, () -> pipe.sink().write(ByteBuffer.allocate(1)),
                "a write after the read end closed");
        assertTrue(broken.getMessage().contains("Broken pipe"), broken.getMessage());
        pipe.sink().close();

        Pipe second = provider.openPipe();
        Thread reading = Thread.currentThread();
        Future<?> interrupter = threads.submit(() -> {
            Thread.sleep(300);
            reading.interrupt();
            return null;
        });
        try {
            assertThrows(ClosedByInterruptException.class, () -> second.source().read(ByteBuffer.allocate(1)));
        } finally {
            Thread.interrupted();
        }
        interrupter.get(10, TimeUnit.SECONDS);
        assertFalse(second.source().isOpen(), "an interrupt closes the channel");
        second.sink().close();
    }
}
