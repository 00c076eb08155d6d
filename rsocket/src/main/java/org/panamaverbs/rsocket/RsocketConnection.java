package org.panamaverbs.rsocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.panamaverbs.cm.CmId;
import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendWorkRequest;
import org.panamaverbs.verbs.Transport;
import org.panamaverbs.verbs.VerbsException;
import org.panamaverbs.verbs.VerbsResource;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.WrOpcode;

/**
 * One rsocket connection on a device: its rdma_cm id's RC queue pair ({@code rdma_create_qp}, on a completion queue
 * of its {@link RsocketHost}), its two registered buffers ({@code ibv_reg_mr}) and the {@link RsocketFlow} that drives
 * them, posting with {@code ibv_post_send} / {@code ibv_post_recv}. The transport keeps the id's rdma_cm events and
 * the connection handshake ({@code rdma_connect} / {@code rdma_accept} with {@link #localData()}); made, used and freed
 * on the thread that drives the host, or by threads taking turns under the transport's lock, each ending its turn
 * with {@link #releaseThread()} (not thread-safe).
 *
 * <p>Errors: {@link VerbsException} (with the verb and errno) when the queue pair, a buffer or a
 * post fails; {@link UnsupportedOperationException} on iWARP, whose devices rsocket does not run on. The buffers are
 * the connection's own: what the application writes is copied into them, so its buffers need to live only for the
 * call; a region of {@link #mapRegion} stays readable as long as the application keeps its memory.
 */
public final class RsocketConnection implements WorkPoster {
    /** How long a close waits for its last sends (rsocket waits without bound) before the queue pair goes. */
    public static final int LINGER_MILLIS = 2000;
    /** Requests appended before they are posted together (the flow flushes sooner at the end of a write). */
    private static final int CHAIN = 32;
    private static final AtomicInteger TAGS = new AtomicInteger();

    /**
     * What a connection is made with: the queue depth (send and receive, clamped to rsocket's and the device's
     * limits), the send and receive buffer sizes in bytes, and the entries of the iomap table the peer may fill with
     * regions (0 for none; rounded as {@link RsocketIomap#roundedSize} says).
     *
     * @param queueDepth        send and receive work requests
     * @param sendBufferSize    bytes of the send ring
     * @param receiveBufferSize bytes of the receive ring (made even)
     * @param iomapSize         iomap table entries offered to the peer
     */
    public record Settings(int queueDepth, int sendBufferSize, int receiveBufferSize, int iomapSize) {
        /** rsocket's defaults: 128 requests, 128 KiB each way, no iomap table. */
        public static final Settings DEFAULT = new Settings(128, 1 << 17, 1 << 17, 0);
    }

    private final RsocketHost host;
    private final CmId id;
    private final RsocketFlow flow;
    private final CompletionQueue queue;
    private final QueuePair qp;
    private final int qpNumber;
    private final int reservedEntries;
    private final MemoryRegion sendRegion;
    private final MemoryRegion receiveRegion;
    private final SendChain sends;
    private final RecvChain receives;
    private final List<MemoryRegion> mappedRegions = new ArrayList<>();
    private Runnable onNews;
    private int appended;
    private boolean closed;
    private boolean freed;
    private long closeDeadline;
    private boolean tookCompletions; // since the last afterCompletions

    private RsocketConnection(RsocketHost host, CmId id, Settings settings) {
        this.host = host;
        this.id = id;
        if (id.context().device().transport() == Transport.IWARP) {
            throw new UnsupportedOperationException("rsocket over iWARP needs its SEND-based message path, which this"
                    + " transport does not speak: " + id.context().name() + " is an iWARP device; use RoCE or InfiniBand");
        }
        ProtectionDomain pd = host.protectionDomain(id.context());
        int limit = Math.min(RsocketFlow.MAX_QUEUE, id.context().attributes().maxQpWr());
        int depth = Math.max(RsocketFlow.MIN_QUEUE, Math.min(limit, settings.queueDepth()));
        int sendBuffer = settings.sendBufferSize();
        int receiveBuffer = settings.receiveBufferSize() + (settings.receiveBufferSize() & 1);
        int iomapEntries = RsocketIomap.roundedSize(settings.iomapSize());
        this.reservedEntries = 2 * depth;
        this.queue = host.reserve(id.context(), reservedEntries);
        MemoryRegion send = null;
        MemoryRegion receive = null;
        SendChain sendChain = null;
        RecvChain receiveChain = null;
        try {
            send = pd.allocateAndRegister(RsocketFlow.sendMemoryBytes(sendBuffer), Access.LOCAL_WRITE);
            receive = pd.allocateAndRegister(RsocketFlow.receiveMemoryBytes(receiveBuffer, iomapEntries),
                    Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            sendChain = SendChain.allocate(CHAIN, 2);
            receiveChain = RecvChain.allocate(depth, 1);
            this.qp = id.createQueuePair(pd, QpConfig.builder(queue)
                    .capabilities(QpCapabilities.of(depth, depth).withMaxSendSge(2)).signalAll(false).build());
        } catch (RuntimeException | Error e) {
            closeQuietly(sendChain, receiveChain, send, receive);
            host.release(queue, reservedEntries, -1);
            throw e;
        }
        this.sendRegion = send;
        this.receiveRegion = receive;
        this.sends = sendChain;
        this.receives = receiveChain;
        this.qpNumber = qp.qpNumber();
        this.flow = new RsocketFlow(depth, depth, sendBuffer, receiveBuffer, iomapEntries, send.segment(), receive.segment(),
                receive.address(), receive.rkey(), this, TAGS.incrementAndGet());
        long receiveId = flow.receiveId();
        for (int i = 0; i < depth; i++) {
            receives.get(i).wrId(receiveId).numSge(0);
        }
        host.dispatch(queue, qpNumber, this);
        int rc = postReceives(depth);
        if (rc != 0) {
            free();
            throw new VerbsException("ibv_post_recv", rc, depth + " receives on " + qp);
        }
    }

    /**
     * Makes the queue pair and buffers of a connection on {@code id} (an id whose route is resolved, or a connection
     * request), with its receives posted; the host's thread only. Its stream starts when the transport has the peer's
     * data ({@link RsocketFlow#start}).
     *
     * @param host     the transport's queues and linger
     * @param id       the connection's rdma_cm id; the connection destroys it when freed
     * @param settings depths and sizes
     * @return the connection
     * @throws VerbsException if the queue pair, a registration or the first receives fail (nothing of the connection
     *                        stays allocated; the caller closes the id, which may already be closed)
     */
    public static RsocketConnection open(RsocketHost host, CmId id, Settings settings) {
        return new RsocketConnection(host, id, settings);
    }

    /**
     * The stream's state machine: what the transport reads, writes and asks.
     *
     * @return the flow
     */
    public RsocketFlow flow() {
        return flow;
    }

    /**
     * The connection's rdma_cm id.
     *
     * @return the id
     */
    public CmId id() {
        return id;
    }

    private static void closeQuietly(AutoCloseable... resources) {
        for (AutoCloseable resource : resources) {
            if (resource != null) {
                try {
                    resource.close();
                } catch (Exception e) {
                    // cleaning up after a failure that is reported instead
                }
            }
        }
    }

    /**
     * Whom to tell when completions were processed (data, credits, a close or a failure came): the transport's
     * channel. Not told after {@link #close()}.
     *
     * @param listener run on the host's thread after each batch that brought this connection news
     */
    public void attach(Runnable listener) {
        this.onNews = listener;
    }

    /**
     * The private data of this side for {@code rdma_connect} / {@code rdma_accept}: rsocket's 40 bytes.
     *
     * @return a new array
     */
    public byte[] localData() {
        return flow.localData().encode();
    }

    // ----------------------------------------------------------------------------------------- completions

    /**
     * One completion of this connection's queue pair, handed over by the host's poll.
     *
     * @param wc the completion
     * @return true if this is the first since {@link #afterCompletions()} (the host calls that once after its
     *         batch); false if the connection already took one, or the completion was stale (an earlier connection's)
     */
    public boolean onCompletion(WorkCompletion wc) {
        long wrId = wc.wrId();
        if (freed || !flow.owns(wrId)) {
            return false;
        }
        String status = wc.isSuccess() ? null : wc.status().name() + " (vendor error 0x"
                + Integer.toHexString(wc.vendorError()) + ")";
        if ((wrId & RsocketFlow.RECEIVE_FLAG) != 0) {
            flow.onReceive(wc.immediateData(), wc.byteLength(), status);
        } else {
            flow.onSendCompleted(wrId, status);
        }
        if (tookCompletions) {
            return false;
        }
        tookCompletions = true;
        return true;
    }

    /** After a batch of completions: the flow reposts and grants, then the listener hears of it. */
    public void afterCompletions() {
        tookCompletions = false;
        if (freed) {
            return;
        }
        flow.afterCompletions();
        if (!closed && onNews != null) {
            onNews.run();
        }
    }

    // -------------------------------------------------------------------------------------------- posting

    @Override
    public void writeWithImmediate(long wrId, boolean signaled, int offset0, int length0, int offset1, int length1,
            long remoteAddress, int rkey, int immediate) {
        SendWorkRequest request = next().wrId(wrId).opcode(WrOpcode.RDMA_WRITE_WITH_IMM)
                .flags(signaled ? SendFlags.SIGNALED : 0).immediateData(immediate).remote(remoteAddress, rkey);
        slices(request, offset0, length0, offset1, length1);
    }

    @Override
    public void write(long wrId, int offset0, int length0, int offset1, int length1, long remoteAddress, int rkey) {
        SendWorkRequest request = next().wrId(wrId).opcode(WrOpcode.RDMA_WRITE).flags(0).remote(remoteAddress, rkey);
        slices(request, offset0, length0, offset1, length1);
    }

    private void slices(SendWorkRequest request, int offset0, int length0, int offset1, int length1) {
        int count = 0;
        if (length0 > 0) {
            request.sge(count++, sendRegion, offset0, length0);
        }
        if (length1 > 0) {
            request.sge(count++, sendRegion, offset1, length1);
        }
        request.numSge(count);
    }

    @Override
    public void writeZeroBytes(long wrId) {
        next().wrId(wrId).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).remote(0, 0).numSge(0);
    }

    private SendWorkRequest next() {
        if (appended == CHAIN) {
            int rc = flush();
            if (rc != 0) {
                throw new VerbsException("ibv_post_send", rc, "on " + qp);
            }
        }
        return sends.get(appended++);
    }

    @Override
    public int flush() {
        if (appended == 0 || freed) {
            appended = 0;
            return 0;
        }
        SendWorkRequest last = sends.get(appended - 1);
        last.flags(last.flags() | SendFlags.SIGNALED);
        int count = appended;
        appended = 0;
        return qp.postSend(sends, count);
    }

    @Override
    public int postReceives(int count) {
        int left = count;
        while (left > 0) {
            int batch = Math.min(left, receives.capacity());
            int rc = qp.postRecv(receives, batch);
            if (rc != 0) {
                return rc;
            }
            left -= batch;
        }
        return 0;
    }

    // ------------------------------------------------------------------------------------- mapped regions

    /**
     * {@code riomap(PROT_WRITE)}: {@code size} bytes of new registered memory ({@code ibv_reg_mr}) the peer may RDMA
     * WRITE into, known to it by {@code offset}, offered in its iomap table; the host's thread only. The memory is
     * the garbage collector's (an automatic arena): the registration holds it while the device may write, the
     * application's reference after that, so what the peer wrote stays readable after the connection ends.
     *
     * @param size   bytes
     * @param offset the offset the peer's {@code riowrite} names
     * @return the memory and the slot it holds
     * @throws IllegalStateException if the connection is closed, or the peer accepts no more regions (its table is
     *                               absent or full)
     */
    public Mapped mapRegion(int size, long offset) {
        if (freed || closed) {
            throw new IllegalStateException("the connection is closed");
        }
        MemorySegment memory = Arena.ofAuto().allocate(size, 4096);
        MemoryRegion region = host.protectionDomain(id.context()).register(memory, Access.LOCAL_WRITE,
                Access.REMOTE_WRITE);
        try {
            int slot = flow.offerRegion(offset, region.address(), size, region.rkey());
            mappedRegions.add(region);
            return new Mapped(region, memory, slot);
        } catch (RuntimeException e) {
            region.close();
            throw e;
        }
    }

    /**
     * A region of ours in slot {@code slot} of the peer's table.
     *
     * @param region its registration
     * @param memory its memory
     * @param slot   its entry in the peer's iomap table
     */
    public record Mapped(MemoryRegion region, MemorySegment memory, int slot) {
    }

    /**
     * {@code riounmap}: deregisters the region (the peer's writes into it fail from now on), then frees the slot.
     * Idempotent; the host's thread only.
     *
     * @param mapped what {@link #mapRegion} returned
     */
    public void unmapRegion(Mapped mapped) {
        if (mappedRegions.remove(mapped.region())) {
            mapped.region().close();
            flow.withdrawRegion(mapped.slot());
        }
    }

    /**
     * The calling thread's turn with the connection ends: its work-request chains, which the library confines to one
     * thread at a time, go to whichever thread drives it next. For a transport whose threads take turns under a lock
     * of its own (blocking channels), called before the lock is released; an event loop, always one thread, never
     * needs it.
     */
    public void releaseThread() {
        sends.releaseThread();
        receives.releaseThread();
    }

    // ---------------------------------------------------------------------------------------------- close

    /**
     * Closes the stream (DISCONNECT to the peer); the host frees everything once the last sends completed or
     * {@link #LINGER_MILLIS} passed. Idempotent.
     */
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        flow.close();
        closeDeadline = System.nanoTime() + LINGER_MILLIS * 1_000_000L;
        host.closing(this);
    }

    /**
     * Whether {@link #close()} was called.
     *
     * @return true once closed
     */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Whether a closed connection's last sends completed or its linger ran out.
     *
     * @param now {@link System#nanoTime()}
     * @return true if {@link #free()} may run
     */
    public boolean canBeFreed(long now) {
        return flow.allSendsDone() || now - closeDeadline >= 0;
    }

    /**
     * Destroys the queue pair and the id (the peer's rdma_cm reports DISCONNECTED), then the buffers; idempotent.
     * {@code rdma_destroy_id}, which may wait in the kernel for a slow or dead peer, runs on the library's thread, not
     * the caller's.
     */
    public void free() {
        if (freed) {
            return;
        }
        freed = true;
        host.release(queue, reservedEntries, qpNumber);
        try {
            // together: one handshake of the JVM's threads for the three, where each close would make its own
            List<VerbsResource> regions = new ArrayList<>(List.of(qp, sendRegion, receiveRegion));
            regions.addAll(mappedRegions);
            VerbsResource.closeAll(regions.toArray(VerbsResource[]::new));
        } catch (RuntimeException e) {
            // a post still in flight after 10 s: they stay allocated; the id's close below tries the queue pair again
        }
        try {
            id.closeAsync();
        } catch (RuntimeException e) {
            // a call on the id still in flight after 10 s: the id stays allocated, the chains go below anyway
        }
        closeQuietly(sends, receives);
    }

    @Override
    public String toString() {
        return "RsocketConnection[qp " + qpNumber + ", " + flow + "]";
    }
}
