package org.panamaverbs.netty;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;

/**
 * A gRPC service on raw bytes (no protobuf): unary {@code Echo}, server-streaming {@code Stream} (request: count
 * and size, 4 bytes each), bidi {@code Chat} (echoes each message) and unary {@code Sleep} (request: milliseconds;
 * prints {@code cancelled} when the client gave up first).
 */
final class GrpcTestService {
    static final String SERVICE = "panamaverbs.test.Bytes";
    static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };
    static final MethodDescriptor<byte[], byte[]> ECHO = method("Echo", MethodDescriptor.MethodType.UNARY);
    static final MethodDescriptor<byte[], byte[]> STREAM = method("Stream", MethodDescriptor.MethodType.SERVER_STREAMING);
    static final MethodDescriptor<byte[], byte[]> CHAT = method("Chat", MethodDescriptor.MethodType.BIDI_STREAMING);
    static final MethodDescriptor<byte[], byte[]> SLEEP = method("Sleep", MethodDescriptor.MethodType.UNARY);

    private GrpcTestService() {
    }

    private static MethodDescriptor<byte[], byte[]> method(String name, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<byte[], byte[]>newBuilder().setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
                .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
    }

    static ServerServiceDefinition definition() {
        return ServerServiceDefinition.builder(SERVICE)
                .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
                    response.onNext(request);
                    response.onCompleted();
                }))
                .addMethod(STREAM, ServerCalls.asyncServerStreamingCall((request, response) -> {
                    ByteBuffer in = ByteBuffer.wrap(request);
                    int count = in.getInt();
                    int size = in.getInt();
                    for (int i = 0; i < count; i++) {
                        response.onNext(Echo.pattern(i, size));
                    }
                    response.onCompleted();
                }))
                .addMethod(CHAT, ServerCalls.asyncBidiStreamingCall(response -> new StreamObserver<byte[]>() {
                    @Override
                    public void onNext(byte[] value) {
                        response.onNext(value);
                    }

                    @Override
                    public void onError(Throwable t) {
                        // the client went away
                    }

                    @Override
                    public void onCompleted() {
                        response.onCompleted();
                    }
                }))
                .addMethod(SLEEP, ServerCalls.asyncUnaryCall((request, response) -> {
                    ServerCallStreamObserver<byte[]> call = (ServerCallStreamObserver<byte[]>) response;
                    call.setOnCancelHandler(() -> System.out.println("cancelled"));
                    int millis = ByteBuffer.wrap(request).getInt();
                    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
                    while (System.nanoTime() < deadline && !call.isCancelled()) {
                        try {
                            Thread.sleep(10);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                    }
                    if (!call.isCancelled()) {
                        response.onNext(request);
                        response.onCompleted();
                    }
                }))
                .build();
    }

    /**
     * The server peer, made by configuration alone: {@code Grpc.newServerBuilderForPort} picks the RDMA provider
     * because the JVM runs with {@code -Dpanamaverbs.grpc.transport=rdma}.
     */
    static void serve(InetAddress address) throws Exception {
        var builder = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create());
        Server server = builder.addService(definition()).build().start();
        System.out.println("listening " + server.getPort() + " builder " + builder.getClass().getName() + " on "
                + address.getHostAddress());
        server.awaitTermination();
    }

    /** A client peer made by configuration alone: {@code Grpc.newChannelBuilder}, one unary call. */
    static void callOnce(InetSocketAddress server) {
        ManagedChannel channel = Grpc.newChannelBuilder(server.getAddress().getHostAddress() + ":" + server.getPort(),
                InsecureChannelCredentials.create()).build();
        try {
            byte[] reply = ClientCalls.blockingUnaryCall(channel, ECHO, io.grpc.CallOptions.DEFAULT
                    .withDeadlineAfter(60, TimeUnit.SECONDS), "configured".getBytes());
            System.out.println("reply " + new String(reply) + " over " + channel.getClass().getSimpleName());
        } finally {
            channel.shutdownNow();
        }
    }
}
