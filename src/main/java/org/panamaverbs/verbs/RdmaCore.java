package org.panamaverbs.verbs;

import java.nio.file.Path;
import java.util.List;

/**
 * The rdma-core user-space library this process runs on, from {@link Rdma#rdmaCore()}: the libibverbs file the
 * dynamic loader chose, rdma-core's version, and the fallbacks taken for functions that library lacks.
 *
 * <p>Panama Verbs runs on rdma-core 17 and later. Two functions it calls came later: {@code ibv_reg_mr_iova2}
 * (symbol version {@code IBVERBS_1.8}, rdma-core 28) and {@code _ibv_query_gid_table} ({@code IBVERBS_1.11},
 * rdma-core 32). Without them GID tables are read slot by slot with {@code ibv_query_gid} and the GID types from
 * sysfs, and memory is registered with {@code ibv_reg_mr}; {@code ibv_reg_mr} refuses the optional access flags
 * ({@link Access#RELAXED_ORDERING}) there with an {@link UnsupportedVerbException} naming the release that has them.
 *
 * @param version    rdma-core's version as the library's file name carries it ({@code libibverbs.so.1.14.44.0}:
 *                   {@code "44.0"}), or null when the name carries none (a library not named as rdma-core's build
 *                   names it, or libibverbs 1.x from before rdma-core)
 * @param libibverbs the libibverbs file the process mapped, symbolic links resolved (e.g.
 *                   {@code /usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0}), or null when
 *                   {@code /proc/self/maps} could not tell
 * @param fallbacks  one line per function newer than rdma-core 17 that this library lacks: the function, its symbol
 *                   version, the release that brought it and what Panama Verbs does instead; empty from rdma-core 32;
 *                   unmodifiable
 */
public record RdmaCore(String version, Path libibverbs, List<String> fallbacks) {
    /**
     * Checks and copies the parts.
     *
     * @param version    rdma-core's version, or null if unknown
     * @param libibverbs the library file, or null if unknown
     * @param fallbacks  the fallbacks in use; not null, no null elements
     * @throws NullPointerException if {@code fallbacks} or one of its elements is null
     */
    public RdmaCore {
        fallbacks = List.copyOf(fallbacks);
    }

    /**
     * rdma-core's major version, the number its releases are known by ({@code 44} for {@code "44.0"}).
     *
     * @return the major version, or -1 when {@link #version()} is null
     */
    public int majorVersion() {
        if (version == null) {
            return -1;
        }
        int dot = version.indexOf('.');
        return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
    }

    /**
     * {@return one line: {@code rdma-core 44.0 (/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0)}, with the
     * fallbacks after it when there are any}
     */
    @Override
    public String toString() {
        String text = "rdma-core " + (version == null ? "of unknown version" : version) + " ("
                + (libibverbs == null ? "libibverbs.so.1" : libibverbs) + ")";
        return fallbacks.isEmpty() ? text : text + "; " + String.join("; ", fallbacks);
    }
}
