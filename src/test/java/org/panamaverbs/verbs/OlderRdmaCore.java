package org.panamaverbs.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;

import org.panamaverbs.internal.NativeLibrary;
import org.panamaverbs.internal.VerbsSymbols;

/**
 * The installed libibverbs as an older rdma-core shows it: a lookup of the real library that does not find the
 * functions newer than rdma-core 17 ({@code _ibv_query_gid_table}, {@code ibv_reg_mr_iova2}), so a context opened
 * with the table built from it ({@link Rdma#open(String, HardwareClass, VerbsSymbols)}) runs every fallback for real.
 */
final class OlderRdmaCore {
    /** What rdma-core before 28 (CentOS 7.9's 22.4, Ubuntu 18.04's 17.1) does not export. */
    static final Set<String> HIDDEN = Set.of("_ibv_query_gid_table", "ibv_reg_mr_iova2");

    private OlderRdmaCore() {
    }

    /** {@code lookup} without the names in {@code hidden}. */
    static SymbolLookup without(SymbolLookup lookup, Set<String> hidden) {
        return name -> hidden.contains(name) ? Optional.empty() : lookup.find(name);
    }

    /** The installed library's functions without {@link #HIDDEN}, named as {@code libraryFile} (null: unknown). */
    static VerbsSymbols symbols(Path libraryFile) {
        return VerbsSymbols.resolve(without(SymbolLookup.libraryLookup(NativeLibrary.IBVERBS, Arena.global()), HIDDEN),
                libraryFile);
    }
}
