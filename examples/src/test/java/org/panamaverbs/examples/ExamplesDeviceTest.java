package org.panamaverbs.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.panamaverbs.junit.RequiresRdmaDevice;
import org.panamaverbs.verbs.RdmaDevice;

/**
 * Runs every example program on a real RDMA device, each in a JVM of its own as a user would start it (client
 * and server as two JVMs), and compares its standard output with {@code expected/*.txt}, the output the
 * documentation shows. The device and, for the rdma_cm examples, its IP address come from the project's JUnit kit
 * ({@code RDMA_TEST_DEVICE}, {@code RDMA_TEST_ADDRESS}; without an address those tests are skipped, or fail with
 * {@code -Dpanamaverbs.requireDevice=true}).
 */
@RequiresRdmaDevice
class ExamplesDeviceTest {
    /** A program under emulation starts in seconds and runs in a few more; this bounds a hung one. */
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(3);

    private static String device;

    @BeforeAll
    static void chooseDevice(RdmaDevice chosen) {
        device = chosen.name();
    }

    private static void assertOutput(String expectedName, ProgramRun run) throws Exception {
        ExpectedOutput expected = ExpectedOutput.of(expectedName);
        String output = run.finish(RUN_TIMEOUT);
        assertTrue(expected.matches(output, device), "output differs from " + expected + run.describe());
    }

    /**
     * On the module path, as module org.panamaverbs.examples requiring org.panamaverbs (README's module-path
     * command); the other programs run on the class path. One JVM start costs seconds under emulation, so the
     * first program runs once.
     */
    @Test
    void firstProgramWritesWithImmediateOnTheModulePathAndPrintsWhatReadmeShows() throws Exception {
        List<Path> modulePath = new ArrayList<>(List.of(Path.of(FirstProgram.class.getProtectionDomain().getCodeSource().getLocation().toURI())));
        modulePath.add(libraryOnClassPath());
        try (ProgramRun run = ProgramRun.onModulePath(FirstProgram.class, modulePath, device)) {
            assertOutput("first-program", run);
        }
    }

    @Test
    void udExchangeAnswersTheSenderFromTheGrh() throws Exception {
        try (ProgramRun run = ProgramRun.onClassPath(UdExchange.class, device)) {
            assertOutput("ud-exchange", run);
        }
    }

    @Test
    void eventDrivenCompletionReceivesOnAVirtualThread() throws Exception {
        try (ProgramRun run = ProgramRun.onClassPath(EventDrivenCompletion.class, device)) {
            assertOutput("event-driven-completion", run);
        }
    }

    @Test
    void pvrdmaRehearsalRefusesWhatHwv13Refuses() throws Exception {
        try (ProgramRun run = ProgramRun.onClassPath(PvrdmaRehearsal.class, device)) {
            assertOutput("pvrdma-rehearsal", run);
        }
    }

    @Test
    void cmEchoServerAndClientInTwoProcesses(InetAddress deviceAddress) throws Exception {
        String address = deviceAddress.getHostAddress();
        String port = Integer.toString(ThreadLocalRandom.current().nextInt(20000, 30000));
        try (ProgramRun server = ProgramRun.onClassPath(CmEcho.class, "server", address, port)) {
            server.awaitLine(line -> line.startsWith("server: listening"), RUN_TIMEOUT);
            try (ProgramRun client = ProgramRun.onClassPath(CmEcho.class, "client", address, port)) {
                assertOutput("cm-echo-client", client);
            }
            assertOutput("cm-echo-server", server);
        }
    }

    @Test
    void polledConnectionsSixteenAtOnceFromOneThreadEachSide(InetAddress deviceAddress) throws Exception {
        String address = deviceAddress.getHostAddress();
        String port = Integer.toString(ThreadLocalRandom.current().nextInt(20000, 30000));
        try (ProgramRun server = ProgramRun.onClassPath(PolledConnections.class, "server", address, port, "16")) {
            server.awaitLine(line -> line.startsWith("server: listening"), RUN_TIMEOUT);
            try (ProgramRun client = ProgramRun.onClassPath(PolledConnections.class, "client", address, port, "16")) {
                assertOutput("polled-connections-client", client);
            }
            assertOutput("polled-connections-server", server);
        }
    }

    @Test
    void tcpExchangeServerAndClientInTwoProcesses() throws Exception {
        try (ProgramRun server = ProgramRun.onClassPath(TcpExchange.class, "server", "0", device)) {
            String waiting = server.awaitLine(line -> line.startsWith("server: waiting on TCP port"), RUN_TIMEOUT);
            Matcher port = Pattern.compile("port (\\d+)$").matcher(waiting);
            assertTrue(port.find(), waiting);
            try (ProgramRun client = ProgramRun.onClassPath(TcpExchange.class, "client", "127.0.0.1", port.group(1), device)) {
                assertOutput("tcp-exchange-client", client);
            }
            assertOutput("tcp-exchange-server", server);
        }
    }

    /** The library's jar (or classes directory) on this test's class path: the entry holding Rdma.class. */
    private static Path libraryOnClassPath() throws IOException {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        for (String entry : classPath.split(File.pathSeparator)) {
            Path path = Path.of(entry);
            if (Files.isDirectory(path) ? Files.exists(path.resolve("org/panamaverbs/verbs/Rdma.class")) : holdsRdma(path)) {
                return path;
            }
        }
        throw new AssertionError("the library is not on the class path: " + classPath);
    }

    private static boolean holdsRdma(Path jar) throws IOException {
        if (!jar.toString().endsWith(".jar") || !Files.exists(jar)) {
            return false;
        }
        try (JarFile file = new JarFile(jar.toFile())) {
            return file.getEntry("org/panamaverbs/verbs/Rdma.class") != null;
        }
    }
}
