package org.panamaverbs.nio;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import org.panamaverbs.netty.RdmaIoHandler;
import org.panamaverbs.netty.RdmaServerSocketChannel;

/**
 * An echo server on the project's Netty transport ({@code RdmaServerSocketChannel} on {@code RdmaIoHandler}'s loop),
 * the other Java implementation of rsocket: {@code ADDRESS} prints "listening PORT", echoes every connection and
 * closes it once the peer's output is shut and the echo is out; exits when its standard input ends.
 */
public final class NettyTransportEcho {
    private NettyTransportEcho() {
    }

    public static void main(String[] args) throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
        Channel server = new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class)
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext context, Object message) {
                        context.write(message);
                    }

                    @Override
                    public void channelReadComplete(ChannelHandlerContext context) {
                        context.flush();
                    }

                    @Override
                    public void userEventTriggered(ChannelHandlerContext context, Object event) {
                        if (event instanceof ChannelInputShutdownEvent) { // after the echo written before it
                            context.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
                        }
                    }
                }).bind(new InetSocketAddress(InetAddress.getByName(args[0]), 0)).sync().channel();
        System.out.println("listening " + ((InetSocketAddress) server.localAddress()).getPort());
        try {
            System.in.transferTo(java.io.OutputStream.nullOutputStream());
        } catch (IOException e) {
            // ended all the same
        }
        server.close().sync();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
        System.exit(0);
    }
}
