package org.panamaverbs.examples;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;

import org.panamaverbs.cm.ExchangeMessage;
import org.panamaverbs.cm.EndpointExchange;
import org.panamaverbs.cm.RemoteRegion;
import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.Rdma;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.WrOpcode;

/**
 * Two processes connected without rdma_cm (docs/guide/connections.md): the queue pairs' endpoints and the
 * server's region travel over TCP ({@link EndpointExchange}), then the client RDMA WRITEs into the server's
 * region with immediate data. {@code TcpExchange server PORT [DEVICE]}, {@code TcpExchange client HOST PORT
 * [DEVICE]}; HOST is any address of the server's machine (the TCP connection does not use RDMA).
 */
public final class TcpExchange {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private TcpExchange() {
    }

    public static void main(String[] args) throws IOException {
        boolean server = args.length >= 2 && args[0].equals("server");
        boolean client = args.length >= 3 && args[0].equals("client");
        if (!server && !client) {
            System.err.println("usage: TcpExchange server PORT [DEVICE] | client HOST PORT [DEVICE]");
            System.exit(2);
        }
        int deviceArg = server ? 2 : 3;
        try (Context ctx = args.length > deviceArg ? Rdma.open(args[deviceArg]) : Rdma.openFirst();
             ProtectionDomain pd = ctx.allocateProtectionDomain();
             CompletionQueue cq = ctx.createCompletionQueue(16);
             SendChain sends = SendChain.allocate(1, 1);
             RecvChain recvs = RecvChain.allocate(1, 1);
             CompletionArray wcs = CompletionArray.allocate(1)) {
            QueuePair qp = pd.createQueuePair(QpConfig.builder(cq).build());
            if (server) {
                serve(Integer.parseInt(args[1]), pd, qp, recvs, wcs);
            } else {
                write(new InetSocketAddress(args[1], Integer.parseInt(args[2])), pd, qp, sends, wcs);
            }
        }
    }

    private static void serve(int port, ProtectionDomain pd, QueuePair qp, RecvChain recvs, CompletionArray wcs)
            throws IOException {
        // snippet:server
        MemoryRegion region = pd.allocateAndRegister(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        try (ServerSocket listener = new ServerSocket(port)) {
            System.out.println("server: waiting on TCP port " + listener.getLocalPort());
            ExchangeMessage mine = new ExchangeMessage(qp.localEndpoint(), RemoteRegion.of(region));
            try (EndpointExchange.Session session = EndpointExchange.acceptSession(listener, mine, TIMEOUT)) {
                qp.connect(session.peer().endpoint());   // INIT, RTR and RTS towards the client's queue pair
                recvs.get(0).wrId(1).numSge(0);            // the WRITE's immediate consumes a receive
                qp.postRecvOrThrow(recvs, 1);
                session.barrier(TIMEOUT);                // both sides ready: now the client may write
                WorkCompletion wc = Polling.awaitOne(qp.config().recvCq(), wcs, TIMEOUT);
                System.out.println("server: " + wc.opcode() + ", immediate " + wc.immediateData() + ", region holds \""
                        + region.segment().getString(0) + "\"");
            }
        }
        // end-snippet
    }

    private static void write(InetSocketAddress server, ProtectionDomain pd, QueuePair qp, SendChain sends,
            CompletionArray wcs) throws IOException {
        // snippet:client
        MemoryRegion source = pd.allocateAndRegister(4096, Access.LOCAL_WRITE);
        ExchangeMessage mine = new ExchangeMessage(qp.localEndpoint());                 // no region offered
        try (EndpointExchange.Session session = EndpointExchange.connectSession(server, mine, TIMEOUT)) {
            qp.connect(session.peer().endpoint());
            session.barrier(TIMEOUT);
            RemoteRegion target = session.peer().region();
            source.segment().setString(0, "written over RDMA");
            sends.get(0).wrId(2).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).flags(SendFlags.SIGNALED).immediateData(7)
                    .sge(source, 0, 18).remote(target.address(), target.rkey());
            qp.postSendOrThrow(sends, 1);
            WorkCompletion wc = Polling.awaitOne(qp.config().sendCq(), wcs, TIMEOUT);
            System.out.println("client: " + wc.opcode() + " of 18 bytes to " + session.peerAddress() + ": " + wc.status());
        }
        // end-snippet
    }
}
