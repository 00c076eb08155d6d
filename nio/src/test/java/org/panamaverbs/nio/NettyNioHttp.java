package org.panamaverbs.nio;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.spi.SelectorProvider;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;

/**
 * An unchanged Netty program on Netty's own NIO transport ({@code NioIoHandler}, {@code NioServerSocketChannel}),
 * which takes its selector and channels from {@code SelectorProvider.provider()}: an HTTP server answering every
 * request with {@code SIZE} bytes of a counter pattern. {@code ADDRESS SIZE}: prints the provider and
 * "listening PORT"; exits when its standard input ends.
 */
public final class NettyNioHttp {
    private NettyNioHttp() {
    }

    public static void main(String[] args) throws Exception {
        InetAddress address = InetAddress.getByName(args[0]);
        byte[] page = new byte[Integer.parseInt(args[1])];
        for (int i = 0; i < page.length; i++) {
            page[i] = (byte) i;
        }
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channel.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(65536),
                                new SimpleChannelInboundHandler<FullHttpRequest>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext context, FullHttpRequest request) {
                                        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                                                HttpResponseStatus.OK, Unpooled.wrappedBuffer(page));
                                        response.headers().set(HttpHeaderNames.CONTENT_LENGTH, page.length)
                                                .set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
                                        context.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
                                    }
                                });
                    }
                }).bind(new InetSocketAddress(address, 0)).sync().channel();
        System.out.println("provider " + SelectorProvider.provider().getClass().getName());
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
