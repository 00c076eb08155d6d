package com.ibm.disni.programs;

import static com.ibm.disni.DeviceUnderTest.host;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.ibm.disni.DeviceUnderTest;
import java.net.InetAddress;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.panamaverbs.junit.RequiresRdmaDevice;

/**
 * Connection faults for a DiSNI program (src/test/programs/FaultProgram.java, compiled against disni-2.1.jar)
 * running on this module in its own JVM: where DiSNI 2.1 waits forever in {@code connect()}, each fault must
 * end in an {@code IOException} naming the CM event within a bound, a killed peer must show as a failed
 * completion or an error, and repeating the faults must leave no RDMA file descriptor and no thread behind.
 */
@RequiresRdmaDevice
class FaultsDeviceTest {
    private static final long SECONDS = 240;
    /** The device (and address) the project's JUnit kit chose. */
    @BeforeAll
    static void chosenDevice(InetAddress address) {
        DeviceUnderTest.use(address);
    }

    /** Each failed connect, one by one; rdma_resolve_addr's own timeout is 2 s. */
    private static final long CONNECT_BOUND_MS = 30_000;
    private static final Pattern FAILURE = Pattern.compile(".* cycle \\d+: connect failed after (\\d+) ms: (.*)");

    @Test
    void failedConnectsEndInBoundedIOExceptionsAndLeakNothing() throws Exception {
        // no listener on the port; an address with no route from this host (TEST-NET-1, RFC 5737)
        try (ProgramProcess client = ProgramProcess.start("FaultProgram", "connect", "3", host() + ":19890",
                "192.0.2.1:19890")) {
            client.assertSucceeds(SECONDS);
            List<String> failures = client.output().stream().filter(l -> l.matches(".* cycle \\d+: .*")).toList();
            assertTrue(failures.size() == 6, "six failed connects: " + client.output());
            for (String line : failures) {
                Matcher m = FAILURE.matcher(line);
                assertTrue(m.matches(), line);
                assertTrue(Long.parseLong(m.group(1)) < CONNECT_BOUND_MS, line);
                String expected = line.startsWith("/192.0.2.1") ? "ADDR_ERROR|UNREACHABLE|ROUTE_ERROR|unreachable"
                        : "REJECTED";
                assertTrue(Pattern.compile(expected).matcher(m.group(2)).find(), line + " names " + expected);
            }
            assertTrue(client.line("leak check:").endsWith("nothing leaked"), client.line("leak check:"));
        }
    }

    @Test
    void killedPeerIsDetectedClosedAndLeavesNothing() throws Exception {
        try (ProgramProcess server = ProgramProcess.start("FaultProgram", "server", host(), "19891")) {
            server.awaitLine("listening on", SECONDS);
            try (ProgramProcess client = ProgramProcess.start("FaultProgram", "peer", host(), "19891", "19892")) {
                client.awaitLine("connected", SECONDS);
                server.awaitLine("accepted", SECONDS);
                server.kill();
                client.assertSucceeds(SECONDS);
                assertTrue(client.line("peer loss ").startsWith("peer loss detected: "), client.output().toString());
                assertTrue(client.line("closed in ").matches("closed in \\d+ ms"), client.line("closed in "));
                assertTrue(client.line("leak check:").endsWith("nothing leaked"), client.line("leak check:"));
            }
        }
    }
}
