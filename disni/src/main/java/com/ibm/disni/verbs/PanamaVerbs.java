package com.ibm.disni.verbs;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.ProtectionDomain;

/**
 * This module's {@link RdmaVerbs}: each DiSNI verb as the Panama Verbs call that performs it. The stateful
 * verb calls are {@link RegMrCall}, {@link DeregMrCall}, {@link PollCqCall}, {@link ReqNotifyCall},
 * {@link PostSendCall} and {@link PostRecvCall}.
 */
final class PanamaVerbs extends RdmaVerbs {

    static final PanamaVerbs INSTANCE = new PanamaVerbs();

    /** Numbers for {@link IbvMr#getHandle()}. */
    static final AtomicInteger REGION_HANDLES = new AtomicInteger();

    /** How long "no bound" is for waits given a negative timeout. */
    static final Duration FOREVER = Duration.ofDays(365L * 100);

    private PanamaVerbs() {
    }

    static ProtectionDomain allocate(IbvContext context) throws IOException {
        try {
            return context.panama().allocateProtectionDomain();
        } catch (RuntimeException e) {
            throw Failures.io("ibv_alloc_pd", e);
        }
    }

    static CompletionQueue createQueue(IbvContext context, IbvCompChannel channel, int ncqe) throws IOException {
        try {
            return context.panama().createCompletionQueue(ncqe, channel == null ? null : channel.panama());
        } catch (RuntimeException e) {
            throw Failures.io("ibv_create_cq", e);
        }
    }

    static Access[] access(int bits) throws IOException {
        List<Access> flags = new ArrayList<>();
        int known = 0;
        for (Access a : Access.values()) {
            known |= a.bit();
            if ((bits & a.bit()) != 0) {
                flags.add(a);
            }
        }
        if ((bits & ~known) != 0) {
            throw new IOException("ibv_reg_mr: unknown access bits 0x" + Integer.toHexString(bits & ~known));
        }
        return flags.toArray(new Access[0]);
    }

    @Override
    public IbvPd allocPd(IbvContext context) throws IOException {
        return new IbvPd(context, allocate(context));
    }

    @Override
    public IbvCompChannel createCompChannel(IbvContext context) throws IOException {
        try {
            return new IbvCompChannel(context, context.panama().createCompletionChannel());
        } catch (RuntimeException e) {
            throw Failures.io("ibv_create_comp_channel", e);
        }
    }

    @Override
    public IbvCQ createCQ(IbvContext context, IbvCompChannel compChannel, int ncqe, int compVector)
            throws IOException {
        if (compVector != 0) {
            throw new IOException("ibv_create_cq: completion vector " + compVector + " is not offered here: this"
                    + " module creates every completion queue on vector 0 (getNumCompVectors() is 1)");
        }
        return new IbvCQ(context, compChannel, createQueue(context, compChannel, ncqe));
    }

    @Override
    public boolean getCqEvent(IbvCompChannel compChannel, IbvCQ cq, int timeout) throws IOException {
        try {
            Duration wait = timeout < 0 ? FOREVER : Duration.ofMillis(timeout);
            return compChannel.panama().awaitEvent(wait) != null;
        } catch (RuntimeException e) {
            throw Failures.io("ibv_get_cq_event", e);
        }
    }

    @Override
    public SVCRegMr regMr(IbvPd pd, ByteBuffer buffer, int access) throws IOException {
        if (!buffer.isDirect()) {
            throw new IOException("ibv_reg_mr: " + buffer + " is not a direct buffer (only direct buffers have a"
                    + " fixed native address)");
        }
        // the whole capacity from element 0, as DiSNI registered it; the segment keeps the buffer reachable, and
        // the library refuses a buffer of an arena, which the program could close under the device
        MemorySegment memory = MemorySegment.ofBuffer(buffer.duplicate().clear());
        return new RegMrCall(pd, memory, access, true);
    }

    /**
     * Inside a region registered from a buffer, the new region is registered over that buffer's memory (it keeps the
     * buffer reachable); any other address is trusted (see {@link IbvPd}).
     */
    @Override
    public SVCRegMr regMr(IbvPd pd, long address, int length, int access) throws IOException {
        if (address == 0 || length <= 0) {
            throw new IOException("ibv_reg_mr: no memory at address 0x" + Long.toHexString(address) + ", length "
                    + length);
        }
        MemorySegment known = KnownMemory.slice(address, length, "ibv_reg_mr");
        if (known != null) {
            return new RegMrCall(pd, known, access, true);
        }
        // the address is trusted: ibv_reg_mr itself refuses memory that is not mapped now (EFAULT), nothing more can be seen
        return new RegMrCall(pd, MemorySegment.ofAddress(address).reinterpret(length), access, false);
    }

    @Override
    public int queryOdpSupport(IbvContext context) throws IOException {
        return -1;
    }

    @Override
    public int expPrefetchMr(IbvMr mr, long address, int length) throws IOException {
        return -1;
    }

    @Override
    public SVCDeregMr deregMr(IbvMr mr) throws IOException {
        if (mr.pv == null) {
            throw Failures.notOurs(mr);
        }
        return new DeregMrCall(mr);
    }

    @Override
    public SVCPostSend postSend(IbvQP qp, List<IbvSendWR> wrList, List<IbvSendWR> badWrList) throws IOException {
        return new PostSendCall(qp, wrList);
    }

    @Override
    public SVCPostRecv postRecv(IbvQP qp, List<IbvRecvWR> wrList, List<IbvRecvWR> badWrList) throws IOException {
        return new PostRecvCall(qp, wrList);
    }

    @Override
    public SVCPollCq pollCQ(IbvCQ cq, IbvWC[] wcList, int ne) throws IOException {
        return new PollCqCall(cq, wcList, ne);
    }

    @Override
    public SVCReqNotify reqNotifyCQ(IbvCQ cq, boolean solicited_only) throws IOException {
        if (cq.pv.channel() == null) {
            throw new IOException("ibv_req_notify_cq: the completion queue was created without a completion channel");
        }
        return new ReqNotifyCall(cq, solicited_only);
    }

    @Override
    public int ackCqEvents(IbvCQ cq, int nevents) throws IOException {
        try {
            cq.pv.acknowledgeEvents();
            return 0;
        } catch (RuntimeException e) {
            throw Failures.io("ibv_ack_cq_events", e);
        }
    }

    @Override
    public int destroyCompChannel(IbvCompChannel compChannel) throws IOException {
        try {
            compChannel.panama().close();
            compChannel.close();
            return 0;
        } catch (RuntimeException e) {
            throw Failures.io("ibv_destroy_comp_channel", e);
        }
    }

    @Override
    public int deallocPd(IbvPd pd) throws IOException {
        try {
            pd.pv.close();
            // the domain's regions went with it (Panama Verbs closes them): their IbvMr objects say so too
            pd.getContext().regions.values().removeIf(mr -> {
                if (mr.pv.protectionDomain() != pd.pv) {
                    return false;
                }
                mr.close();
                return true;
            });
            pd.close();
            return 0;
        } catch (RuntimeException e) {
            throw Failures.io("ibv_dealloc_pd", e);
        }
    }

    @Override
    public int destroyCQ(IbvCQ cq) throws IOException {
        try {
            cq.pv.close();
            cq.close();
            return 0;
        } catch (RuntimeException e) {
            throw Failures.io("ibv_destroy_cq", e);
        }
    }
}
