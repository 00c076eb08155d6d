package org.panamaverbs.netty;

import java.util.concurrent.atomic.AtomicInteger;

import org.panamaverbs.cm.CmId;
import org.panamaverbs.rsocket.RsocketFlow;
import org.panamaverbs.rsocket.RsocketIomap;
import org.panamaverbs.rsocket.WorkPoster;
import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendWorkRequest;
import org.panamaverbs.verbs.VerbsResource;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.WrOpcode;

/**
 * One rsocket connection on a device: its rdma_cm id and RC queue pair (on its event loop's completion queue),
 * its two registered buffers and the {@link RsocketFlow} that drives them. Made, used and freed on the event
 * loop's thread (its id's rdma_cm events reach the channel, {@link RdmaSocketChannel}, on the loop too).
 */
final class RsocketConnection implements WorkPoster {
    /** How long a close waits for its last sends (rsocket waits without bound) before the queue pair goes. */
    static final int LINGER_MILLIS = 2000;
    /** Requests appended before they are posted together (the flow flushes sooner at the end of a write). */
    private static final int CHAIN = 32;
    private static final AtomicInteger TAGS = new AtomicInteger();

    /**
     * What a connection is made with: queue depth, buffer sizes and iomap table entries (see
     * {@link RdmaChannelOption}).
     */
    record Settings(int queueDepth, int sendBufferSize, int receiveBufferSize, int iomapSize) {
        static final Settings DEFAULT = new Settings(128, 1 << 17, 1 << 17, 0);
    }

    final RdmaLoop loop;
    final CmId id;
    final RsocketFlow flow;
    private final RdmaLoop.Queue queue;
    private final QueuePair qp;
    private final int qpNumber;
    private final int reservedEntries;
    private final MemoryRegion sendRegion;
    private final MemoryRegion receiveRegion;
    private final SendChain sends;
    private final RecvChain receives;
    private final java.util.List<MemoryRegion> mappedRegions = new java.util.ArrayList<>();
    private RdmaLoop.Registration registration;
    private int appended;
    private boolean closed;
    private boolean freed;
    private long closeDeadline;
    boolean queuedReady;

    private RsocketConnection(RdmaLoop loop, CmId id, Settings settings) {
        this.loop = loop;
        this.id = id;
        if (id.context().device().transport() == org.panamaverbs.verbs.Transport.IWARP) {
            throw new UnsupportedOperationException("rsocket over iWARP needs its SEND-based message path, which this"
                    + " transport does not speak: " + id.context().name() + " is an iWARP device; use RoCE or InfiniBand");
        }
        RdmaLoop.DeviceQueues device = loop.device(id.context());
        int limit = Math.min(RsocketFlow.MAX_QUEUE, device.context.attributes().maxQpWr());
        int depth = Math.max(RsocketFlow.MIN_QUEUE, Math.min(limit, settings.queueDepth()));
        int sendBuffer = settings.sendBufferSize();
        int receiveBuffer = settings.receiveBufferSize() + (settings.receiveBufferSize() & 1);
        int iomapEntries = RsocketIomap.roundedSize(settings.iomapSize());
        this.reservedEntries = 2 * depth;
        this.queue = loop.reserve(device, reservedEntries);
        MemoryRegion send = null;
        MemoryRegion receive = null;
        SendChain sendChain = null;
        RecvChain receiveChain = null;
        try {
            send = device.pd.allocateAndRegister(RsocketFlow.sendMemoryBytes(sendBuffer), Access.LOCAL_WRITE);
            receive = device.pd.allocateAndRegister(RsocketFlow.receiveMemoryBytes(receiveBuffer, iomapEntries), Access.LOCAL_WRITE,
                    Access.REMOTE_WRITE);
            sendChain = SendChain.allocate(CHAIN, 2);
            receiveChain = RecvChain.allocate(depth, 1);
            this.qp = id.createQueuePair(device.pd, QpConfig.builder(queue.cq)
                    .capabilities(QpCapabilities.of(depth, depth).withMaxSendSge(2)).signalAll(false).build());
        } catch (RuntimeException | Error e) {
            closeQuietly(sendChain, receiveChain, send, receive);
            loop.release(queue, reservedEntries, -1);
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
        queue.byQp.put(qpNumber, this);
        int rc = postReceives(depth);
        if (rc != 0) {
            free();
            throw new org.panamaverbs.verbs.VerbsException("ibv_post_recv", rc, depth + " receives on " + qp);
        }
    }

    /**
     * Makes the queue pair and buffers of a connection on {@code id} (resolved or a connection request), with its
     * receives posted; loop thread only.
     */
    static RsocketConnection open(RdmaLoop loop, CmId id, Settings settings) {
        return new RsocketConnection(loop, id, settings);
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

    /** Whom to tell when completions were processed. */
    void attach(RdmaLoop.Registration value) {
        this.registration = value;
    }

    /** The private data of this side: rsocket's 40 bytes. */
    byte[] localData() {
        return flow.localData().encode();
    }

    // ----------------------------------------------------------------------------------------- completions

    /** One completion of this connection's queue pair; false if it was a stale one (an earlier connection's). */
    boolean onCompletion(WorkCompletion wc) {
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
        return true;
    }

    /** After a batch of completions: the flow reposts and grants, then the channel hears of it. */
    void afterCompletions() {
        if (freed) {
            return;
        }
        flow.afterCompletions();
        if (!closed && registration != null) {
            registration.notifyHandle();
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
                throw new org.panamaverbs.verbs.VerbsException("ibv_post_send", rc, "on " + qp);
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
     * {@code riomap(PROT_WRITE)}: {@code size} bytes of new registered memory the peer may RDMA WRITE into, known
     * to it by {@code offset}, offered in its iomap table; loop thread only. The memory is the garbage collector's
     * (an automatic arena): the registration holds it while the device may write, the application's reference after
     * that, so what the peer wrote stays readable after the connection ends.
     *
     * @return the memory and the slot it holds
     * @throws IllegalStateException if the peer accepts no more regions (its table is absent or full)
     */
    Mapped mapRegion(int size, long offset) {
        if (freed || closed) {
            throw new IllegalStateException("the connection is closed");
        }
        java.lang.foreign.MemorySegment memory = java.lang.foreign.Arena.ofAuto().allocate(size, 4096);
        MemoryRegion region = loop.device(id.context()).pd.register(memory, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        try {
            int slot = flow.offerRegion(offset, region.address(), size, region.rkey());
            mappedRegions.add(region);
            return new Mapped(region, memory, slot);
        } catch (RuntimeException e) {
            region.close();
            throw e;
        }
    }

    /** A region of ours in slot {@code slot} of the peer's table. */
    record Mapped(MemoryRegion region, java.lang.foreign.MemorySegment memory, int slot) {
    }

    /** {@code riounmap}: deregisters the region (the peer's writes into it fail from now on), then frees the slot. */
    void unmapRegion(Mapped mapped) {
        if (mappedRegions.remove(mapped.region())) {
            mapped.region().close();
            flow.withdrawRegion(mapped.slot());
        }
    }

    // ---------------------------------------------------------------------------------------------- close

    /** Closes the stream (DISCONNECT to the peer) and frees everything once the last sends completed. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        flow.close();
        closeDeadline = System.nanoTime() + LINGER_MILLIS * 1_000_000L;
        loop.closing(this);
    }

    boolean isClosed() {
        return closed;
    }

    boolean canBeFreed(long now) {
        return flow.allSendsDone() || now - closeDeadline >= 0;
    }

    /**
     * Destroys the queue pair and the id (the peer's rdma_cm reports DISCONNECTED), then the buffers. On the loop:
     * {@code rdma_destroy_id}, which may wait in the kernel for a slow or dead peer, runs on the library's thread.
     */
    void free() {
        if (freed) {
            return;
        }
        freed = true;
        loop.release(queue, reservedEntries, qpNumber);
        try {
            // together: one handshake of the JVM's threads for the three, where each close would make its own
            java.util.List<VerbsResource> regions = new java.util.ArrayList<>(java.util.List.of(qp, sendRegion,
                    receiveRegion));
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
