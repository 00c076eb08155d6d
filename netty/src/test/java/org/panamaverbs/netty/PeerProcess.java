package org.panamaverbs.netty;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A peer in a process of its own: a Java main class of the test class path, or a C program (rstream, curl
 * under LD_PRELOAD). Its output is echoed with the pid and kept for {@link #awaitLine}; closing it closes its
 * standard input (the Java peers exit then) and kills it if it is still there after a few seconds.
 */
final class PeerProcess implements AutoCloseable {
    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private final Thread reader;

    private PeerProcess(ProcessBuilder builder) throws IOException {
        this.process = builder.redirectErrorStream(true).start();
        this.reader = Thread.ofPlatform().daemon().start(this::read);
    }

    /**
     * {@link Peers} with {@code args} in a new JVM (C1 and the serial GC: quick to start under emulation; or
     * {@code panamaverbs.test.peerJvmOptions}, which the guest's tiers set to run it interpreted).
     */
    static PeerProcess java(String... args) throws IOException {
        return java(List.of(), args);
    }

    /** {@link Peers} with extra JVM options. */
    static PeerProcess java(List<String> jvmOptions, String... args) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // the guest's tiers put the jars of the peers' AOT cache first (scripts/lib/aot-cache.sh)
        String classPath = System.getProperty("panamaverbs.test.peerClassPathPrefix", "")
                + System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED"));
        command.addAll(List.of(System.getProperty("panamaverbs.test.peerJvmOptions",
                "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC").trim().split(" +")));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classPath, Peers.class.getName()));
        command.addAll(List.of(args));
        return new PeerProcess(new ProcessBuilder(command));
    }

    /** A native program with extra environment variables. */
    static PeerProcess program(Map<String, String> environment, String... command) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(environment);
        return new PeerProcess(builder);
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
            // the process ended
        }
    }

    /** Waits for a line starting with {@code prefix}; fails if the process ends or {@code seconds} pass first. */
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

    /** Waits for the end (failing after {@code seconds}) and returns the exit code. */
    int awaitExit(long seconds) throws InterruptedException {
        assertTrue(process.waitFor(seconds, TimeUnit.SECONDS), "ended within " + seconds + " s: " + output());
        reader.join(TimeUnit.SECONDS.toMillis(10));
        return process.exitValue();
    }

    /** Writes a line to the process's standard input (a command for {@link Peers}). */
    void send(String line) throws IOException {
        process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().flush();
    }

    /** Whether it runs and where it waits (from /proc), and its output, for failure messages. */
    String describe() {
        String state = "ended";
        if (process.isAlive()) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
                String wchan = Files.readString(Path.of("/proc", Long.toString(process.pid()), "wchan"));
                state = "running: " + stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) + ", waiting in "
                        + wchan;
            } catch (IOException e) {
                state = "running (" + e + ")";
            }
        }
        return state + ", output " + output();
    }

    List<String> output() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    long pid() {
        return process.pid();
    }

    /** Open file descriptors of the process (from /proc). */
    long openFiles() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(process.pid()), "fd"))) {
            return fds.count();
        }
    }

    /** Threads of the process (from /proc). */
    long threads() throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(process.pid()), "task"))) {
            return tasks.count();
        }
    }

    /** SIGKILL, as a crash. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // already gone
        }
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            kill();
        }
    }
}
