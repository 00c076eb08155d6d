package org.panamaverbs.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;

/**
 * Whether a runtime library can be loaded, asked before any generated class is touched: the generated
 * header classes look their library up in a static initializer, and a missing library there would
 * surface as an {@code ExceptionInInitializerError} instead of a message a user can act on.
 */
public final class NativeLibrary {
    /** The verbs runtime library (Debian/Ubuntu package {@code libibverbs1}); no -dev package needed. */
    public static final String IBVERBS = "libibverbs.so.1";
    /** The RDMA connection manager runtime library (package {@code librdmacm1}). */
    public static final String RDMACM = "librdmacm.so.1";

    private static volatile String ibverbsProblem;
    private static volatile boolean ibverbsProbed;

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

    /** The message for a library that is missing, with how to install it. */
    public static String missingMessage(String soname, String problem) {
        String packages = soname.startsWith("librdmacm")
                ? "Debian/Ubuntu: apt-get install librdmacm1; RHEL/Fedora: dnf install librdmacm"
                : "Debian/Ubuntu: apt-get install libibverbs1 ibverbs-providers; RHEL/Fedora: dnf install libibverbs";
        return soname + " could not be loaded (" + problem + "). Install rdma-core's user-space library and the provider"
                + " for your device (" + packages + ").";
    }
}
