package org.panamaverbs.verbs;

/**
 * {@code struct ibv_sge}: a scatter-gather entry, a bounds-checked slice of a registered memory region.
 * Only {@link MemoryRegion#sge(long, int)} makes one, so every entry a work request carries names a real
 * region: a post checks that region again (still open, its memory still alive), which raw numbers could
 * not be checked against. Immutable; keep and reuse it freely.
 */
public final class Sge {
    private final MemoryRegion region;
    private final long address;
    private final int length;
    private final int lkey;

    Sge(MemoryRegion region, long address, int length, int lkey) {
        this.region = region;
        this.address = address;
        this.length = length;
        this.lkey = lkey;
    }

    /** The region this entry is a slice of. */
    public MemoryRegion region() {
        return region;
    }

    /** The first byte's virtual address. */
    public long address() {
        return address;
    }

    /** The number of bytes. */
    public int length() {
        return length;
    }

    /** The region's local key. */
    public int lkey() {
        return lkey;
    }

    @Override
    public String toString() {
        return "Sge[0x" + Long.toHexString(address) + ", " + length + " bytes, lkey 0x" + Integer.toHexString(lkey) + "]";
    }
}
