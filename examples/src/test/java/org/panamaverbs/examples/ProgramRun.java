package org.panamaverbs.examples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One example program running in a JVM of its own, as a user would start it: {@code java
 * --enable-native-access=... -cp ... MainClass args} (or {@code -p ... -m ...}). Its standard output is collected
 * line by line (so a test can wait for a server's "listening" line) and compared whole at the end; standard
 * error goes into failure messages.
 */
final class ProgramRun implements AutoCloseable {
    /**
     * Options for the short-lived example JVMs: C1 only (C2 compiles cost seconds under emulation), or
     * {@code panamaverbs.test.peerJvmOptions} (the guest's tiers: interpreted).
     */
    private static final List<String> JVM_OPTIONS = List.of(System.getProperty("panamaverbs.test.peerJvmOptions",
            "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC").trim().split(" +"));

    private final String name;
    private final Process process;
    private final List<String> stdout = new ArrayList<>();
    private final StringBuilder stderr = new StringBuilder();
    private final Thread stdoutReader;
    private final Thread stderrReader;

    private ProgramRun(String name, List<String> command) throws IOException {
        this.name = name;
        this.process = new ProcessBuilder(command).start();
        process.getOutputStream().close();
        stdoutReader = Thread.ofVirtual().start(() -> read(process.getInputStream(), line -> {
            synchronized (stdout) {
                stdout.add(line);
                stdout.notifyAll();
            }
        }));
        stderrReader = Thread.ofVirtual().start(() -> read(process.getErrorStream(), line -> {
            synchronized (stderr) {
                stderr.append(line).append('\n');
            }
        }));
    }

    /** Starts {@code mainClass} of this module on the class path (the test JVM's, which holds the library). */
    static ProgramRun onClassPath(Class<?> mainClass, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(java(), "--enable-native-access=ALL-UNNAMED"));
        command.addAll(JVM_OPTIONS);
        // the guest's tiers put the jars of the peers' AOT cache first (scripts/lib/aot-cache.sh)
        command.addAll(List.of("-cp", System.getProperty("panamaverbs.test.peerClassPathPrefix", "")
                + System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")), mainClass.getName()));
        command.addAll(List.of(args));
        return new ProgramRun(mainClass.getSimpleName() + " " + String.join(" ", args), command);
    }

    /** Starts {@code mainClass} as module org.panamaverbs.examples, with the library's module beside it. */
    static ProgramRun onModulePath(Class<?> mainClass, List<Path> modulePath, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(java(), "--enable-native-access=org.panamaverbs"));
        // the guest's AOT cache is for class-path starts: on the module path the JVM would refuse it in the output
        command.addAll(JVM_OPTIONS.stream().filter(option -> !option.startsWith("-XX:AOTCache=")).toList());
        StringBuilder path = new StringBuilder();
        for (Path entry : modulePath) {
            path.append(path.isEmpty() ? "" : java.io.File.pathSeparator).append(entry);
        }
        // the tests themselves run on the class path, so the module's name is spelled out
        command.addAll(List.of("-p", path.toString(), "-m", "org.panamaverbs.examples/" + mainClass.getName()));
        command.addAll(List.of(args));
        return new ProgramRun(mainClass.getSimpleName() + " (module path) " + String.join(" ", args), command);
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static void read(InputStream in, java.util.function.Consumer<String> sink) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line; (line = reader.readLine()) != null; ) {
                sink.accept(line);
            }
        } catch (IOException e) {
            sink.accept("(reading the program's output failed: " + e + ")");
        }
    }

    /** Waits until a line of standard output satisfies {@code wanted}, and returns it. */
    String awaitLine(Predicate<String> wanted, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (stdout) {
            for (int seen = 0; ; ) {
                for (; seen < stdout.size(); seen++) {
                    if (wanted.test(stdout.get(seen))) {
                        return stdout.get(seen);
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || !process.isAlive() && !stdoutReader.isAlive()) {
                    throw new AssertionError(name + ": the awaited line did not come within " + timeout + describe());
                }
                TimeUnit.NANOSECONDS.timedWait(stdout, Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)));
            }
        }
    }

    /** Waits for the program to exit (killing it after {@code timeout}) and returns its standard output. */
    String finish(Duration timeout) throws InterruptedException {
        boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!exited) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        stdoutReader.join(Duration.ofSeconds(10));
        stderrReader.join(Duration.ofSeconds(10));
        if (!exited) {
            throw new AssertionError(name + ": still running after " + timeout + ", killed" + describe());
        }
        if (process.exitValue() != 0) {
            throw new AssertionError(name + ": exit code " + process.exitValue() + describe());
        }
        return output();
    }

    String output() {
        synchronized (stdout) {
            return stdout.isEmpty() ? "" : String.join("\n", stdout) + "\n";
        }
    }

    /** The program's output for a failure message. */
    String describe() {
        String err;
        synchronized (stderr) {
            err = stderr.toString();
        }
        return "\n--- " + name + ": standard output ---\n" + output() + "--- standard error ---\n" + err;
    }

    /** Kills the program if it is still running (a test that failed before {@link #finish}). */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
