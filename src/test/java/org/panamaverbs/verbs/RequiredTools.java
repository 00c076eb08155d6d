package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Assumptions;
import org.panamaverbs.internal.NativeLibrary;

/**
 * What some unit tests need beyond a JDK: gcc with rdma-core's headers (the C reference programs), the aarch64 cross
 * compiler and qemu-user (the aarch64 layouts), rdma-core's libibverbs itself. Without one, a test is skipped with an
 * assumption naming what is missing and where to get it, so that {@code mvn install} passes on any machine with
 * JDK 22+; with {@code -Dpanamaverbs.requireTools=true} (or {@code PANAMA_VERBS_REQUIRE_TOOLS=true} in the
 * environment), which the project's CI sets (scripts/test-all), it fails instead, so CI never loses a test to a
 * missing tool.
 */
final class RequiredTools {
    /** The system property that turns a missing tool into a failure. */
    static final String PROPERTY = "panamaverbs.requireTools";

    private RequiredTools() {
    }

    /** Whether a missing tool fails the test rather than skipping it. */
    static boolean required() {
        return Boolean.parseBoolean(System.getProperty(PROPERTY))
                || Boolean.parseBoolean(System.getenv("PANAMA_VERBS_REQUIRE_TOOLS"));
    }

    /** gcc on PATH and the verbs and rdma_cm headers: what the C reference programs compile with. */
    static void gccWithRdmaHeaders() {
        require(onPath("gcc"), "gcc is not installed (Debian/Ubuntu: gcc; RHEL: gcc; scripts/setup installs it)");
        require(Files.exists(Path.of("/usr/include/infiniband/verbs.h")) && Files.exists(Path.of("/usr/include/rdma/rdma_cma.h")),
                "rdma-core's headers infiniband/verbs.h and rdma/rdma_cma.h are not installed (Debian/Ubuntu: libibverbs-dev"
                        + " librdmacm-dev; RHEL: rdma-core-devel; scripts/setup installs them)");
    }

    /** The host's gcc compiles for, and runs, x86_64: true only on an amd64 JVM. */
    static void amd64Host() {
        require("amd64".equals(System.getProperty("os.arch")), "the x86_64 half compiles with the host's gcc and runs"
                + " natively, so it needs an x86_64 (amd64) host; this JVM runs on " + System.getProperty("os.arch"));
    }

    /** A tool on PATH, named with the package that has it. */
    static void tool(String command, String packages) {
        require(onPath(command), command + " is not installed (Debian/Ubuntu: " + packages + "; scripts/setup installs it)");
    }

    /** rdma-core's libibverbs loads by its soname (it need not find a device). */
    static void libibverbs() {
        String problem = NativeLibrary.ibverbsProblem();
        require(problem == null, problem == null ? "" : NativeLibrary.missingMessage(NativeLibrary.IBVERBS, problem));
    }

    /** Skips the test with {@code missing} as the reason, or fails it under {@link #PROPERTY}. */
    static void require(boolean present, String missing) {
        if (present) {
            return;
        }
        if (required()) {
            fail(missing + " (" + PROPERTY + "=true: a missing tool fails the test instead of skipping it)");
        }
        Assumptions.abort(missing);
    }

    static boolean onPath(String command) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }
}
