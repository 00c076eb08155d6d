package org.panamaverbs.examples;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.cm.CmEventHandler;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.ConnParam;
import org.panamaverbs.cm.PortSpace;
import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QpType;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.VerbsException;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.WrOpcode;

/**
 * Many rdma_cm connections driven from one thread with a polled event channel (docs/guide/connections.md, "From an
 * event loop"): {@code PolledConnections server ADDRESS PORT N} accepts N connections and echoes one SEND on each;
 * {@code PolledConnections client ADDRESS PORT N} opens N connections at once, sends a message on each, checks each
 * echo and disconnects. Every step of every connection starts from the handler of the previous step's event; one
 * loop polls the channel and the completion queue, and no thread waits for any one connection.
 */
public final class PolledConnections {
    private static final Duration BOUND = Duration.ofMinutes(2);
    private static final Duration RESOLVE = Duration.ofSeconds(5);
    private static final int SLOT = 64;

    private final int count;
    private final boolean server;
    private final List<CmId> connections = new ArrayList<>();
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private MemoryRegion buffers;
    private final RecvChain recvs = RecvChain.allocate(1, 1);
    private final SendChain sends = SendChain.allocate(1, 1);
    private int established;
    private int echoed;
    private int disconnected;

    private PolledConnections(int count, boolean server) {
        this.count = count;
        this.server = server;
    }

    public static void main(String[] args) {
        if (args.length != 4 || !(args[0].equals("server") || args[0].equals("client"))) {
            System.err.println("usage: PolledConnections server|client ADDRESS PORT N");
            System.exit(2);
        }
        InetSocketAddress address = new InetSocketAddress(args[1], Integer.parseInt(args[2]));
        PolledConnections program = new PolledConnections(Integer.parseInt(args[3]), args[0].equals("server"));
        try (CmEventChannel channel = CmEventChannel.createPolled()) {
            program.run(channel, address);
        } finally {
            program.closeResources();
        }
    }

    private void run(CmEventChannel channel, InetSocketAddress address) {
        String side = server ? "server" : "client";
        if (server) {
            CmId listener = CmId.create(channel, PortSpace.TCP);
            listener.bind(address);
            listener.listen(count);
            System.out.println("server: listening on " + listener.localAddress());
        } else {
            for (int i = 0; i < count; i++) {
                CmId.create(channel, PortSpace.TCP).beginResolveAddress(address, RESOLVE);
            }
        }
        // snippet:handler
        CmEventHandler handler = event -> {
            CmId id = event.id();
            switch (event.type()) {
                case ADDR_RESOLVED -> id.beginResolveRoute(RESOLVE);
                case ROUTE_RESOLVED -> {
                    prepare(id);                                          // queue pair, one receive posted
                    id.beginConnect(ConnParam.defaults());
                }
                case CONNECT_REQUEST -> {
                    prepare(id);
                    id.accept(ConnParam.defaults());
                }
                case ESTABLISHED -> {
                    established++;
                    if (!server) {
                        send(id, "message " + connections.indexOf(id));
                    }
                }
                case DISCONNECTED -> {
                    disconnected++;
                    if (server) {
                        id.disconnect();                                  // answers the client's request
                    }
                }
                default -> throw new IllegalStateException(event.type().cName() + " (status " + event.status()
                        + ") on " + id);
            }
        };
        // end-snippet
        long deadline = System.nanoTime() + BOUND.toNanos();
        try (CompletionArray wcs = CompletionArray.allocate(16)) {
            while (disconnected < count) {
                int work = channel.poll(handler, 64) + (cq == null ? 0 : completions(wcs));
                if (!server && echoed == count && established == count) {
                    established = 0;                                      // once: every echo is in
                    System.out.println("client: " + count + " echoes match; disconnecting");
                    connections.forEach(CmId::disconnect);
                }
                if (work == 0) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new IllegalStateException(side + ": not done within " + BOUND + " (" + established
                                + " established, " + echoed + " echoed, " + disconnected + " disconnected)");
                    }
                    LockSupport.parkNanos(50_000);                        // an event loop would wait on fd() here
                }
            }
        }
        System.out.println(side + ": " + count + " connections, " + echoed + " messages " + (server ? "echoed" : "checked")
                + ", " + disconnected + " disconnected, all from one thread");
    }

    /** The queue pair of a new connection, on a protection domain and completion queue all connections share. */
    private void prepare(CmId id) {
        if (pd == null) {
            pd = id.context().allocateProtectionDomain();
            cq = id.context().createCompletionQueue(2 * count + 16);
            buffers = pd.allocateAndRegister(2L * count * SLOT, Access.LOCAL_WRITE);
        }
        int index = connections.size();
        connections.add(id);
        id.createQueuePair(pd, QpConfig.builder(cq).type(QpType.RC).capabilities(QpCapabilities.of(2, 2)).build());
        recvs.get(0).wrId(index).sge(buffers, (long) index * SLOT, SLOT);
        id.queuePair().postRecvOrThrow(recvs, 1);
    }

    private void send(CmId id, String text) {
        int index = connections.indexOf(id);
        long offset = (long) (count + index) * SLOT;
        buffers.segment().setString(offset, text);
        sends.get(0).wrId(count + index).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(buffers, offset, text.length() + 1);
        id.queuePair().postSendOrThrow(sends, 1);
    }

    /** Handles the completions waiting now: the server echoes each receive, the client checks each echo. */
    private int completions(CompletionArray wcs) {
        int n = cq.poll(wcs);
        if (n < 0) {
            throw new VerbsException("ibv_poll_cq", -n, cq.toString());
        }
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = wcs.get(i);
            if (!wc.isSuccess()) {
                throw new IllegalStateException("work request " + wc.wrId() + " failed: " + wc.status());
            }
            if (wc.wrId() >= count) {
                continue; // a send of ours completed
            }
            int index = (int) wc.wrId();
            String text = buffers.segment().getString((long) index * SLOT, StandardCharsets.US_ASCII);
            if (server) {
                send(connections.get(index), text);
                echoed++;
            } else if (text.equals("message " + index)) {
                echoed++;
            } else {
                throw new IllegalStateException("connection " + index + " got '" + text + "' back");
            }
        }
        return n;
    }

    private void closeResources() {
        recvs.close();
        sends.close();
        for (AutoCloseable resource : new AutoCloseable[] {buffers, cq, pd}) {
            try {
                if (resource != null) {
                    resource.close();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
