package org.panamaverbs.netty.grpc;

import java.net.InetSocketAddress;

import io.grpc.ServerCredentials;
import io.grpc.ServerProvider;
import io.grpc.netty.NettyServerBuilder;

/**
 * A gRPC {@link ServerProvider} that makes {@code ServerBuilder.forPort} / {@code Grpc.newServerBuilderForPort}
 * listen over RDMA (on every RDMA device: the wildcard address), chosen by the same configuration as
 * {@link RdmaChannelProvider}: {@code panamaverbs.grpc.transport=rdma}; priority 6, above {@code grpc-netty}'s
 * 5. Found through {@code META-INF/services/io.grpc.ServerProvider}.
 */
public final class RdmaServerProvider extends ServerProvider {
    /** Made by the service loader. */
    public RdmaServerProvider() {
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
    protected NettyServerBuilder builderForPort(int port) {
        return RdmaGrpc.serverBuilder(new InetSocketAddress(port));
    }

    @Override
    protected NewServerBuilderResult newServerBuilderForPort(int port, ServerCredentials credentials) {
        return NewServerBuilderResult.serverBuilder(RdmaGrpc.serverBuilder(new InetSocketAddress(port), credentials));
    }
}
