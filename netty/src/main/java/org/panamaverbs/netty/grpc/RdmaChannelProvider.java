package org.panamaverbs.netty.grpc;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Collection;
import java.util.List;

import io.grpc.ChannelCredentials;
import io.grpc.ManagedChannelProvider;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyChannelProvider;

/**
 * A gRPC {@link ManagedChannelProvider} that makes {@code ManagedChannelBuilder.forAddress} /
 * {@code Grpc.newChannelBuilder} use the RDMA transport, chosen by configuration alone: with system property
 * {@code panamaverbs.grpc.transport=rdma} (or {@code PANAMA_VERBS_GRPC_TRANSPORT=rdma}) it is available with
 * priority 6, above {@code grpc-netty}'s 5; otherwise it is not available and gRPC picks as before. Found
 * through {@link java.util.ServiceLoader} ({@code META-INF/services/io.grpc.ManagedChannelProvider}).
 */
public final class RdmaChannelProvider extends ManagedChannelProvider {
    /** Made by the service loader. */
    public RdmaChannelProvider() {
    }

    @Override
    protected boolean isAvailable() {
        return RdmaGrpc.selected();
    }

    @Override
    protected int priority() {
        return 6;
    }

    @Override
    protected NettyChannelBuilder builderForAddress(String name, int port) {
        return RdmaGrpc.channelBuilder(name, port);
    }

    @Override
    protected NettyChannelBuilder builderForTarget(String target) {
        return RdmaGrpc.configure(NettyChannelBuilder.forTarget(target));
    }

    @Override
    protected NewChannelBuilderResult newChannelBuilder(String target, ChannelCredentials credentials) {
        NewChannelBuilderResult result = new NettyChannelProvider().newChannelBuilder(target, credentials);
        if (result.getChannelBuilder() instanceof NettyChannelBuilder netty) {
            return NewChannelBuilderResult.channelBuilder(RdmaGrpc.configure(netty));
        }
        return result;
    }

    @Override
    protected Collection<Class<? extends SocketAddress>> getSupportedSocketAddressTypes() {
        return List.of(InetSocketAddress.class);
    }
}
