package com.ibm.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A DiSNI-style program (src/test/programs/PingPongProgram.java: passive endpoints, SEND/RECV) compiled against
 * the published disni-2.1.jar, not against this module, then run against this module as two JVMs, server and
 * client, on a real device: the binary compatibility that matters, shown end to end. Checks both exit codes and
 * the bytes each side received.
 */
@Tag("device")
class TwoJvmProgramTest {
    private static final Path REFERENCE_JAR = Path.of("target/disni-reference/disni-2.1.jar");
    private static final Path PROGRAM = Path.of("src/test/programs/PingPongProgram.java");
    private static final Path COMPILED = Path.of("target/programs");
    private static final long PROCESS_SECONDS = 120;

    private static String host() {
        String address = System.getenv("RDMA_TEST_ADDRESS");
        return address == null || address.isEmpty() ? "10.250.0.1" : address;
    }

    @Test
    void programCompiledAgainstDisni21RunsAsServerAndClientInTwoJvms() throws Exception {
        assertTrue(Files.isRegularFile(REFERENCE_JAR), REFERENCE_JAR + " (Maven copies it before the tests)");
        Files.createDirectories(COMPILED);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertEquals(0, javac.run(null, null, null, "--release", "22", "-cp", REFERENCE_JAR.toString(),
                "-d", COMPILED.toString(), PROGRAM.toString()), "the program compiles against disni-2.1.jar");

        // this module's classes and its dependencies, never disni-2.1.jar
        String testClassPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String classPath = COMPILED.toAbsolutePath() + File.pathSeparator + testClassPath;
        assertTrue(!classPath.contains("disni-2.1.jar"), "the 2.1 jar is not on the run's class path");
        String port = "19884";
        Process server = start(classPath, "server", host(), port);
        List<String> serverOut = new ArrayList<>();
        CompletableFuture<Void> serverReader = CompletableFuture.runAsync(() -> readLines(server, serverOut));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PROCESS_SECONDS);
        while (!contains(serverOut, "listening on") && server.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(contains(serverOut, "listening on"), "the server listens: " + serverOut);
        String message = "ping from another JVM, " + ProcessHandle.current().pid();
        Process client = start(classPath, "client", host(), port, message);
        List<String> clientOut = new ArrayList<>();
        CompletableFuture<Void> clientReader = CompletableFuture.runAsync(() -> readLines(client, clientOut));
        try {
            assertTrue(client.waitFor(PROCESS_SECONDS, TimeUnit.SECONDS), "the client finished: " + clientOut);
            assertTrue(server.waitFor(PROCESS_SECONDS, TimeUnit.SECONDS), "the server finished: " + serverOut);
            clientReader.get(10, TimeUnit.SECONDS);
            serverReader.get(10, TimeUnit.SECONDS);
            assertEquals(0, client.exitValue(), "client exit code; output: " + clientOut);
            assertEquals(0, server.exitValue(), "server exit code; output: " + serverOut);
            assertTrue(serverOut.contains("server received: " + message), "server output: " + serverOut);
            assertTrue(clientOut.contains("client received: pong: " + message), "client output: " + clientOut);
            assertTrue(clientOut.contains("done") && serverOut.contains("done"), clientOut + " / " + serverOut);
        } finally {
            client.destroyForcibly();
            server.destroyForcibly();
        }
    }

    private static Process start(String classPath, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", classPath, "PingPongProgram"));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    private static void readLines(Process process, List<String> lines) {
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = reader.readLine()) != null; ) {
                System.out.println("[" + process.pid() + "] " + line);
                synchronized (lines) {
                    lines.add(line);
                }
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    private static boolean contains(List<String> lines, String prefix) {
        synchronized (lines) {
            return lines.stream().anyMatch(l -> l.startsWith(prefix));
        }
    }
}
