package com.ibm.disni.programs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * One JVM running a program of src/test/programs: the programs are compiled once against the published
 * disni-2.1.jar (never against this module) and run with this module's classes and dependencies on the class
 * path, without the 2.1 jar, the way a user swaps the jar. The output is collected line by line and echoed with
 * the process id.
 */
final class ProgramProcess implements AutoCloseable {
    static final Path REFERENCE_JAR = Path.of("target/disni-reference/disni-2.1.jar");
    private static final Path SOURCES = Path.of("src/test/programs");
    private static final Path COMPILED = Path.of("target/programs");
    /**
     * C1 only unless {@code panamaverbs.test.peerJvmOptions} says otherwise (the guest's tiers: interpreted): the
     * programs' behaviour does not depend on the JIT, and under emulation compiling costs start-up time.
     */
    private static final List<String> JVM_FLAGS = List.of((System.getProperty("panamaverbs.test.peerJvmOptions",
            "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC") + " --enable-native-access=ALL-UNNAMED").trim().split(" +"));
    private static String classPath;

    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private final Thread reader;

    private static synchronized String classPath() throws IOException {
        if (classPath == null) {
            if (!compiledProgramsUpToDate()) {
                compilePrograms();
            }
            String testClassPath = System.getProperty("surefire.test.class.path",
                    System.getProperty("java.class.path"));
            // the guest's tiers put the jars of the peers' AOT cache first (scripts/lib/aot-cache.sh)
            String path = System.getProperty("panamaverbs.test.peerClassPathPrefix", "") + COMPILED.toAbsolutePath()
                    + File.pathSeparator + testClassPath;
            assertFalse(path.contains("disni-2.1.jar"), "the 2.1 jar is not on the programs' class path");
            classPath = path;
        }
        return classPath;
    }

    /** Compiles the programs against the 2.1 jar alone into {@code target/programs}; fails if they do not compile. */
    static void compilePrograms() throws IOException {
        assertTrue(Files.isRegularFile(REFERENCE_JAR), REFERENCE_JAR + " (Maven copies it before the tests)");
        Files.createDirectories(COMPILED);
        List<String> arguments = new ArrayList<>(List.of("--release", "22", "-cp", REFERENCE_JAR.toString(),
                "-d", COMPILED.toString()));
        sources().forEach(p -> arguments.add(p.toString()));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertEquals(0, javac.run(null, null, null, arguments.toArray(String[]::new)),
                "the programs compile against disni-2.1.jar");
    }

    /**
     * Whether every program's class is newer than its source: the unit tests compile them (ProgramsCompileTest),
     * so the device tests, which run in a guest where javac takes most of a minute, use those classes.
     */
    static boolean compiledProgramsUpToDate() throws IOException {
        for (Path source : sources()) {
            String name = source.getFileName().toString();
            Path compiled = COMPILED.resolve(name.substring(0, name.length() - ".java".length()) + ".class");
            if (!Files.isRegularFile(compiled)
                    || Files.getLastModifiedTime(compiled).compareTo(Files.getLastModifiedTime(source)) < 0) {
                return false;
            }
        }
        return true;
    }

    private static List<Path> sources() throws IOException {
        try (Stream<Path> sources = Files.list(SOURCES)) {
            return sources.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
    }

    static ProgramProcess start(String program, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_FLAGS);
        command.addAll(List.of("-cp", classPath(), program));
        command.addAll(List.of(args));
        return new ProgramProcess(new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    private ProgramProcess(Process process) {
        this.process = process;
        this.reader = Thread.ofPlatform().daemon().start(this::read);
    }

    private void read() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                System.out.println("[" + process.pid() + "] " + line);
                synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until a line starting with {@code prefix} appears; fails if the process ends or time runs out. */
    String awaitLine(String prefix, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        synchronized (lines) {
            while (true) {
                for (String line : lines) {
                    if (line.startsWith(prefix)) {
                        return line;
                    }
                }
                long left = deadline - System.nanoTime();
                assertTrue(left > 0 && (process.isAlive() || reader.isAlive()),
                        "no line starting with \"" + prefix + "\" within " + seconds + " s: " + lines);
                lines.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 200)));
            }
        }
    }

    /** Waits for the process to end (failing after {@code seconds}) and returns its exit code. */
    int awaitExit(long seconds) throws InterruptedException {
        assertTrue(process.waitFor(seconds, TimeUnit.SECONDS), "the program ended within " + seconds + " s: "
                + output());
        reader.join(TimeUnit.SECONDS.toMillis(10));
        return process.exitValue();
    }

    /** Asserts that the program ended with exit code 0 within {@code seconds}. */
    void assertSucceeds(long seconds) throws InterruptedException {
        assertEquals(0, awaitExit(seconds), "exit code; output: " + output());
    }

    List<String> output() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    /** The first output line starting with {@code prefix}, or a failure listing the output. */
    String line(String prefix) {
        return output().stream().filter(l -> l.startsWith(prefix)).findFirst()
                .orElseThrow(() -> new AssertionError("no line starting with \"" + prefix + "\": " + output()));
    }

    /** SIGKILL, as a crashed or killed peer. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }
}
