package org.panamaverbs.verbs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The host's gcc for the tests' C programs (the reference encoder, the MAD multiplexer, the stand-in provider):
 * one way to run it and to report its failure with what it printed. Callers check for gcc first
 * ({@link RequiredTools}), so a missing compiler is a skip or, under {@code panamaverbs.requireTools}, a failure.
 */
final class Gcc {
    private Gcc() {
    }

    /**
     * Compiles {@code source} into {@code output} with {@code flags}.
     *
     * @throws AssertionError if gcc fails, naming the source and with gcc's output, or if it runs past the bound
     */
    static void compile(Path source, Path output, int timeoutSeconds, String... flags)
            throws IOException, InterruptedException {
        compile(List.of(source), output, timeoutSeconds, flags);
    }

    /**
     * Compiles and links {@code sources} into {@code output} with {@code flags}.
     *
     * @throws AssertionError if gcc fails, naming the sources and with gcc's output, or if it runs past the bound
     */
    static void compile(List<Path> sources, Path output, int timeoutSeconds, String... flags)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("gcc"));
        command.addAll(List.of(flags));
        command.addAll(List.of("-o", output.toString()));
        sources.forEach(source -> command.add(source.toString()));
        Process gcc = new ProcessBuilder(command).redirectErrorStream(true).start();
        String printed = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!gcc.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            gcc.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not end within " + timeoutSeconds + " s: " + printed);
        }
        if (gcc.exitValue() != 0) {
            throw new AssertionError("gcc failed on " + sources + ": " + printed);
        }
    }
}
