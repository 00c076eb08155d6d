package org.panamaverbs.nio;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * An unchanged NIO program: it names no class of Panama Verbs and uses java.nio.channels alone, so the provider
 * comes from {@code -Djava.nio.channels.spi.SelectorProvider} only. {@code server ADDRESS}: prints the provider and
 * "listening PORT", then echoes every connection it accepts, a reader and a writer thread each (the reader queues
 * what it read, so a client that sends everything before it reads, as rstream's does, never holds both up).
 * {@code select-server ADDRESS}: the same echo as one thread's {@link Selector} loop over non-blocking channels.
 * {@code client ADDRESS PORT BYTES}: sends BYTES of a counter pattern from one thread while another reads the echo,
 * compares, and prints "echoed BYTES" (exit 0) or what differed (exit 1).
 */
public final class NioEcho {
    private NioEcho() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("provider " + SelectorProvider.provider().getClass().getName());
        InetAddress address = InetAddress.getByName(args[1]);
        if (args[0].equals("server")) {
            serve(address);
        } else if (args[0].equals("select-server")) {
            selectLoop(address);
        } else {
            System.exit(echo(new InetSocketAddress(address, Integer.parseInt(args[2])), Long.parseLong(args[3])));
        }
    }

    private static void serve(InetAddress address) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(address, 0));
        System.out.println("listening " + ((InetSocketAddress) server.getLocalAddress()).getPort());
        exitWithStandardInput();
        for (;;) {
            SocketChannel connection = server.accept();
            LinkedBlockingQueue<ByteBuffer> echoes = new LinkedBlockingQueue<>();
            Thread.ofPlatform().daemon().start(() -> {
                try {
                    for (ByteBuffer next; (next = echoes.take()).capacity() > 0; ) {
                        while (next.hasRemaining()) {
                            connection.write(next);
                        }
                    }
                    connection.shutdownOutput();
                } catch (Exception e) {
                    System.out.println("echo write: " + e);
                }
            });
            Thread.ofPlatform().daemon().start(() -> {
                try {
                    ByteBuffer buffer = ByteBuffer.allocate(65536);
                    while (connection.read(buffer) >= 0) {
                        echoes.add(ByteBuffer.wrap(Arrays.copyOf(buffer.array(), buffer.position())));
                        buffer.clear();
                    }
                } catch (IOException e) {
                    System.out.println("echo read: " + e);
                } finally {
                    echoes.add(ByteBuffer.allocate(0));
                }
            });
        }
    }

    private static void selectLoop(InetAddress address) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(address, 0));
        server.configureBlocking(false);
        Selector selector = Selector.open();
        server.register(selector, SelectionKey.OP_ACCEPT);
        System.out.println("listening " + ((InetSocketAddress) server.getLocalAddress()).getPort());
        exitWithStandardInput();
        ByteBuffer buffer = ByteBuffer.allocateDirect(65536);
        for (;;) {
            selector.select();
            for (Iterator<SelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                SelectionKey key = it.next();
                it.remove();
                if (key.isValid() && key.isAcceptable()) {
                    for (SocketChannel accepted; (accepted = server.accept()) != null; ) {
                        accepted.configureBlocking(false);
                        accepted.register(selector, SelectionKey.OP_READ, new Echoes());
                    }
                    continue;
                }
                SocketChannel channel = (SocketChannel) key.channel();
                Echoes echoes = (Echoes) key.attachment();
                try {
                    if (key.isValid() && key.isReadable()) {
                        int n = channel.read(buffer.clear());
                        if (n < 0) {
                            echoes.ended = true;
                        } else if (n > 0) {
                            echoes.pending.add(ByteBuffer.allocate(n).put(buffer.flip()).flip());
                        }
                    }
                    if (key.isValid() && key.isWritable()) {
                        for (ByteBuffer next; (next = echoes.pending.peek()) != null; echoes.pending.poll()) {
                            channel.write(next);
                            if (next.hasRemaining()) {
                                break;
                            }
                        }
                    }
                    if (echoes.ended && echoes.pending.isEmpty()) {
                        channel.close();
                    } else {
                        key.interestOps((echoes.ended ? 0 : SelectionKey.OP_READ)
                                | (echoes.pending.isEmpty() ? 0 : SelectionKey.OP_WRITE));
                    }
                } catch (IOException e) {
                    System.out.println("echo: " + e);
                    channel.close();
                }
            }
        }
    }

    /** What a selected connection has read and not yet written back, and whether its peer's stream ended. */
    private static final class Echoes {
        final ArrayDeque<ByteBuffer> pending = new ArrayDeque<>();
        boolean ended;
    }

    private static void exitWithStandardInput() {
        Thread.ofPlatform().daemon().start(() -> { // ends with standard input: the test is done
            try {
                System.in.transferTo(java.io.OutputStream.nullOutputStream());
            } catch (IOException e) {
                // ended all the same
            }
            System.exit(0);
        });
    }

    private static int echo(InetSocketAddress server, long bytes) throws Exception {
        try (SocketChannel channel = SocketChannel.open(server)) {
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    ByteBuffer chunk = ByteBuffer.allocateDirect(50_000);
                    for (long sent = 0; sent < bytes; ) {
                        chunk.clear().limit((int) Math.min(chunk.capacity(), bytes - sent));
                        for (int i = 0; i < chunk.limit(); i++) {
                            chunk.put(i, (byte) (sent + i));
                        }
                        while (chunk.hasRemaining()) {
                            sent += channel.write(chunk);
                        }
                    }
                    channel.shutdownOutput();
                } catch (IOException e) {
                    System.out.println("write: " + e);
                }
            });
            ByteBuffer buffer = ByteBuffer.allocate(70_000);
            long received = 0;
            for (int n; (n = channel.read(buffer)) >= 0; buffer.clear()) {
                for (int i = 0; i < n; i++, received++) {
                    if (buffer.get(i) != (byte) received) {
                        System.out.println("byte " + received + " is " + buffer.get(i) + ", sent " + (byte) received);
                        return 1;
                    }
                }
            }
            writer.join();
            System.out.println(received == bytes ? "echoed " + received : "echoed " + received + " of " + bytes);
            return received == bytes ? 0 : 1;
        }
    }
}
