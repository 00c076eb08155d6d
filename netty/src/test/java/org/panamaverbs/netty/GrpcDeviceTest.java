package org.panamaverbs.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * gRPC-java (unshaded grpc-netty on Netty 4.2) over the transport between two JVMs: the server made by
 * configuration alone ({@code Grpc.newServerBuilderForPort} with {@code -Dpanamaverbs.grpc.transport=rdma}), this
 * JVM's client by {@code NettyChannelBuilder.channelType(RdmaSocketChannel.class, ...).eventLoopGroup(...)}.
 * The server listens on rdma_cm only, so every call that succeeds went over RDMA.
 */
@Tag(DeviceTest.CI)
class GrpcDeviceTest extends DeviceTest {
    static PeerProcess server;
    static ManagedChannel channel;
    static int port;

    @BeforeAll
    static void start() throws Exception {
        server = PeerProcess.java(List.of("-Dpanamaverbs.grpc.transport=rdma"), "grpc-server", address.getHostAddress());
        String line = server.awaitLine("listening ", 180);
        assertTrue(line.contains("NettyServerBuilder"), "the RDMA provider made the server's builder: " + line);
        port = Integer.parseInt(line.split(" ")[1]);
        channel = NettyChannelBuilder.forAddress(new InetSocketAddress(address, port))
                .channelType(RdmaSocketChannel.class, InetSocketAddress.class).eventLoopGroup(group)
                .usePlaintext().build();
    }

    @AfterAll
    static void stop() throws Exception {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void unaryCallsFromOneByteToFourMebibytes() {
        for (int size : new int[] {1, 1000, 65536, 1 << 20, 4 << 20}) {
            byte[] request = Echo.pattern(size, size);
            byte[] reply = ClientCalls.blockingUnaryCall(channel, GrpcTestService.ECHO,
                    CallOptions.DEFAULT.withDeadlineAfter(120, TimeUnit.SECONDS).withMaxInboundMessageSize(8 << 20),
                    request);
            assertArrayEquals(request, reply, size + " bytes");
        }
    }

    @Test
    void serverStreaming() {
        int count = 200;
        int size = 3000;
        Iterator<byte[]> replies = ClientCalls.blockingServerStreamingCall(channel, GrpcTestService.STREAM,
                CallOptions.DEFAULT.withDeadlineAfter(120, TimeUnit.SECONDS),
                ByteBuffer.allocate(8).putInt(count).putInt(size).array());
        int received = 0;
        while (replies.hasNext()) {
            assertArrayEquals(Echo.pattern(received, size), replies.next(), "message " + received);
            received++;
        }
        assertEquals(count, received);
    }

    @Test
    void bidiStreaming() throws Exception {
        int count = 100;
        List<byte[]> received = new ArrayList<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        StreamObserver<byte[]> requests = io.grpc.stub.ClientCalls.asyncBidiStreamingCall(
                channel.newCall(GrpcTestService.CHAT, CallOptions.DEFAULT.withDeadlineAfter(120, TimeUnit.SECONDS)),
                new StreamObserver<>() {
                    @Override
                    public void onNext(byte[] value) {
                        synchronized (received) {
                            received.add(value);
                        }
                    }

                    @Override
                    public void onError(Throwable t) {
                        done.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                        done.complete(null);
                    }
                });
        for (int i = 0; i < count; i++) {
            requests.onNext(Echo.pattern(i, 100 + i));
        }
        requests.onCompleted();
        done.get(120, TimeUnit.SECONDS);
        assertEquals(count, received.size());
        for (int i = 0; i < count; i++) {
            assertArrayEquals(Echo.pattern(i, 100 + i), received.get(i), "message " + i);
        }
    }

    @Test
    void aDeadlineEndsACallThatTakesLongerAndTheServerSeesTheCancel() throws Exception {
        // the connection up and the server's call path warm first: under emulation the first call alone can take
        // longer than the deadline, and a call that never reached the server cannot show that the server saw it end
        byte[] ping = {1};
        assertArrayEquals(ping, ClientCalls.blockingUnaryCall(channel, GrpcTestService.ECHO,
                CallOptions.DEFAULT.withDeadlineAfter(120, TimeUnit.SECONDS), ping));
        int before = (int) server.output().stream().filter("cancelled"::equals).count();
        long start = System.nanoTime();
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> ClientCalls.blockingUnaryCall(channel,
                GrpcTestService.SLEEP, CallOptions.DEFAULT.withDeadlineAfter(3, TimeUnit.SECONDS),
                ByteBuffer.allocate(4).putInt(30_000).array()));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(Status.Code.DEADLINE_EXCEEDED, e.getStatus().getCode());
        assertTrue(millis < 10_000, millis + " ms");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (server.output().stream().filter("cancelled"::equals).count() <= before && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(server.output().stream().filter("cancelled"::equals).count() > before,
                "the server saw the call end at its deadline: " + server.output());
    }

    @Test
    void cancellingACallReachesTheServer() throws Exception {
        ClientCall<byte[], byte[]> call = channel.newCall(GrpcTestService.SLEEP, CallOptions.DEFAULT);
        CompletableFuture<Status> closed = new CompletableFuture<>();
        call.start(new ClientCall.Listener<>() {
            @Override
            public void onClose(Status status, Metadata trailers) {
                closed.complete(status);
            }
        }, new Metadata());
        call.sendMessage(ByteBuffer.allocate(4).putInt(30_000).array());
        call.halfClose();
        call.request(1);
        Thread.sleep(1000);
        int before = (int) server.output().stream().filter("cancelled"::equals).count();
        call.cancel("the test cancels", null);
        assertEquals(Status.Code.CANCELLED, closed.get(30, TimeUnit.SECONDS).getCode());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (server.output().stream().filter("cancelled"::equals).count() <= before && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(server.output().stream().filter("cancelled"::equals).count() > before, "the server saw the cancel");
    }

    @Test
    void aClientMadeByConfigurationAloneCallsOverRdma() throws Exception {
        try (PeerProcess client = PeerProcess.java(List.of("-Dpanamaverbs.grpc.transport=rdma"), "grpc-client",
                address.getHostAddress(), Integer.toString(port))) {
            String line = client.awaitLine("reply ", 180);
            assertTrue(line.startsWith("reply configured"), line);
        }
    }
}
