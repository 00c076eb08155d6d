package org.panamaverbs.bench.perftest;

import java.util.List;

import org.panamaverbs.verbs.GidEntry;
import org.panamaverbs.verbs.GidType;

/**
 * perftest's {@code get_best_gid_index} (26.04's {@code compute_gid_score}): the GID a tool uses when {@code -x} names
 * none. Each populated entry scores 100 when its family is the one asked for (IPv4-mapped, or IPv6 with
 * {@code --ipv6}), 10 when it is not link-local ({@code fe80::/10}, {@code 169.254.0.0/16}), and its RoCE version
 * (2 for v2, 1 for v1); the first entry of the highest score wins. On InfiniBand every entry scores alike: the first.
 */
final class BestGid {
    private static final int ADDRESS_FAMILY = 100;
    private static final int GLOBAL_SCOPE = 10;

    private BestGid() {
    }

    /** The index to use from {@code table} (a port's populated entries), or 0 when it has none. */
    static int index(List<GidEntry> table, boolean preferIpv6) {
        int best = 0;
        int bestScore = -1;
        for (GidEntry entry : table) {
            int score = score(entry, preferIpv6);
            if (score > bestScore) {
                bestScore = score;
                best = entry.index();
            }
        }
        return best;
    }

    static int score(GidEntry entry, boolean preferIpv6) {
        boolean ipv4 = entry.gid().isIpv4Mapped();
        int score = ipv4 != preferIpv6 ? ADDRESS_FAMILY : 0;
        byte[] raw = entry.gid().toBytes();
        boolean linkLocal = ipv4 ? (raw[12] & 0xff) == 169 && (raw[13] & 0xff) == 254 : entry.gid().isLinkLocal();
        if (!linkLocal) {
            score += GLOBAL_SCOPE;
        }
        return score + (entry.type() == GidType.ROCE_V2 ? 2 : entry.type() == GidType.ROCE_V1 ? 1 : 0);
    }
}
