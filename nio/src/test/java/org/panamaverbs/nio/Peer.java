package org.panamaverbs.nio;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

/**
 * A peer process: {@link NioEcho} in a JVM of its own, on the provider named by the system property alone, or a C
 * program ({@code rstream}). Its lines are echoed with its pid and kept; closing it closes its standard input and
 * kills it if it is still there.
 */
final class Peer implements AutoCloseable {
    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private final Thread reader;

    private Peer(List<String> command) throws IOException {
        this(command, java.util.Map.of());
    }

    private Peer(List<String> command, java.util.Map<String, String> environment) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(environment);
        process = builder.start();
        reader = Thread.ofPlatform().daemon().start(() -> {
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
        });
    }

    /**
     * {@link NioEcho} with {@code args} in a new JVM whose only change is the system property naming
     * {@link RsocketSelectorProvider} (and native access); interpreted under {@code panamaverbs.test.peerJvmOptions}.
     */
    static Peer nioEcho(String... args) throws IOException {
        return java(NioEcho.class, args);
    }

    /** {@link NioEcho} as {@link #nioEcho}, with the provider's fallback to TCP on (its default). */
    static Peer nioEchoWithFallback(String... args) throws IOException {
        return java(true, NioEcho.class, args);
    }

    /**
     * {@code main} of the test class path in a new JVM, on this provider by the system property alone; the fallback
     * to TCP refused, so that what is meant for RDMA cannot pass over TCP.
     */
    static Peer java(Class<?> main, String... args) throws IOException {
        return java(false, main, args);
    }

    private static Peer java(boolean tcpFallback, Class<?> main, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "--enable-native-access=ALL-UNNAMED"));
        command.addAll(List.of(System.getProperty("panamaverbs.test.peerJvmOptions",
                "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC").trim().split(" +")));
        command.add("-Djava.nio.channels.spi.SelectorProvider=" + RsocketSelectorProvider.class.getName());
        command.add("-D" + RsocketSelectorProvider.FALLBACK_PROPERTY + "=" + (tcpFallback ? "tcp" : "refuse"));
        // the guest's tiers put the jars of the peers' AOT cache first (scripts/lib/aot-cache.sh)
        command.addAll(List.of("-cp", System.getProperty("panamaverbs.test.peerClassPathPrefix", "")
                + System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")), main.getName()));
        command.addAll(List.of(args));
        return new Peer(command);
    }

    /** A C program, found on PATH or in /usr/bin; the test is skipped (failed under requireTools) without it. */
    static Peer program(String name, String... args) throws IOException {
        return program(java.util.Map.of(), name, args);
    }

    /** A C program with extra environment variables ({@code LD_PRELOAD}). */
    static Peer program(java.util.Map<String, String> environment, String name, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("stdbuf", "-oL", tool(name)));
        command.addAll(List.of(args));
        return new Peer(command, environment);
    }

    static String tool(String name) {
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
        dirs.addAll(List.of("/usr/bin", "/usr/local/bin"));
        for (String dir : dirs) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                return dir + "/" + name;
            }
        }
        return missing(name + " is not installed (Debian: apt-get install rdmacm-utils curl)");
    }

    /** librspreload.so, rsocket's preload library for unchanged C socket programs. */
    static String preloadLibrary() {
        for (String path : List.of("/usr/lib/x86_64-linux-gnu/rsocket/librspreload.so",
                "/usr/lib/aarch64-linux-gnu/rsocket/librspreload.so", "/usr/lib64/rsocket/librspreload.so",
                "/usr/lib/rsocket/librspreload.so")) {
            if (Files.exists(Path.of(path))) {
                return path;
            }
        }
        return missing("librspreload.so is not installed (Debian: librdmacm1, its rsocket/ directory)");
    }

    /** Skips the test naming what is missing, or fails it under requireTools or requireDevice. */
    private static String missing(String missing) {
        assertTrue(!Boolean.getBoolean("panamaverbs.requireTools") && !Boolean.getBoolean("panamaverbs.requireDevice"),
                missing + " (requireTools or requireDevice is set, so the test may not be skipped)");
        Assumptions.abort(missing);
        return null;
    }

    /** The first line starting with {@code prefix}; fails if the process ends or {@code seconds} pass first. */
    String awaitLine(String prefix, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        synchronized (lines) {
            for (;;) {
                for (String line : lines) {
                    if (line.startsWith(prefix)) {
                        return line;
                    }
                }
                long left = deadline - System.nanoTime();
                assertTrue(left > 0 && (process.isAlive() || reader.isAlive()), "no line starting with \"" + prefix
                        + "\" within " + seconds + " s: " + lines);
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

    /** Kills the process (SIGKILL), as a crash would end it, and waits for it to go. */
    void kill() throws InterruptedException {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }

    List<String> output() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    @Override
    public void close() throws Exception {
        process.getOutputStream().close();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
