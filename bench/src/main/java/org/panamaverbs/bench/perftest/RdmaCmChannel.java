package org.panamaverbs.bench.perftest;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

import org.panamaverbs.cm.CmEvent;
import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.cm.CmEventType;
import org.panamaverbs.cm.CmException;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.ConnParam;
import org.panamaverbs.cm.PortSpace;
import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.WcOpcode;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.WrOpcode;

/**
 * perftest's out-of-band exchange over rdma_cm ("Data ex. method : rdma_cm", what {@code -R} selects in perftest
 * 4.5): an RC connection of its own on the exchange's port number in rdma_cm's TCP port space, one receive posted
 * at a time, each message one signaled SEND with {@code wr_id} 5 ({@code SYNC_SPEC_ID}) from and into the same
 * buffer ({@code rdma_write_data}/{@code rdma_read_data} of {@code perftest_communication.c}). perftest's receive
 * holds {@code sizeof(struct pingpong_dest)} (56 bytes before 26.01) or, since 26.01, the larger of that and the
 * parameter negotiation record (312 or 320); this side's holds {@link #RECEIVE_SIZE}, enough for every release's
 * messages. Every wait is bounded.
 */
final class RdmaCmChannel implements PerftestWire.Transport {
    /** What one receive holds: the longest message of any release, 26.01's negotiation record (320), and more. */
    static final int RECEIVE_SIZE = 512;
    /** perftest's {@code SYNC_SPEC_ID}. */
    private static final long SYNC_ID = 5;

    private final CmEventChannel channel;
    private String peer;
    private CmId id;
    private Context context;
    private QueuePair qp;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private MemoryRegion buffer;
    private final SendChain sends = SendChain.allocate(1, 1);
    private final RecvChain recvs = RecvChain.allocate(1, 1);
    private final CompletionArray wcs = CompletionArray.allocate(1);

    private RdmaCmChannel(CmEventChannel channel, String peer) {
        this.channel = channel;
        this.peer = peer;
    }

    /** The server side: listens on {@code local} (a wildcard: every RDMA device), accepts one client within {@code timeout}. */
    static RdmaCmChannel accept(InetSocketAddress local, CmIdTuning tuning, Duration timeout) {
        int port = local.getPort();
        RdmaCmChannel c = new RdmaCmChannel(CmEventChannel.create(), "the rdma_cm client");
        try (CmId listener = CmId.create(c.channel, PortSpace.TCP)) {
            listener.bind(local);
            listener.listen(1);
            CmEvent request = listener.awaitConnectionRequest(timeout);
            if (request == null) {
                throw new PerftestException("no client connected to rdma_cm port " + port + " within " + timeout.toSeconds() + " s");
            }
            c.id = request.id();
            c.createResources();
            tuning.beforeAccept(c.id);
            c.id.accept(new ConnParam(new byte[0], 0, 0, 7, 7));
            c.id.awaitEstablished(timeout);
            return c; // the listener is closed: the test's own rdma_cm connection listens on the same port next
        } catch (CmException e) {
            c.close();
            throw new PerftestException("the rdma_cm exchange connection failed: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** The client side: connects to {@code host:port} over rdma_cm, retrying a refusal as perftest does. */
    static RdmaCmChannel connect(InetSocketAddress server, InetAddress source, CmIdTuning tuning, Duration timeout) {
        RdmaCmChannel c = new RdmaCmChannel(CmEventChannel.create(), server.toString());
        try {
            for (int attempt = 1; ; attempt++) {
                c.id = CmId.create(c.channel, PortSpace.TCP);
                try {
                    if (source != null) { // perftest's --bind_source_ip: rdma_resolve_addr from that address
                        c.id.bind(new InetSocketAddress(source, 0));
                    }
                    c.id.resolveAddress(server, RdmaCmLink.RESOLVE_TIMEOUT);
                    tuning.afterAddressResolved(c.id);
                    c.id.resolveRoute(RdmaCmLink.RESOLVE_TIMEOUT);
                    c.createResources();
                    c.id.connect(new ConnParam(new byte[0], 0, 0, 7, 7), timeout);
                    return c;
                } catch (CmException e) {
                    if (e.event() != CmEventType.REJECTED || attempt == RdmaCmLink.CONNECT_ATTEMPTS) {
                        throw new PerftestException("cannot connect to " + server + " over rdma_cm (" + e.getMessage()
                                + "): is the server running with -R and listening on that port?", e);
                    }
                }
                c.freeConnection();
                Thread.sleep(RdmaCmLink.RETRY_DELAY_MILLIS); // perftest's retry, as the test connection's
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            c.close();
            throw new PerftestException("interrupted while connecting to " + server);
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** perftest's comm {@code ctx_init}: buffer, queues and a queue pair of depth 1, and the first receive posted. */
    private void createResources() {
        context = id.context();
        ProtectionDomain pd = context.allocateProtectionDomain();
        sendCq = context.createCompletionQueue(1);
        recvCq = context.createCompletionQueue(1);
        buffer = pd.allocateAndRegister(PerftestSession.CYCLE_BUFFER, Access.LOCAL_WRITE);
        qp = id.createQueuePair(pd, QpConfig.builder(sendCq, recvCq).capabilities(QpCapabilities.of(1, 1)).build());
        sends.get(0).wrId(SYNC_ID).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED);
        recvs.get(0).wrId(SYNC_ID).sge(buffer, 0, RECEIVE_SIZE);
        postReceive();
    }

    /** Frees one failed attempt's id and what was created for it. */
    private void freeConnection() {
        if (id != null) {
            id.close();
        }
        if (context != null) {
            context.close();
        }
        id = null;
        context = null;
    }

    private void postReceive() {
        int rc = qp.postRecv(recvs, 1);
        if (rc != 0) {
            throw new PerftestException("ibv_post_recv on the rdma_cm exchange failed with errno " + rc);
        }
    }

    @Override
    public void send(String what, byte[] message) {
        if (message.length > RECEIVE_SIZE) {
            throw new IllegalArgumentException(what + ": " + message.length + " bytes do not fit perftest's receive");
        }
        MemorySegment.copy(MemorySegment.ofArray(message), 0, buffer.segment(), 0, message.length);
        sends.get(0).sge(buffer, 0, message.length);
        int rc = qp.postSend(sends, 1);
        if (rc != 0) {
            throw new PerftestException("cannot send the " + what + " to " + peer + ": ibv_post_send failed with errno " + rc);
        }
        WorkCompletion wc = await(sendCq, what, Duration.ofSeconds(30), "sending");
        if (wc.opcode() != WcOpcode.SEND) {
            throw new PerftestException("sending the " + what + " completed as " + wc.opcode());
        }
    }

    @Override
    public void receive(String what, byte[] into, Duration timeout) {
        receiveRecord(what, into, into.length, timeout, timeout);
    }

    @Override
    public int receiveRecord(String what, byte[] into, int shortest, Duration timeout, Duration grace) {
        WorkCompletion wc = await(recvCq, what, timeout, "receiving");
        int length = wc.byteLength();
        if (wc.opcode() != WcOpcode.RECV || length < shortest || length > into.length) {
            throw new PerftestException("the peer " + peer + " sent " + length + " bytes as the " + what + ", not "
                    + (shortest == into.length ? into.length : shortest + " or " + into.length)
                    + " (is it out of step, or a different test?)");
        }
        MemorySegment.copy(buffer.segment(), 0, MemorySegment.ofArray(into), 0, length);
        postReceive();
        return length;
    }

    /** Polls {@code cq} for the exchange's one completion, bounded by {@code timeout}. */
    private WorkCompletion await(CompletionQueue cq, String what, Duration timeout, String doing) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            int n = cq.poll(wcs);
            if (n < 0) {
                throw new PerftestException("ibv_poll_cq failed with " + n + " while " + doing + " the " + what);
            }
            if (n == 1) {
                WorkCompletion wc = wcs.get(0);
                if (!wc.isSuccess() || wc.wrId() != SYNC_ID) {
                    throw PerftestException.failedCompletion(wc, doing + " the " + what + " over rdma_cm");
                }
                return wc;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new PerftestException("the peer " + peer + " sent no " + what + " within " + timeout.toSeconds()
                        + " s (is it out of step, or a different test?)");
            }
            Thread.onSpinWait();
        }
    }

    @Override
    public String peer() {
        return peer;
    }

    @Override
    public void namePeer(String release) {
        peer = peer + " running " + release;
    }

    @Override
    public void close() {
        try {
            freeConnection();
        } finally {
            sends.close();
            recvs.close();
            wcs.close();
            channel.close();
        }
    }
}
