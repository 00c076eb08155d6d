package com.ibm.disni.verbs;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import org.panamaverbs.verbs.QpType;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.SendWorkRequest;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.WrOpcode;

/**
 * {@link SVCPostSend}: {@code ibv_post_send} through {@code QueuePair.postSend}. The requests are copied into
 * arrays once, when the call is made (later changes to the {@link IbvSendWR} objects are not seen, as in
 * DiSNI); the mod views change those arrays; an {@code execute()} writes what changed into a preallocated
 * {@link SendChain} chain and posts it. Panama Verbs binds a chain to the thread that posts it, so each
 * posting thread gets its own chain on its first execution; after that an execution allocates nothing. A
 * {@code wr_id} set on the first thread to execute goes straight into that thread's chain, as DiSNI's mod wrote
 * the native request, so its next execution posts without writing anything.
 *
 * <p>Beyond DiSNI 2.1, which serialised only {@code wr.rdma}: atomic requests carry {@code wr.atomic}
 * (remote address, rkey, compare-add, swap), and {@code num_sge} up to the entries given is honoured. UD
 * queue pairs are refused when the call is made: {@code wr.ud.ah} is an {@code int} in DiSNI's API, which
 * has no call that makes address handles.
 *
 * <p>Versions: {@code version} moves with every mod setter that changes a value, except a {@code wr_id} change made on
 * the first executing thread (written into its chain at once); the first thread's chain is rewritten only when the
 * version differs from the one it holds, the chains of other threads take every identifier again at each execution.
 * Setting a value a field already has changes nothing. It is written with release and read with acquire semantics
 * (plain stores and loads on x86): an execution that sees a new version sees the values stored before it; a mod racing
 * an execution on another thread is the program's race, as with DiSNI. {@code headerVersion} moves besides it for the
 * fields that are not the identifier (header, scatter-gather entries): a post after a change of {@code wr_id} alone,
 * which DiSNI programs make before every post, rewrites only the identifiers, and a changed entry has its region looked
 * up and its bounds checked only then.
 */
final class PostSendCall extends SVCPostSend implements PerThreadChains.FirstThread<PostSendCall.Part> {

    private static final boolean LITTLE_ENDIAN = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN;

    private final IbvQP qp;
    private final QueuePair pv;
    private final int count;
    private final int maxSge;
    private final long[] wrId;
    private final WrOpcode[] opcode;
    private final int[] flags;
    private final int[] imm;
    private final int[] numSge;
    private final int[] sgeStart;
    private final long[] remoteAddr;
    private final int[] rkey;
    private final int[] reserved;
    private final long[] compareAdd;
    private final long[] swap;
    private final SgeTable sges;
    private final WrMod[] mods;
    private final PerThreadChains<Part> perThread;
    private volatile boolean valid = true;
    /** Moved by every setter that changes a value (see the class comment). */
    private int version;
    /** Moved, besides {@link #version}, by setters of the header and the entries. */
    private int headerVersion;
    private int sgeVersion;
    private static final VarHandle VERSION;
    private static final VarHandle HEADER_VERSION;
    private static final VarHandle SGE_VERSION;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            VERSION = lookup.findVarHandle(PostSendCall.class, "version", int.class);
            HEADER_VERSION = lookup.findVarHandle(PostSendCall.class, "headerVersion", int.class);
            SGE_VERSION = lookup.findVarHandle(PostSendCall.class, "sgeVersion", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    PostSendCall(IbvQP qp, List<IbvSendWR> wrList) throws IOException {
        this.qp = qp;
        this.pv = qp.panama();
        if (pv.config().type() == QpType.UD) {
            throw new IOException("ibv_post_send: UD work requests are not supported by this module: wr.ud.ah is an"
                    + " int in DiSNI's API, which has no call that makes address handles");
        }
        if (wrList == null || wrList.isEmpty()) {
            throw new IOException("ibv_post_send: no work requests");
        }
        count = wrList.size();
        wrId = new long[count];
        opcode = new WrOpcode[count];
        flags = new int[count];
        imm = new int[count];
        numSge = new int[count];
        sgeStart = new int[count];
        remoteAddr = new long[count];
        rkey = new int[count];
        reserved = new int[count];
        compareAdd = new long[count];
        swap = new long[count];
        long totalSge = 0;
        int most = 1;
        for (int i = 0; i < count; i++) {
            // each count against its own list first: a num_sge far beyond it must not size anything
            IbvSendWR wr = wrList.get(i);
            int entries = SgeTable.checkCount(wr.getSg_list(), wr.getNum_sge(), "ibv_post_send: request " + i);
            totalSge += entries;
            most = Math.max(most, entries);
        }
        maxSge = most;
        sges = SgeTable.of(totalSge, "ibv_post_send");
        mods = new WrMod[count];
        int start = 0;
        for (int i = 0; i < count; i++) {
            IbvSendWR wr = wrList.get(i);
            wrId[i] = wr.getWr_id();
            try {
                opcode[i] = WrOpcode.of(wr.getOpcode());
            } catch (IllegalArgumentException e) {
                throw new IOException("ibv_post_send: request " + i + " has opcode " + wr.getOpcode()
                        + ", which is none of IbvSendWR.IBV_WR_*", e);
            }
            flags[i] = wr.getSend_flags();
            imm[i] = wr.getImm_data();
            numSge[i] = wr.getNum_sge();
            sgeStart[i] = start;
            sges.copy(wr.getSg_list(), numSge[i], start, "ibv_post_send: request " + i);
            start += numSge[i];
            if (opcode[i].isAtomic()) {
                IbvSendWR.Atomic atomic = wr.getAtomic();
                remoteAddr[i] = atomic.getRemote_addr();
                rkey[i] = atomic.getRkey();
                reserved[i] = atomic.getReserved();
                compareAdd[i] = atomic.getCompare_add();
                swap[i] = atomic.getSwap();
            } else {
                IbvSendWR.Rdma rdma = wr.getRdma();
                remoteAddr[i] = rdma.getRemote_addr();
                rkey[i] = rdma.getRkey();
                reserved[i] = rdma.getReserved();
            }
            mods[i] = new WrMod(i);
        }
        perThread = new PerThreadChains<>(this::newPerThread, this);
    }

    private Part newPerThread() {
        return new Part(SendChain.allocate(count, maxSge), new SgeTable.Resolved(sges.addr.length));
    }

    /**
     * A thread's chain and the regions its entries resolved to, with the versions of the call's values it holds
     * ({@code -1}: none yet): an unchanged call is posted without being written again, and a change of
     * {@code wr_id} alone rewrites only the identifiers.
     */
    static final class Part extends PerThreadChains.Requests<SendChain> {
        int filled = -1;
        int filledHeaders = -1;
        int filledSges = -1;
        /** Whether this is the first thread's chain, into which mods on that thread write {@code wr_id}. */
        boolean first;

        Part(SendChain chain, SgeTable.Resolved resolved) {
            super(chain, resolved, chain::close);
        }
    }

    /** The first thread to execute, written last: that thread then finds its part without a lookup. */
    private volatile Thread first;
    private Part firstPart;

    @Override
    public void remember(Part part) {
        for (int i = 0; i < count; i++) {
            mods[i].firstRequest = part.chain.get(i);
        }
        part.first = true;
        firstPart = part;
        first = Thread.currentThread();
    }

    @Override
    public void forget() {
        first = null; // firstPart stays: only the thread remembered reads it, and only while it is remembered
    }

    /** This thread's part; the first thread's from the fields above (written before {@code first}, by that thread). */
    private Part part() throws IOException {
        return Thread.currentThread() == first ? firstPart : perThread.require("ibv_post_send");
    }

    /** Writes every request's identifier into the thread's chain. */
    private void writeIds(SendChain chain) {
        for (int i = 0; i < count; i++) {
            chain.get(i).wrId(wrId[i]);
        }
    }

    /** Writes every request's opcode, flags, immediate data and remote (or atomic) fields. */
    private void writeHeaders(SendChain chain) {
        for (int i = 0; i < count; i++) {
            SendWorkRequest r = chain.get(i);
            r.opcode(opcode[i]).flags(flags[i]);
            r.immediateData(LITTLE_ENDIAN ? Integer.reverseBytes(imm[i]) : imm[i]);
            switch (opcode[i]) {
                case RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ -> r.remote(remoteAddr[i], rkey[i]);
                case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD ->
                        r.atomic(remoteAddr[i], rkey[i], compareAdd[i], swap[i]);
                default -> {
                }
            }
        }
    }

    /** Writes every request's scatter-gather entries, each with the region its lkey resolves to (bounds checked). */
    private void writeSges(Part t) throws IOException {
        IbvContext context = qp.getContext();
        for (int i = 0; i < count; i++) {
            sges.writeInto(t.chain.get(i), sgeStart[i], numSge[i], t.resolved, context);
        }
    }

    /** Rewrites the headers and scatter-gather entries that changed since the thread's chain was written. */
    private void refreshOthers(Part t, int headers, int entries) throws IOException {
        if (t.filledHeaders != headers) {
            writeHeaders(t.chain);
            t.filledHeaders = headers;
        }
        if (t.filledSges != entries) {
            writeSges(t);
            t.filledSges = entries;
        }
    }

    @Override
    public SVCPostSend execute() throws IOException {
        Part t = part();
        SendChain chain = t.chain;
        int current = (int) VERSION.getAcquire(this);
        int rc;
        try {
            // executing again unchanged posts the first thread's chain as it is (DiSNI's SVCs are made to be
            // re-executed); after a change (most often wr_id on another thread, which is all this writes then), and
            // on every other thread, whose chain no mod writes, the identifiers are written first
            if (t.filled != current || !t.first) {
                int headers = (int) HEADER_VERSION.getAcquire(this);
                int entries = (int) SGE_VERSION.getAcquire(this);
                if (t.filledHeaders != headers || t.filledSges != entries) {
                    refreshOthers(t, headers, entries);
                }
                writeIds(chain);
                t.filled = current;
            }
            try {
                rc = pv.postSend(chain, count);
            } catch (IllegalStateException e) {
                // Panama Verbs refused, before posting anything, an entry whose region closed since the chain was
                // written: look the entries up again (a deregistered lkey is refused with the lookup's message)
                // and post once more. Checked here, not before every post, to keep the data path short.
                if (t.resolved.allOpen()) {
                    throw e;
                }
                writeSges(t);
                rc = pv.postSend(chain, count);
            }
        } catch (RuntimeException e) {
            throw Failures.io("ibv_post_send", e);
        }
        if (rc != 0) {
            throw Failures.post("ibv_post_send", rc, chain.failedIndex(), count);
        }
        return this;
    }

    /** A mod's write of a header field: stores the value and, if it changed, bumps both versions that name it. */
    private void setHeader(long[] values, int index, long value) {
        if (store(values, index, value)) {
            headerChanged();
        }
    }

    /** {@link #setHeader(long[], int, long)} for int fields. */
    private void setHeader(int[] values, int index, int value) {
        if (store(values, index, value)) {
            headerChanged();
        }
    }

    /** A mod's write of a scatter-gather field: stores the value and, if it changed, bumps both versions. */
    private void setSge(long[] values, int index, long value) {
        if (store(values, index, value)) {
            sgeChanged();
        }
    }

    /** {@link #setSge(long[], int, long)} for int fields. */
    private void setSge(int[] values, int index, int value) {
        if (store(values, index, value)) {
            sgeChanged();
        }
    }

    /** {@return whether {@code value} differs from what {@code values[index]} held}; stores it if so. */
    private static boolean store(long[] values, int index, long value) {
        if (values[index] == value) {
            return false;
        }
        values[index] = value;
        return true;
    }

    /** {@link #store(long[], int, long)} for int fields. */
    private static boolean store(int[] values, int index, int value) {
        if (values[index] == value) {
            return false;
        }
        values[index] = value;
        return true;
    }

    /** Publishes a header change: its own version first, so an execution that sees the new version sees it. */
    private void headerChanged() {
        HEADER_VERSION.setRelease(this, headerVersion + 1);
        VERSION.setRelease(this, version + 1);
    }

    /** Publishes a scatter-gather change, as {@link #headerChanged()}. */
    private void sgeChanged() {
        SGE_VERSION.setRelease(this, sgeVersion + 1);
        VERSION.setRelease(this, version + 1);
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public SVCPostSend free() {
        valid = false;
        perThread.closeAll();
        return this;
    }

    @Override
    public SendWRMod getWrMod(int index) throws IOException {
        if (index < 0 || index >= count) {
            throw new IOException("no work request " + index + " in this call (it has " + count + ")");
        }
        return mods[index];
    }

    /** The view of request {@code i}; its RDMA and SGE views are made once. */
    private final class WrMod implements SendWRMod {
        private final int i;
        private final RdmaMod rdma;
        private final SgeMod[] sgeMods;

        WrMod(int i) {
            this.i = i;
            this.rdma = new Rdma(i);
            this.sgeMods = new SgeMod[numSge[i]];
            for (int j = 0; j < sgeMods.length; j++) {
                sgeMods[j] = new Sge(sgeStart[i] + j);
            }
        }

        /** This request in the first executing thread's chain, where a new {@code wr_id} goes at once. */
        private SendWorkRequest firstRequest;

        @Override
        public void setWr_id(long wr_id) {
            if (!store(wrId, i, wr_id)) {
                return;
            }
            if (Thread.currentThread() == first) {
                // the first thread's chain takes it now; the chains of other threads take every identifier anew
                // at each execution, so they need not be told
                firstRequest.wrId(wr_id);
            } else {
                VERSION.setRelease(PostSendCall.this, version + 1); // the first thread's chain takes it at its next execution
            }
        }

        @Override
        public void setSend_flags(int send_flags) {
            setHeader(flags, i, send_flags);
        }

        @Override
        public long getWr_id() {
            return wrId[i];
        }

        @Override
        public int getNum_sge() {
            return numSge[i];
        }

        @Override
        public int getOpcode() {
            return opcode[i].code();
        }

        @Override
        public int getSend_flags() {
            return flags[i];
        }

        @Override
        public RdmaMod getRdmaMod() {
            return rdma;
        }

        @Override
        public SgeMod getSgeMod(int index) {
            if (index < 0 || index >= sgeMods.length) {
                throw new IndexOutOfBoundsException("request " + i + " has " + sgeMods.length
                        + " scatter-gather entries, not an entry " + index);
            }
            return sgeMods[index];
        }
    }

    /** The view of request {@code i}'s remote address and key ({@code wr.rdma}, or {@code wr.atomic}'s for atomics). */
    private final class Rdma implements RdmaMod {
        private final int i;

        Rdma(int i) {
            this.i = i;
        }

        @Override
        public void setRemote_addr(long remote_addr) {
            setHeader(remoteAddr, i, remote_addr);
        }

        @Override
        public long getRemote_addr() {
            return remoteAddr[i];
        }

        @Override
        public void setRkey(int key) {
            setHeader(rkey, i, key);
        }

        @Override
        public int getRkey() {
            return rkey[i];
        }

        @Override
        public void setReserved(int value) {
            setHeader(reserved, i, value);
        }

        @Override
        public int getReserved() {
            return reserved[i];
        }
    }

    /** The view of scatter-gather entry {@code k} (flattened over all requests). */
    private final class Sge implements SgeMod {
        private final int k;

        Sge(int k) {
            this.k = k;
        }

        @Override
        public void setAddr(long addr) {
            setSge(sges.addr, k, addr);
        }

        @Override
        public long getAddr() {
            return sges.addr[k];
        }

        @Override
        public void setLength(int length) {
            setSge(sges.length, k, length);
        }

        @Override
        public int getLength() {
            return sges.length[k];
        }

        @Override
        public void setLkey(int lkey) {
            setSge(sges.lkey, k, lkey);
        }

        @Override
        public int getLkey() {
            return sges.lkey[k];
        }
    }
}
