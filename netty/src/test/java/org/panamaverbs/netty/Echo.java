package org.panamaverbs.netty;

import java.io.ByteArrayOutputStream;
import java.util.concurrent.CompletableFuture;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/** Netty handlers of the echo tests: a server that echoes with back-pressure, a client that collects. */
final class Echo {
    private Echo() {
    }

    /** The byte at {@code index} of the test pattern (rstream's: a counter modulo 256). */
    static byte pattern(long index) {
        return (byte) index;
    }

    /** {@code length} bytes of the pattern from {@code start}. */
    static byte[] pattern(long start, int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = pattern(start + i);
        }
        return bytes;
    }

    /**
     * Writes back what it reads; stops reading while the channel is not writable (Netty's back-pressure idiom), or,
     * made with {@code backPressure} false, reads on and queues what it cannot send yet. rstream's client needs the
     * latter: it sends all its transfers before it reads any answer (its own server reads them all first), so an
     * echo that stops reading while its answers wait would hold up both sides once the transfers exceed the
     * client's receive buffer plus ours.
     */
    @ChannelHandler.Sharable
    static final class Server extends ChannelInboundHandlerAdapter {
        private final boolean backPressure;

        Server() {
            this(true);
        }

        Server(boolean backPressure) {
            this.backPressure = backPressure;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg);
            if (backPressure && !ctx.channel().isWritable()) {
                // auto-read off before the flush: a flush that drains the buffer makes the channel writable again
                // at once, and channelWritabilityChanged must then find auto-read off to turn it back on
                ctx.channel().config().setAutoRead(false);
                ctx.flush();
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable()) {
                ctx.channel().config().setAutoRead(true);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** Collects what arrives until {@code expected} bytes are there; fails on an exception or an early close. */
    static final class Collector extends ChannelInboundHandlerAdapter {
        final ByteArrayOutputStream received = new ByteArrayOutputStream();
        final CompletableFuture<byte[]> done = new CompletableFuture<>();
        final CompletableFuture<Throwable> failure = new CompletableFuture<>();
        final CompletableFuture<Void> inactive = new CompletableFuture<>();
        private final long expected;

        Collector(long expected) {
            this.expected = expected;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buffer = (ByteBuf) msg;
            try {
                synchronized (received) {
                    buffer.readBytes(received, buffer.readableBytes());
                    if (received.size() >= expected) {
                        done.complete(received.toByteArray());
                    }
                }
            } catch (java.io.IOException e) {
                done.completeExceptionally(e);
            } finally {
                buffer.release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            failure.complete(cause);
            done.completeExceptionally(cause);
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            inactive.complete(null);
            done.completeExceptionally(new java.nio.channels.ClosedChannelException());
        }

        int size() {
            synchronized (received) {
                return received.size();
            }
        }

        /** Waits until {@code bytes} arrived, the channel ended or {@code seconds} passed; returns what arrived. */
        int awaitSize(int bytes, long seconds) throws InterruptedException {
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(seconds);
            while (size() < bytes && !inactive.isDone() && System.nanoTime() - deadline < 0) {
                Thread.sleep(2);
            }
            return size();
        }
    }
}
