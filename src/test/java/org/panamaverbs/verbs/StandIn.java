package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The stand-in libibverbs.so.1 (and librdmacm.so.1) of the native benchmark, the C files of
 * {@code src/test/c/stand-in} (what each does: its {@code stub_provider.h}):
 * devices with no hardware behind them ("stub0", and "stub1" without the legacy data-path operations), compiled
 * here with gcc, and child JVMs that load it instead of rdma-core's because it comes first on their
 * {@code LD_LIBRARY_PATH}. A JVM maps one libibverbs for its life, so only a child can have the stand-in; the tests
 * that need a device tree without a device run their part there, through the public API, and read what it prints.
 */
final class StandIn {
    private static final Path SOURCES = Path.of("src/test/c/stand-in");
    private static final Path DIRECTORY = Path.of("target/stand-in");
    private static boolean built;

    private StandIn() {
    }

    /** Compiles the stand-in once per test JVM; a missing gcc or header skips the caller (fails it in CI). */
    static synchronized Path directory() throws IOException, InterruptedException {
        if (built) {
            return DIRECTORY.toAbsolutePath();
        }
        RequiredTools.gccWithRdmaHeaders();
        Files.createDirectories(DIRECTORY);
        Path library = DIRECTORY.resolve("libibverbs.so.1");
        List<Path> sources;
        try (var files = Files.list(SOURCES)) {
            sources = files.filter(file -> file.toString().endsWith(".c")).sorted().toList();
        }
        Gcc.compile(sources, library, 120, "-O2", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared",
                "-Wl,-soname,libibverbs.so.1");
        Path rdmacm = DIRECTORY.resolve("librdmacm.so.1");
        Files.deleteIfExists(rdmacm);
        Files.createSymbolicLink(rdmacm, library.getFileName());
        built = true;
        return DIRECTORY.toAbsolutePath();
    }

    /**
     * Runs {@code main} in a child JVM on the stand-in, with {@code jvmOptions} before the class name and {@code args}
     * after it, and returns its output (stdout and stderr), after asserting it exited with 0 within a minute.
     */
    static String run(Class<?> main, List<String> jvmOptions, String... args) throws IOException, InterruptedException {
        Path directory = directory();
        String java = ProcessHandle.current().info().command().orElse("java");
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(jvmOptions);
        command.addAll(List.of("--enable-native-access=ALL-UNNAMED", "-cp", classPath, main.getName()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        String inherited = System.getenv("LD_LIBRARY_PATH");
        builder.environment().put("LD_LIBRARY_PATH", directory + (inherited == null ? "" : ":" + inherited));
        Process child = builder.start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), output);
        assertEquals(0, child.exitValue(), output);
        return output;
    }

    /** The lines of {@code output} that start with {@code key=}, without the key. */
    static List<String> values(String output, String key) {
        return output.lines().filter(line -> line.startsWith(key + "=")).map(line -> line.substring(key.length() + 1))
                .toList();
    }

    /** The one value of {@code key} in {@code output}. */
    static String value(String output, String key) {
        List<String> values = values(output, key);
        assertEquals(1, values.size(), key + " in " + output);
        return values.getFirst();
    }
}
