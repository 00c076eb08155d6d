package org.panamaverbs.examples;

import java.time.Duration;

import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.AddressHandle;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.Gid;
import org.panamaverbs.verbs.Grh;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QpType;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.Rdma;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.WrOpcode;

/**
 * Unreliable datagrams (docs/guide/data-path.md): a client queue pair sends a datagram to a server queue pair
 * it knows by GID and queue pair number; the server answers whoever sent it, learning the sender's GID from
 * the Global Routing Header in front of the payload and its queue pair number from the completion.
 * {@code UdExchange [DEVICE]}; both queue pairs live in this process, as two processes' would.
 */
public final class UdExchange {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private UdExchange() {
    }

    public static void main(String[] args) {
        try (Context ctx = args.length > 0 ? Rdma.open(args[0]) : Rdma.openFirst();
             ProtectionDomain pd = ctx.allocateProtectionDomain();
             CompletionQueue clientCq = ctx.createCompletionQueue(16);
             CompletionQueue serverCq = ctx.createCompletionQueue(16);
             SendChain sends = SendChain.allocate(1, 1);
             RecvChain recvs = RecvChain.allocate(1, 1);
             CompletionArray wcs = CompletionArray.allocate(1)) {
            // snippet:ud
            int qkey = 0x11111111;                                   // both sides agree on it
            QueuePair client = pd.createQueuePair(QpConfig.builder(clientCq).type(QpType.UD).build());
            QueuePair server = pd.createQueuePair(QpConfig.builder(serverCq).type(QpType.UD).build());
            client.readyForDatagrams(qkey);                          // RESET -> INIT (Q_Key) -> RTR -> RTS
            server.readyForDatagrams(qkey);
            int size = Grh.SIZE + client.maxDatagramSize();          // a receive has room for the 40-byte GRH
            MemoryRegion clientBuffer = pd.allocateAndRegister(2L * size, Access.LOCAL_WRITE);
            MemoryRegion serverBuffer = pd.allocateAndRegister(2L * size, Access.LOCAL_WRITE);
            System.out.println(ctx.name() + ": UD queue pairs ready, datagrams up to "
                    + client.maxDatagramSize() + " bytes");

            // the server posts a receive; the client sends to the GID and queue pair number it was told
            recvs.get(0).wrId(1).sge(serverBuffer, size, size);
            server.postRecvOrThrow(recvs, 1);
            Gid serverGid = server.localEndpoint().gid();
            try (AddressHandle toServer = pd.createAddressHandle(AddressHandle.Target.of(serverGid, client.gidIndex(), 1))) {
                recvs.get(0).wrId(2).sge(clientBuffer, size, size);
                client.postRecvOrThrow(recvs, 1);                    // for the answer
                clientBuffer.segment().setString(0, "ping");
                sends.get(0).wrId(3).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(clientBuffer, 0, 5)
                        .ud(toServer, server.qpNumber(), qkey);
                client.postSendOrThrow(sends, 1);
                Polling.awaitOne(clientCq, wcs, TIMEOUT);
            }

            // the server answers the sender: its GID from the GRH, its queue pair number from the completion
            WorkCompletion received = Polling.awaitOne(serverCq, wcs, TIMEOUT);
            int senderQpn = received.sourceQp();
            System.out.println("server: " + (received.byteLength() - Grh.SIZE) + " bytes \""
                    + serverBuffer.segment().getString(size + Grh.SIZE) + "\" from the client's queue pair: "
                    + (senderQpn == client.qpNumber()));
            Gid senderGid = Grh.sourceGid(serverBuffer.segment(), size);
            try (AddressHandle toSender = pd.createAddressHandle(AddressHandle.Target.of(senderGid, server.gidIndex(), 1))) {
                serverBuffer.segment().setString(0, "pong");
                sends.get(0).wrId(4).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(serverBuffer, 0, 5)
                        .ud(toSender, senderQpn, qkey);
                server.postSendOrThrow(sends, 1);
                Polling.awaitOne(serverCq, wcs, TIMEOUT);
            }
            WorkCompletion answer = Polling.awaitOne(clientCq, wcs, TIMEOUT);
            System.out.println("client: " + (answer.byteLength() - Grh.SIZE) + " bytes \""
                    + clientBuffer.segment().getString(size + Grh.SIZE) + "\" from the server's queue pair: "
                    + (answer.sourceQp() == server.qpNumber()));
            // end-snippet
        }
    }
}
