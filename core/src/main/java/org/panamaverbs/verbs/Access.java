package org.panamaverbs.verbs;

/**
 * {@code enum ibv_access_flags}: what a memory region or a queue pair allows. Combine with
 * {@link #bits(Access...)}.
 */
public enum Access {
    LOCAL_WRITE(1), REMOTE_WRITE(1 << 1), REMOTE_READ(1 << 2), REMOTE_ATOMIC(1 << 3), MW_BIND(1 << 4),
    ZERO_BASED(1 << 5), ON_DEMAND(1 << 6), HUGETLB(1 << 7), RELAXED_ORDERING(1 << 20);

    private final int bit;

    Access(int bit) {
        this.bit = bit;
    }

    /** The C flag value. */
    public int bit() {
        return bit;
    }

    /** The C bit mask of several flags. */
    public static int bits(Access... flags) {
        int mask = 0;
        for (Access a : flags) {
            mask |= a.bit;
        }
        return mask;
    }
}
