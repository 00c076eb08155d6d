package com.ibm.disni.verbs;

import java.io.IOException;
import java.util.List;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.WorkRequest;

/**
 * The scatter-gather entries of a prepared post, copied from {@link IbvSge} objects into arrays (DiSNI's
 * {@code SgeMod} changes them there), and how an entry's raw address and lkey become what Panama Verbs
 * posts: the {@link MemoryRegion} this module registered with that lkey on the queue pair's device, and the
 * offset into it (Panama Verbs checks the entry against the region's bounds and liveness at every post).
 */
final class SgeTable {

    final long[] addr;
    final int[] length;
    final int[] lkey;

    SgeTable(int count) {
        addr = new long[count];
        length = new int[count];
        lkey = new int[count];
    }

    /**
     * A table of {@code total} entries: the sum of the requests' counts, each checked against its list by
     * {@link #checkCount} first (so the total is bounded by the lists' real sizes).
     *
     * @throws IOException if the total exceeds what one table can hold
     */
    static SgeTable of(long total, String verb) throws IOException {
        if (total > Integer.MAX_VALUE - 8) {
            throw new IOException(verb + ": " + total + " scatter-gather entries in one call are more than it can hold");
        }
        return new SgeTable((int) total);
    }

    /**
     * Checks a request's {@code num_sge} against its list, before anything is sized by it: not negative, and no
     * more than the entries the list has.
     *
     * @return {@code count}
     * @throws IOException naming {@code what} otherwise
     */
    static int checkCount(List<IbvSge> list, int count, String what) throws IOException {
        if (count < 0) {
            throw new IOException(what + ": num_sge " + count + " is negative");
        }
        if (count > 0 && (list == null || list.size() < count)) {
            throw new IOException(what + ": num_sge is " + count + " but the scatter-gather list has "
                    + (list == null ? "no" : list.size()) + " entries");
        }
        return count;
    }

    /** Copies the first {@code count} entries of {@code list} to positions {@code start..}. */
    void copy(List<IbvSge> list, int count, int start, String what) throws IOException {
        checkCount(list, count, what);
        for (int j = 0; j < count; j++) {
            IbvSge sge = list.get(j);
            addr[start + j] = sge.getAddr();
            length[start + j] = sge.getLength();
            lkey[start + j] = sge.getLkey();
        }
    }

    /**
     * Per thread: the region each entry resolved to last, so that an unchanged entry costs no lookup (and no
     * allocation).
     */
    /**
     * Writes entries {@code start .. start + count - 1} of this table into request {@code r} as its
     * scatter-gather list, each with the region its lkey resolves to (Panama Verbs checks the bounds), and sets
     * its {@code num_sge}.
     */
    void writeInto(WorkRequest<?> r, int start, int count, Resolved resolved, IbvContext context) throws IOException {
        for (int j = 0; j < count; j++) {
            int k = start + j;
            MemoryRegion region = resolved.region(context, k, lkey[k]);
            r.sge(j, region, addr[k] - region.address(), length[k]);
        }
        r.numSge(count);
    }

    static final class Resolved {
        private final int[] lkey;
        private final MemoryRegion[] region;

        Resolved(int count) {
            lkey = new int[count];
            region = new MemoryRegion[count];
        }

        /** True when every entry resolved so far still names an open region. */
        boolean allOpen() {
            for (MemoryRegion r : region) {
                if (r != null && r.isClosed()) {
                    return false;
                }
            }
            return true;
        }

        MemoryRegion region(IbvContext context, int k, int key) throws IOException {
            MemoryRegion r = region[k];
            if (r != null && lkey[k] == key && !r.isClosed()) {
                return r;
            }
            IbvMr mr = context.regions.get(key);
            if (mr == null || mr.pv == null || mr.pv.isClosed()) {
                throw new IOException("no open memory region with lkey 0x" + Integer.toHexString(key)
                        + " was registered through this module on " + context.pv.name()
                        + " (scatter-gather entries must lie in a region registered with IbvPd.regMr)");
            }
            region[k] = mr.pv;
            lkey[k] = key;
            return mr.pv;
        }
    }
}
