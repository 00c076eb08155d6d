package org.panamaverbs.internal;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Whether a runtime library can be loaded, asked before any generated class is touched: the generated
 * header classes look their library up in a static initializer, and a missing library there would
 * surface as an {@code ExceptionInInitializerError} instead of a message a user can act on. Also which file
 * the dynamic loader chose, and how to install the library on each family of distributions.
 */
public final class NativeLibrary {
    /** The verbs runtime library (Debian/Ubuntu package {@code libibverbs1}); no -dev package needed. */
    public static final String IBVERBS = "libibverbs.so.1";
    /** The RDMA connection manager runtime library (package {@code librdmacm1}). */
    public static final String RDMACM = "librdmacm.so.1";

    private static volatile String ibverbsProblem;
    private static volatile boolean ibverbsProbed;
    private static volatile String rdmacmProblem;
    private static volatile boolean rdmacmProbed;

    private NativeLibrary() {
    }

    /**
     * Tries to load {@code soname} the way the generated code will ({@code dlopen} by soname).
     *
     * @return null when it loads, otherwise why not
     */
    public static String probe(String soname) {
        try {
            SymbolLookup.libraryLookup(soname, Arena.global());
            return null;
        } catch (IllegalArgumentException | UnsatisfiedLinkError e) {
            String detail = e.getMessage();
            return detail == null ? "cannot open " + soname : detail;
        }
    }

    /** {@link #probe} for libibverbs, done once per JVM. */
    public static String ibverbsProblem() {
        if (!ibverbsProbed) {
            synchronized (NativeLibrary.class) {
                if (!ibverbsProbed) {
                    ibverbsProblem = probe(IBVERBS);
                    ibverbsProbed = true;
                }
            }
        }
        return ibverbsProblem;
    }

    /** {@link #probe} for librdmacm, done once per JVM (until it succeeds, so an install meanwhile is seen). */
    public static String rdmacmProblem() {
        if (!rdmacmProbed) {
            synchronized (NativeLibrary.class) {
                if (!rdmacmProbed) {
                    rdmacmProblem = probe(RDMACM);
                    rdmacmProbed = rdmacmProblem == null;
                }
            }
        }
        return rdmacmProblem;
    }

    /** The message for a library that is missing, with how to install it. */
    public static String missingMessage(String soname, String problem) {
        return soname + " could not be loaded (" + problem + "). Install rdma-core's user-space library and the provider"
                + " for your device (" + installHint(soname) + ").";
    }

    /**
     * How to install the package that holds {@code soname} (or, for {@link #IBVERBS}, the library with its
     * providers) on each family of distributions; package names as each family spells them.
     */
    public static String installHint(String soname) {
        if (soname.startsWith("librdmacm")) {
            return "Debian/Ubuntu: apt-get install librdmacm1 (librdmacm1t64 on Debian 13 and Ubuntu 24.04 or later);"
                    + " RHEL/CentOS/Oracle Linux/Fedora: dnf install librdmacm (yum on release 7); SLES: zypper install librdmacm1";
        }
        return "Debian/Ubuntu: apt-get install libibverbs1 ibverbs-providers; RHEL/CentOS/Oracle Linux/Fedora:"
                + " dnf install rdma-core libibverbs (yum on release 7); SLES: zypper install rdma-core libibverbs1";
    }

    /**
     * How to get a newer rdma-core: the distribution's update, since rdma-core's libraries come only as packages
     * of the distribution (or a build of rdma-core's own sources).
     */
    public static String upgradeHint() {
        return "Debian/Ubuntu: apt-get install --only-upgrade libibverbs1 ibverbs-providers; RHEL/CentOS/Oracle Linux:"
                + " dnf upgrade rdma-core libibverbs (yum on release 7); SLES: zypper update rdma-core libibverbs1;"
                + " or a newer distribution release";
    }

    /**
     * The file the dynamic loader mapped {@code address} from, as the kernel lists it in {@code /proc/self/maps}:
     * the real file, with symbolic links such as {@code libibverbs.so.1} resolved.
     *
     * @param address an address inside a loaded library, e.g. one of its functions
     * @return the file, or null when {@code /proc/self/maps} cannot be read or has no file mapping at that address
     */
    public static Path fileOf(MemorySegment address) {
        try {
            return fileOf(address.address(), Files.readAllLines(Path.of("/proc/self/maps")));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** {@link #fileOf(MemorySegment)} over the lines of a maps file: {@code start-end perms offset dev inode path}. */
    public static Path fileOf(long address, List<String> maps) {
        for (String line : maps) {
            String[] fields = line.trim().split("\\s+", 6);
            if (fields.length < 6 || !fields[5].startsWith("/")) {
                continue;
            }
            String[] range = fields[0].split("-");
            long start = Long.parseUnsignedLong(range[0], 16);
            long end = Long.parseUnsignedLong(range[1], 16);
            if (Long.compareUnsigned(address, start) >= 0 && Long.compareUnsigned(address, end) < 0) {
                String path = fields[5];
                return Path.of(path.endsWith(" (deleted)") ? path.substring(0, path.length() - 10) : path);
            }
        }
        return null;
    }
}
