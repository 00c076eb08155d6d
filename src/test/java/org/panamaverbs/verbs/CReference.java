package org.panamaverbs.verbs;


import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs src/test/c/verbs_reference.c, compiled once per test run with gcc against the real verbs.h, to
 * get the bytes C would produce. Needs gcc and libibverbs-dev (scripts/setup installs both); without
 * them the tests that use it are skipped, or failed under {@code panamaverbs.requireTools} ({@link RequiredTools}).
 */
final class CReference {
    private static final Path SOURCE = Path.of("src/test/c/verbs_reference.c");
    private static final Path BINARY = Path.of("target/verbs_reference");
    private static boolean built;

    private CReference() {
    }

    static synchronized void ensureBuilt() throws IOException, InterruptedException {
        if (built) {
            return;
        }
        // a missing gcc or header skips the test (fails it in CI); a compile failure always fails it
        RequiredTools.gccWithRdmaHeaders();
        Gcc.compile(SOURCE, BINARY, 60, "-O0", "-Wall");
        built = true;
    }

    /** The bytes the reference program prints for {@code args}. */
    static byte[] bytes(Object... args) throws IOException, InterruptedException {
        return HexFormat.of().parseHex(lines(args).getFirst());
    }

    static List<String> lines(Object... args) throws IOException, InterruptedException {
        ensureBuilt();
        List<String> command = new ArrayList<>();
        command.add(BINARY.toString());
        for (Object a : args) {
            command.add(a instanceof Long l ? "0x" + Long.toHexString(l) : String.valueOf(a));
        }
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("reference program failed for " + command + ": " + out);
        }
        return out.lines().toList();
    }
}
