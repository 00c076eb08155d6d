package org.panamaverbs.examples;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.panamaverbs.cm.Connection;
import org.panamaverbs.cm.ConnectionOptions;
import org.panamaverbs.cm.RdmaServer;
import org.panamaverbs.cm.RemoteRegion;
import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.WrOpcode;

/**
 * Two processes connected by rdma_cm (docs/guide/connections.md): {@code CmEcho server ADDRESS PORT} offers a
 * region holding a greeting and echoes one SEND; {@code CmEcho client ADDRESS PORT} connects, RDMA READs the
 * greeting straight from the server's memory, SENDs a message and prints the echo. ADDRESS is the IP address
 * of the server's RDMA device. Each side prints what it sees.
 */
public final class CmEcho {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    /** How long the server waits for its client: time to start the client by hand, or a slow JVM start. */
    private static final Duration CLIENT_WAIT = Duration.ofMinutes(2);

    private CmEcho() {
    }

    public static void main(String[] args) {
        if (args.length != 3 || !(args[0].equals("server") || args[0].equals("client"))) {
            System.err.println("usage: CmEcho server|client ADDRESS PORT");
            System.exit(2);
        }
        InetSocketAddress address = new InetSocketAddress(args[1], Integer.parseInt(args[2]));
        if (args[0].equals("server")) {
            server(address);
        } else {
            client(address);
        }
    }

    private static void server(InetSocketAddress address) {
        // snippet:server
        MemoryRegion[] buffers = new MemoryRegion[2];
        try (RecvChain recvs = RecvChain.allocate(1, 1); SendChain sends = SendChain.allocate(1, 1)) {
            ConnectionOptions options = ConnectionOptions.builder().privateData(bytes("welcome")).prepare(c -> {
                buffers[0] = c.protectionDomain().allocateAndRegister(4096, Access.LOCAL_WRITE, Access.REMOTE_READ);
                buffers[0].segment().setString(0, "greetings from the server's memory");
                c.offer(buffers[0]);                                     // address, length, rkey go to the client
                buffers[1] = c.protectionDomain().allocateAndRegister(4096, Access.LOCAL_WRITE);
                recvs.get(0).wrId(1).sge(buffers[1], 0, 4096);
                c.queuePair().postRecvOrThrow(recvs, 1);                 // before the client can send
            }).build();
            try (RdmaServer server = RdmaServer.listen(address, options, 8)) {
                System.out.println("server: listening on " + server.localAddress());
                try (Connection c = server.accept(CLIENT_WAIT)) {                   // null on timeout
                    if (c == null) {
                        throw new IllegalStateException("no client within " + CLIENT_WAIT);
                    }
                    System.out.println("server: connection from " + c.peerAddress() + ", private data '"
                            + new String(c.peerPrivateData(), StandardCharsets.US_ASCII) + "'");
                    WorkCompletion received = awaitOne(c);
                    String text = buffers[1].segment().getString(0);
                    System.out.println("server: received " + received.byteLength() + " bytes: '" + text + "'");
                    sends.get(0).wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(buffers[1], 0, received.byteLength());
                    c.queuePair().postSendOrThrow(sends, 1);
                    awaitOne(c);
                    System.out.println("server: echoed; peer disconnected: " + c.awaitDisconnected(TIMEOUT));
                }
            }
        }
        // end-snippet
    }

    private static void client(InetSocketAddress address) {
        // snippet:client
        MemoryRegion[] buffer = new MemoryRegion[1];
        try (RecvChain recvs = RecvChain.allocate(1, 1); SendChain sends = SendChain.allocate(1, 1)) {
            ConnectionOptions options = ConnectionOptions.builder().privateData(bytes("hello")).prepare(c -> {
                buffer[0] = c.protectionDomain().allocateAndRegister(8192, Access.LOCAL_WRITE);
                recvs.get(0).wrId(1).sge(buffer[0], 4096, 4096);
                c.queuePair().postRecvOrThrow(recvs, 1);
            }).build();
            try (Connection c = Connection.connect(address, options, TIMEOUT)) {
                RemoteRegion remote = c.remoteRegion();
                System.out.println("client: connected to " + c.peerAddress() + ", private data '"
                        + new String(c.peerPrivateData(), StandardCharsets.US_ASCII) + "', region " + remote);
                sends.get(0).wrId(3).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED).sge(buffer[0], 0, 64)
                        .remote(remote.address(), remote.rkey());
                c.queuePair().postSendOrThrow(sends, 1);
                awaitOne(c);
                System.out.println("client: RDMA READ: '" + buffer[0].segment().getString(0) + "'");
                String ping = "ping over RDMA SEND";
                buffer[0].segment().setString(0, ping);
                int length = ping.length() + 1; // with the terminating NUL the server's getString stops at
                sends.get(0).wrId(4).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(buffer[0], 0, length);
                c.queuePair().postSendOrThrow(sends, 1);
                awaitOne(c);
                awaitOne(c);
                System.out.println("client: echo: '" + buffer[0].segment().getString(4096) + "'");
            }
            System.out.println("client: disconnected");
        }
        // end-snippet
    }

    /** One thread's completion array (a CompletionArray belongs to the first thread that polls with it). */
    private static final CompletionArray COMPLETIONS = CompletionArray.allocate(1);

    private static WorkCompletion awaitOne(Connection c) {
        return Polling.awaitOne(c.completionQueue(), COMPLETIONS, TIMEOUT);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
