package org.panamaverbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The libibverbs functions the facade calls that rdma-core 17 (the oldest release users' PVRDMA guests run)
 * does not export, resolved once from the loaded library, and which rdma-core that library is.
 *
 * <p>The generated bindings look every function up in a static initializer of its own holder class and throw
 * {@code ExceptionInInitializerError} (then {@code NoClassDefFoundError}) when it is missing. So the functions
 * listed in {@link Newer} are never reached through {@code org.panamaverbs.ffi}: they are looked up here, through
 * a {@link SymbolLookup} of this class's own, where a missing one is an absent handle; the facade then takes the
 * fallback {@link Newer#fallback()} names, or refuses the one feature that needs it with
 * {@link #lacking(Newer, String)} (symbol, rdma-core version, what to install).
 *
 * <p>{@link #system()} is the process's table, resolved the first time the library is used. {@link #resolve} builds
 * a table from any lookup: how the tests hide functions from the real library to drive the fallbacks on a device.
 */
public final class VerbsSymbols {
    /** {@code IBV_ACCESS_OPTIONAL_RANGE}: access flags an older kernel or library may ignore; only {@code ibv_reg_mr_iova2} takes them. */
    public static final int ACCESS_OPTIONAL_RANGE = 0x3ff00000;

    /** A function newer than rdma-core 17 that the facade calls, with the version that brought it. */
    public enum Newer {
        /** {@code ssize_t _ibv_query_gid_table(ctx, entries, max_entries, flags, entry_size)}: the GID table with types. */
        QUERY_GID_TABLE("_ibv_query_gid_table", "IBVERBS_1.11", 32,
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_LONG),
                "GID tables from ibv_query_gid, GID types and network devices from sysfs (as libibverbs before 32)"),
        /** {@code struct ibv_mr *ibv_reg_mr_iova2(pd, addr, length, iova, access)}: what the {@code ibv_reg_mr} macro calls. */
        REG_MR_IOVA2("ibv_reg_mr_iova2", "IBVERBS_1.8", 28,
                FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_INT),
                "memory registered with ibv_reg_mr; optional access flags (RELAXED_ORDERING) refused");

        private final String symbol;
        private final String symbolVersion;
        private final int sinceRdmaCore;
        private final FunctionDescriptor descriptor;
        private final String fallback;

        Newer(String symbol, String symbolVersion, int sinceRdmaCore, FunctionDescriptor descriptor, String fallback) {
            this.symbol = symbol;
            this.symbolVersion = symbolVersion;
            this.sinceRdmaCore = sinceRdmaCore;
            this.descriptor = descriptor;
            this.fallback = fallback;
        }

        /** {@return the exported name, e.g. {@code _ibv_query_gid_table}} */
        public String symbol() {
            return symbol;
        }

        /** {@return the symbol version that brought it, e.g. {@code IBVERBS_1.11}} */
        public String symbolVersion() {
            return symbolVersion;
        }

        /** {@return the first rdma-core release that exports it} */
        public int sinceRdmaCore() {
            return sinceRdmaCore;
        }

        /** {@return what the facade does on a library without it} */
        public String fallback() {
            return fallback;
        }
    }

    /** {@code libibverbs.so.1.<abi>.<rdma-core version>}, as rdma-core's build names the library (since its first release). */
    private static final Pattern RDMA_CORE_FILE = Pattern.compile("libibverbs\\.so\\.1\\.\\d+\\.(\\d+(?:\\.\\d+)*)");

    private static volatile VerbsSymbols system;

    private final Map<Newer, MethodHandle> handles;
    private final Path libraryFile;
    private final String version;

    private VerbsSymbols(Map<Newer, MethodHandle> handles, Path libraryFile) {
        this.handles = handles;
        this.libraryFile = libraryFile;
        this.version = libraryFile == null ? null : rdmaCoreVersion(libraryFile.getFileName().toString());
    }

    /**
     * The table of the libibverbs this process loads by soname, resolved on the first call (and logged: at INFO when
     * a fallback is in use, else at DEBUG).
     *
     * @throws IllegalArgumentException if {@code libibverbs.so.1} cannot be loaded: ask
     *                                  {@link NativeLibrary#ibverbsProblem()} first
     */
    public static VerbsSymbols system() {
        VerbsSymbols resolved = system;
        if (resolved == null) {
            synchronized (VerbsSymbols.class) {
                resolved = system;
                if (resolved == null) {
                    SymbolLookup library = SymbolLookup.libraryLookup(NativeLibrary.IBVERBS, Arena.global());
                    Path file = library.find("ibv_get_device_list").map(NativeLibrary::fileOf).orElse(null);
                    resolved = resolve(library, file);
                    System.Logger.Level level = resolved.missing().isEmpty() ? System.Logger.Level.DEBUG
                            : System.Logger.Level.INFO;
                    if (ControlEvents.VERBS.isLoggable(level)) {
                        ControlEvents.VERBS.log(level, "libibverbs: {0}{1}", resolved.describe(),
                                resolved.missing().isEmpty() ? "" : "; fallbacks: " + String.join("; ", resolved.fallbacks()));
                    }
                    system = resolved;
                }
            }
        }
        return resolved;
    }

    /**
     * The table of the functions {@code lookup} finds. Production code uses {@link #system()}; a lookup that hides
     * names shows what the facade does on an older library.
     *
     * @param lookup      where to find the functions, e.g. a {@link SymbolLookup#libraryLookup} of libibverbs
     * @param libraryFile the library file those functions come from (it names the rdma-core version), or null
     */
    public static VerbsSymbols resolve(SymbolLookup lookup, Path libraryFile) {
        Map<Newer, MethodHandle> handles = new EnumMap<>(Newer.class);
        for (Newer newer : Newer.values()) {
            lookup.find(newer.symbol).ifPresent(
                    (MemorySegment address) -> handles.put(newer, CallState.capturingErrno(address, newer.descriptor)));
        }
        return new VerbsSymbols(handles, libraryFile);
    }

    /**
     * The downcall handle of {@code newer}, taking a {@link CallState} buffer first; null when the library lacks it.
     */
    public MethodHandle handle(Newer newer) {
        return handles.get(newer);
    }

    /** {@return the functions of {@link Newer} this library lacks, in declaration order} */
    public List<Newer> missing() {
        List<Newer> missing = new ArrayList<>();
        for (Newer newer : Newer.values()) {
            if (!handles.containsKey(newer)) {
                missing.add(newer);
            }
        }
        return List.copyOf(missing);
    }

    /** {@return for each function this library lacks, one line: the function, its version and what is done instead} */
    public List<String> fallbacks() {
        return missing().stream().map(newer -> "no " + newer.symbol + " (" + newer.symbolVersion + ", rdma-core "
                + newer.sinceRdmaCore + "): " + newer.fallback).toList();
    }

    /** {@return the libibverbs file (real path) the functions come from, or null if unknown} */
    public Path libraryFile() {
        return libraryFile;
    }

    /** {@return rdma-core's version as the library's file name gives it, e.g. {@code 44.0}; null if it gives none} */
    public String version() {
        return version;
    }

    /**
     * What this library is, for messages: {@code rdma-core 22.4 (/usr/lib64/libibverbs.so.1.5.22.4)}; without a
     * version in the file name, the range the present functions imply.
     */
    public String describe() {
        String where = libraryFile == null ? "libibverbs.so.1" : libraryFile.toString();
        if (version != null) {
            return "rdma-core " + version + " (" + where + ")";
        }
        String range;
        if (handles.containsKey(Newer.QUERY_GID_TABLE)) {
            range = "32 or later";
        } else if (handles.containsKey(Newer.REG_MR_IOVA2)) {
            range = "28 to 31";
        } else {
            range = "before 28";
        }
        return "rdma-core of unknown version, by its functions " + range + " (" + where + ")";
    }

    /**
     * Why {@code feature} cannot be had here, for an {@code UnsupportedVerbException}'s "lacking" part: one line naming
     * the function, its symbol version, the first rdma-core with it and this library.
     */
    public String lacking(Newer newer, String feature) {
        return feature + " needs " + newer.symbol + " (" + newer.symbolVersion + ", rdma-core " + newer.sinceRdmaCore
                + " or later), which this libibverbs lacks: " + describe();
    }

    /** What to install to get {@code newer}: the "remedy" part that goes with {@link #lacking}. */
    public static String upgrade(Newer newer) {
        return "upgrade rdma-core to " + newer.sinceRdmaCore + " or later (" + NativeLibrary.upgradeHint() + ")";
    }

    /**
     * rdma-core's version in a libibverbs file name: {@code libibverbs.so.1.14.44.0} gives {@code 44.0},
     * {@code libibverbs.so.1.1.17.1} gives {@code 17.1}, {@code libibverbs.so.1.0.13} gives {@code 13}; null for any
     * other name, such as libibverbs 1.x's from before rdma-core, {@code libibverbs.so.1.0.0} (rdma-core began at 12).
     */
    static String rdmaCoreVersion(String fileName) {
        Matcher m = RDMA_CORE_FILE.matcher(fileName);
        if (!m.matches()) {
            return null;
        }
        String version = m.group(1);
        int dot = version.indexOf('.');
        String major = dot < 0 ? version : version.substring(0, dot);
        return major.length() < 6 && Integer.parseInt(major) >= 12 ? version : null;
    }
}
