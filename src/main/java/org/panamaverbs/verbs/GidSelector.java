package org.panamaverbs.verbs;

import java.util.List;

/**
 * Which GID a queue pair or address handle uses when its configuration names none
 * ({@link Context#defaultGidIndex(int)}): on RoCE the first RoCE v2 entry holding an IPv4-mapped address, because
 * it is routable and what {@code ib_write_bw -x} users pick; else the first RoCE v2 entry, else the first entry.
 * An InfiniBand table has no RoCE entries, so it gets its first entry.
 */
final class GidSelector {
    private GidSelector() {
    }

    /** The index to use from {@code table} (a port's populated entries), or 0 when it has none. */
    static int defaultIndex(List<GidEntry> table) {
        return table.stream().filter(e -> e.type() == GidType.ROCE_V2 && e.gid().isIpv4Mapped()).findFirst()
                .or(() -> table.stream().filter(e -> e.type() == GidType.ROCE_V2).findFirst())
                .or(() -> table.stream().findFirst())
                .map(GidEntry::index).orElse(0);
    }
}
