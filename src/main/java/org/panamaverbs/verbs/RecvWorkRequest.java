package org.panamaverbs.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;

import org.panamaverbs.ffi.ibv_recv_wr;

/**
 * A flyweight over one {@code struct ibv_recv_wr} of a {@link RecvWorkRequests} chain; setters write
 * native memory directly and allocate nothing.
 */
public final class RecvWorkRequest {
    private static final long WR_ID = ibv_recv_wr.wr_id$offset();
    private static final long NUM_SGE = ibv_recv_wr.num_sge$offset();

    private final RecvWorkRequests chain;
    private final MemorySegment requests;
    private final int index;
    private final long base;

    RecvWorkRequest(RecvWorkRequests chain, int index) {
        this.chain = chain;
        this.requests = chain.requests;
        this.index = index;
        this.base = index * RecvWorkRequests.WR_SIZE;
    }

    /** Sets {@code wr_id}, returned in the receive completion. */
    public RecvWorkRequest id(long wrId) {
        requests.set(JAVA_LONG, base + WR_ID, wrId);
        return this;
    }

    /** {@code wr_id}. */
    public long id() {
        return requests.get(JAVA_LONG, base + WR_ID);
    }

    /**
     * Makes this request receive into exactly one entry: {@code length} bytes at {@code offset} of {@code region}.
     *
     * @throws IndexOutOfBoundsException if the slice leaves the region
     * @throws IllegalStateException     if the region is closed
     */
    public RecvWorkRequest sge(MemoryRegion region, long offset, int length) {
        chain.writeSge(index, 0, region, offset, length);
        return numSge(1);
    }

    /** Writes entry {@code sgeIndex}; set the count with {@link #numSge(int)}. */
    public RecvWorkRequest sge(int sgeIndex, MemoryRegion region, long offset, int length) {
        chain.writeSge(index, sgeIndex, region, offset, length);
        return this;
    }

    /** Writes entry {@code sgeIndex} from an already checked {@link Sge}. */
    public RecvWorkRequest sge(int sgeIndex, Sge sge) {
        chain.writeSge(index, sgeIndex, sge.address(), sge.length(), sge.lkey());
        return this;
    }

    /** Sets {@code num_sge}. */
    public RecvWorkRequest numSge(int count) {
        chain.checkSgeCount(count);
        requests.set(JAVA_INT, base + NUM_SGE, count);
        return this;
    }

    /** {@code num_sge}. */
    public int numSge() {
        return requests.get(JAVA_INT, base + NUM_SGE);
    }

    /** The index of this request in its chain. */
    public int index() {
        return index;
    }
}
