package com.ibm.disni.programs;

import static com.ibm.disni.DeviceUnderTest.host;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.ibm.disni.DeviceUnderTest;
import java.net.InetAddress;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.panamaverbs.junit.RequiresRdmaDevice;

/**
 * DiSNI-style programs (src/test/programs), compiled against the published disni-2.1.jar, run against this
 * module as server and client JVMs on a real device: passive endpoints polling their own CQ, active endpoints
 * with CQ callbacks (DaRPC style, reused SVCs modified in place, READ, WRITE with immediate, SEND/RECV), DiSNI's
 * raw CM and verbs API, and the latency program bench/compare-disni times. Each program checks every
 * completion and byte itself and exits 1 on a mismatch; the test checks exit codes and the lines that report
 * what was verified.
 */
@RequiresRdmaDevice
class ProgramsDeviceTest {
    private static final long SECONDS = 180;

    /** The device (and address) the project's JUnit kit chose. */
    @BeforeAll
    static void chosenDevice(InetAddress address) {
        DeviceUnderTest.use(address);
    }

    @Test
    void passiveEndpointsSendAndReceive() throws Exception {
        try (ProgramProcess server = ProgramProcess.start("PingPongProgram", "server", host(), "19884")) {
            server.awaitLine("listening on", SECONDS);
            String message = "ping from another JVM, " + ProcessHandle.current().pid();
            try (ProgramProcess client = ProgramProcess.start("PingPongProgram", "client", host(), "19884", message)) {
                client.assertSucceeds(SECONDS);
                server.assertSucceeds(SECONDS);
                assertEquals("client received: pong: " + message, client.line("client received:"));
                assertEquals("server received: " + message, server.line("server received:"));
                assertEquals("done", client.line("done"));
                assertEquals("done", server.line("done"));
            }
        }
    }

    @Test
    void activeEndpointsServeRequestsInTheirCqCallbacks() throws Exception {
        try (ProgramProcess server = ProgramProcess.start("RpcProgram", "server", host(), "19885")) {
            server.awaitLine("listening on", SECONDS);
            try (ProgramProcess client = ProgramProcess.start("RpcProgram", "client", host(), "19885", "20")) {
                client.assertSucceeds(SECONDS);
                server.assertSucceeds(SECONDS);
                client.line("client: 20 round trips answered");
                client.line("client: 3 RDMA READs match the server's bytes");
                assertEquals("client: RDMA WRITE with immediate checked by the server: written 2048 bytes as sent",
                        client.line("client: RDMA WRITE"));
                // 20 responses, the verdict on the write, "bye"
                assertEquals("server answered 22 messages", server.line("server answered"));
            }
        }
    }

    @Test
    void rawCmAndVerbsApi() throws Exception {
        try (ProgramProcess server = ProgramProcess.start("RawVerbsProgram", "server", host(), "19886")) {
            server.awaitLine("listening on", SECONDS);
            try (ProgramProcess client = ProgramProcess.start("RawVerbsProgram", "client", host(), "19886")) {
                client.assertSucceeds(SECONDS);
                server.assertSucceeds(SECONDS);
                client.line("client: RDMA READ of 64 bytes matches");
                String echo = client.line("client received: ");
                assertTrue(echo.startsWith("client received: echo: raw verbs from pid "), echo);
                assertEquals("server echoed: " + echo.substring("client received: echo: ".length()),
                        server.line("server echoed: "));
            }
        }
    }

    /**
     * The pipelining pattern of DiSNI's own SendRecv benchmarks, one receive and one send slot ({@code -q 1}): the
     * client finishes with every reply's bytes checked; the server ends its loop with the one receive it posted ahead
     * still posted, which DiSNI's benchmark server then waits for forever (on DiSNI 2.1 as on the drop-in:
     * docs/guide/migrating-from-disni.md, "DiSNI's own benchmarks"). The program bounds that wait and says so.
     */
    @Test
    void sendRecvPipeliningLeavesTheServerOneReceivePostedAsInDisni() throws Exception {
        try (ProgramProcess server = ProgramProcess.start("PipelineProgram", "server", host(), "19889", "1", "200")) {
            server.awaitLine("listening on", SECONDS);
            try (ProgramProcess client = ProgramProcess.start("PipelineProgram", "client", host(), "19889", "1", "200")) {
                client.assertSucceeds(SECONDS);
                server.assertSucceeds(SECONDS);
                assertEquals("client: 200 messages, 200 replies with their bytes", client.line("client: "));
                assertEquals("server: loop ended after 200 echoes; 1 receives still posted", server.line("server: loop"));
                assertEquals("server: awaitRecvs: nothing completed for 10 s with 1 receives posted (the benchmark's"
                        + " server waits here forever)", server.line("server: awaitRecvs"));
            }
        }
    }

    @Test
    void latencyProgramTimesReadsAndRoundTrips() throws Exception {
        Pattern result = Pattern.compile("RESULT mode=(\\w+) size=32 iterations=1000 avg_us=([0-9.]+) "
                + "median_us=([0-9.]+) p99_us=([0-9.]+) p999_us=[0-9.]+ max_us=[0-9.]+ first_half_avg_us=[0-9.]+ "
                + "second_half_avg_us=[0-9.]+ alloc_bytes_per_op=[0-9.]+ gcs=\\d+ gc_ms=\\d+ jit_ms=\\d+ timed_jit_ms=\\d+ "
                + "user_us_per_op=[0-9.]+ sys_us_per_op=-?[0-9.]+");
        int port = 19887;
        for (String mode : new String[] {"read", "sendrecv"}) {
            try (ProgramProcess server = ProgramProcess.start("LatencyProgram", "server", host(), "" + port)) {
                server.awaitLine("listening on", SECONDS);
                try (ProgramProcess client = ProgramProcess.start("LatencyProgram", "client", host(), "" + port, mode,
                        "32", "1000")) {
                    client.assertSucceeds(SECONDS);
                    server.assertSucceeds(SECONDS);
                    Matcher m = result.matcher(client.line("RESULT"));
                    assertTrue(m.matches(), client.line("RESULT"));
                    assertEquals(mode, m.group(1));
                    double median = Double.parseDouble(m.group(3));
                    assertTrue(median > 0 && median <= Double.parseDouble(m.group(4)), client.line("RESULT"));
                    assertEquals("server: " + mode + " 32 1100 served", server.line("server:"));
                }
            }
            port++;
        }
    }
}
