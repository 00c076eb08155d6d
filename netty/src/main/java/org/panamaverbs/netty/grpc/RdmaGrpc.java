package org.panamaverbs.netty.grpc;

import java.net.InetSocketAddress;

import io.grpc.ChannelCredentials;
import io.grpc.ServerCredentials;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.panamaverbs.netty.RdmaIoHandler;
import org.panamaverbs.netty.RdmaServerSocketChannel;
import org.panamaverbs.netty.RdmaSocketChannel;

/**
 * gRPC-java (the unshaded {@code grpc-netty}) over the RDMA transport: builders whose channel type and event
 * loops are {@link RdmaSocketChannel} / {@link RdmaServerSocketChannel} on {@link RdmaIoHandler} loops. What an
 * application would write itself, in one place:
 *
 * <pre>{@code
 * ManagedChannel channel = RdmaGrpc.channelBuilder("10.0.0.1", 50051).usePlaintext().build();
 * Server server = RdmaGrpc.serverBuilder(new InetSocketAddress("10.0.0.1", 50051)).addService(...).build().start();
 * }</pre>
 *
 * <p>The event loops are shared by every builder made here (one group, one loop per processor, daemon threads
 * that live as long as the JVM); pass your own group to {@code eventLoopGroup(...)} to size or stop them yourself.
 * Not for {@code grpc-netty-shaded}: it relocates Netty, so its builders cannot take a channel class of
 * {@code io.netty}.
 */
public final class RdmaGrpc {
    private static volatile EventLoopGroup shared;

    private RdmaGrpc() {
    }

    /**
     * The shared RDMA event loop group, made on first use.
     *
     * @return a group of {@link RdmaIoHandler} loops, one per available processor
     */
    public static EventLoopGroup sharedEventLoopGroup() {
        EventLoopGroup group = shared;
        if (group == null) {
            synchronized (RdmaGrpc.class) {
                group = shared;
                if (group == null) {
                    group = new MultiThreadIoEventLoopGroup(Runtime.getRuntime().availableProcessors(),
                            new DefaultThreadFactory("grpc-rdma", true), RdmaIoHandler.newFactory());
                    shared = group;
                }
            }
        }
        return group;
    }

    /**
     * A channel builder for {@code host:port} over RDMA ({@code NettyChannelBuilder.forAddress} with the RDMA
     * channel type and the shared loops).
     *
     * @param host an IP address or name of the server's RDMA interface
     * @param port the server's port (rdma_cm, TCP port space)
     * @return the builder; set credentials or {@code usePlaintext()} as usual
     */
    public static NettyChannelBuilder channelBuilder(String host, int port) {
        return configure(NettyChannelBuilder.forAddress(host, port));
    }

    /**
     * A channel builder for a target ({@code NettyChannelBuilder.forTarget}) with credentials, over RDMA.
     *
     * @param target      a gRPC target, for example {@code dns:///10.0.0.1:50051}
     * @param credentials the channel credentials
     * @return the builder
     */
    public static NettyChannelBuilder channelBuilder(String target, ChannelCredentials credentials) {
        return configure(NettyChannelBuilder.forTarget(target, credentials));
    }

    static NettyChannelBuilder configure(NettyChannelBuilder builder) {
        return builder.channelType(RdmaSocketChannel.class, InetSocketAddress.class)
                .eventLoopGroup(sharedEventLoopGroup());
    }

    /**
     * A server builder listening on {@code address} over RDMA (boss and worker loops: the shared group).
     *
     * @param address the local address of an RDMA interface, or the wildcard for every RDMA device
     * @return the builder
     */
    public static NettyServerBuilder serverBuilder(InetSocketAddress address) {
        return configure(NettyServerBuilder.forAddress(address));
    }

    /**
     * A server builder with credentials, over RDMA.
     *
     * @param address     the local address (see {@link #serverBuilder(InetSocketAddress)})
     * @param credentials the server credentials
     * @return the builder
     */
    public static NettyServerBuilder serverBuilder(InetSocketAddress address, ServerCredentials credentials) {
        return configure(NettyServerBuilder.forAddress(address, credentials));
    }

    static NettyServerBuilder configure(NettyServerBuilder builder) {
        EventLoopGroup group = sharedEventLoopGroup();
        return builder.channelType(RdmaServerSocketChannel.class).bossEventLoopGroup(group).workerEventLoopGroup(group);
    }

    /**
     * Whether the providers are switched on: system property {@code panamaverbs.grpc.transport} or environment
     * variable {@code PANAMA_VERBS_GRPC_TRANSPORT} is {@code rdma}.
     */
    static boolean selected() {
        String value = System.getProperty("panamaverbs.grpc.transport");
        if (value == null) {
            value = System.getenv("PANAMA_VERBS_GRPC_TRANSPORT");
        }
        return "rdma".equalsIgnoreCase(value);
    }
}
