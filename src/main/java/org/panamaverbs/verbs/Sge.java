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

    /**
     * {@return the region this entry is a slice of} A work request written from this entry keeps it and checks it is
     * still open at every post.
     */
    public MemoryRegion region() {
        return region;
    }

    /** {@return the first byte's virtual address, the {@code addr} of {@code struct ibv_sge}} */
    public long address() {
        return address;
    }

    /** {@return the number of bytes, the {@code length} of {@code struct ibv_sge}; 0 to the region's size} */
    public int length() {
        return length;
    }

    /** {@return the region's local key, the {@code lkey} of {@code struct ibv_sge}} */
    public int lkey() {
        return lkey;
    }

    @Override
    public String toString() {
        return "Sge[0x" + Long.toHexString(address) + ", " + length + " bytes, lkey 0x" + Integer.toHexString(lkey) + "]";
    }
}
