package org.panamaverbs.verbs;

/**
 * {@code enum ibv_access_flags}: what a memory region or a queue pair allows. Combine with
 * {@link #bits(Access...)}.
 */
public enum Access {
    /**
     * {@code IBV_ACCESS_LOCAL_WRITE} (0x1): the local device may write the memory, as receive buffers and the
     * destinations of RDMA READ and atomic results need. Memory that is only sent from needs no flag at all.
     * The verbs refuse {@link #REMOTE_WRITE} and {@link #REMOTE_ATOMIC} without it, so
     * {@link ProtectionDomain#register} adds it to them.
     */
    LOCAL_WRITE(1),
    /** {@code IBV_ACCESS_REMOTE_WRITE} (0x2): a peer holding the rkey may RDMA WRITE into the memory. */
    REMOTE_WRITE(1 << 1),
    /** {@code IBV_ACCESS_REMOTE_READ} (0x4): a peer holding the rkey may RDMA READ the memory. */
    REMOTE_READ(1 << 2),
    /**
     * {@code IBV_ACCESS_REMOTE_ATOMIC} (0x8): a peer holding the rkey may run compare-and-swap and fetch-and-add
     * on 8-byte aligned words of the memory; only on a device with atomics ({@link AtomicCapability#isSupported()}).
     */
    REMOTE_ATOMIC(1 << 3),
    /**
     * {@code IBV_ACCESS_MW_BIND} (0x10): memory windows may be bound to the region; Panama Verbs has no memory window
     * API.
     */
    MW_BIND(1 << 4),
    /**
     * {@code IBV_ACCESS_ZERO_BASED} (0x20): for memory window binds, remote addresses are offsets from the
     * window's start rather than virtual addresses. Panama Verbs registers every region with its virtual
     * address as iova ({@link MemoryRegion#address()}).
     */
    ZERO_BASED(1 << 5),
    /**
     * {@code IBV_ACCESS_ON_DEMAND} (0x40): on-demand paging; the pages are not pinned at registration and the
     * device faults them in when it touches them. Only on devices with ODP support; others refuse the registration.
     */
    ON_DEMAND(1 << 6),
    /**
     * {@code IBV_ACCESS_HUGETLB} (0x80): with {@link #ON_DEMAND}, tells the kernel the memory is backed by huge
     * pages.
     */
    HUGETLB(1 << 7),
    /**
     * {@code IBV_ACCESS_RELAXED_ORDERING} (0x100000, the first optional flag): the device may let its PCIe writes
     * to this memory complete out of order, which is faster on some platforms. Being optional, it is ignored
     * rather than refused by a device or kernel without support for it. Only {@code ibv_reg_mr_iova2} (rdma-core 28
     * and later) passes optional flags on: with an older libibverbs, registering with this flag is refused with an
     * {@link UnsupportedVerbException} naming that release (see {@link Rdma#rdmaCore()}).
     */
    RELAXED_ORDERING(1 << 20);

    private final int bit;

    Access(int bit) {
        this.bit = bit;
    }

    /**
     * {@return the C flag value: this flag's single {@code IBV_ACCESS_*} bit, e.g. {@code 0x4} for {@link
     * #REMOTE_READ}}
     */
    public int bit() {
        return bit;
    }

    /**
     * The C bit mask of several flags, as {@code ibv_reg_mr}'s {@code access} and INIT's
     * {@code qp_access_flags} take it ({@link QpConnectOptions.Builder#access(int)}).
     *
     * @param flags the flags to combine, in any order, repeats allowed; no null elements
     * @return the bitwise OR of their {@link #bit()} values; 0 for no flags (a region that can only be
     *         sent from, a queue pair that allows no remote access)
     */
    public static int bits(Access... flags) {
        int mask = 0;
        for (Access a : flags) {
            mask |= a.bit;
        }
        return mask;
    }
}
