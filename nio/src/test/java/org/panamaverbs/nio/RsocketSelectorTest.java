package org.panamaverbs.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.channels.ClosedSelectorException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.IllegalSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** The selector's contracts that need no device: registration, the key sets, waits, wake-ups and close. */
class RsocketSelectorTest {
    private final RsocketSelectorProvider provider = new RsocketSelectorProvider();

    @Test
    void registrationChecksModeProviderAndOperations() throws Exception {
        try (Selector selector = provider.openSelector(); SocketChannel channel = provider.openSocketChannel();
                SocketChannel jdks = java.nio.channels.spi.SelectorProvider.provider().openSocketChannel()) {
            assertThrows(IllegalBlockingModeException.class, () -> channel.register(selector, SelectionKey.OP_READ));
            channel.configureBlocking(false);
            assertThrows(IllegalArgumentException.class, () -> channel.register(selector, SelectionKey.OP_ACCEPT));
            SelectionKey key = channel.register(selector, SelectionKey.OP_CONNECT, "attached");
            assertSame(selector, key.selector());
            assertEquals("attached", key.attachment());
            assertTrue(selector.keys().contains(key));
            assertThrows(UnsupportedOperationException.class, () -> selector.keys().remove(key));
            assertThrows(UnsupportedOperationException.class, () -> selector.selectedKeys().add(key));
            jdks.configureBlocking(false);
            assertThrows(IllegalSelectorException.class, () -> jdks.register(selector, SelectionKey.OP_READ));
        }
    }

    @Test
    void nothingReadyMeansZeroAndATimedSelectWaits() throws Exception {
        try (Selector selector = provider.openSelector(); ServerSocketChannel server = provider.openServerSocketChannel()) {
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT); // unbound: never acceptable
            assertEquals(0, selector.selectNow());
            long start = System.nanoTime();
            assertEquals(0, selector.select(200));
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(190), "select(200) waited");
        }
    }

    @Test
    void wakeupEndsASelectAndOneBeforeItEndsTheNext() throws Exception {
        try (Selector selector = provider.openSelector()) {
            CompletableFuture<Integer> blocked = CompletableFuture.supplyAsync(() -> {
                try {
                    return selector.select();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(300);
            assertFalse(blocked.isDone(), "select() waits");
            selector.wakeup();
            assertEquals(0, blocked.get(10, TimeUnit.SECONDS));
            selector.wakeup();
            assertEquals(0, selector.select(), "a wake-up before the select ends it at once");
            assertEquals(0, selector.select(50), "and only that one");
        }
    }

    @Test
    void anInterruptEndsASelectAndKeepsTheStatus() throws Exception {
        try (Selector selector = provider.openSelector()) {
            CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
            Thread selecting = Thread.ofPlatform().start(() -> {
                try {
                    selector.select();
                    interrupted.complete(Thread.currentThread().isInterrupted());
                } catch (Exception e) {
                    interrupted.completeExceptionally(e);
                }
            });
            Thread.sleep(300);
            selecting.interrupt();
            assertTrue(interrupted.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void closeCancelsTheKeysAndEndsTheSelector() throws Exception {
        Selector selector = provider.openSelector();
        SocketChannel channel = provider.openSocketChannel();
        channel.configureBlocking(false);
        SelectionKey key = channel.register(selector, SelectionKey.OP_CONNECT);
        selector.close();
        selector.close();
        assertFalse(key.isValid());
        assertFalse(channel.isRegistered());
        assertThrows(ClosedSelectorException.class, selector::selectNow);
        assertThrows(ClosedSelectorException.class, selector::keys);
        channel.close();
    }
}
