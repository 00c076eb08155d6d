package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;
import jdk.jfr.consumer.RecordedEvent;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.panamaverbs.internal.ControlEvents;

/**
 * The control path's logging and JFR events, without a device: a gate refusal under an emulated PVRDMA
 * profile and the close of an adopted tree ({@link ObservedTree}); that events are off unless a recording
 * enables them; and that the library runs on a runtime without {@code jdk.jfr}. The device tier's
 * {@code JfrEventsTest} covers the events of real verbs.
 */
class ObservabilityTest {
    /** Everything here loads libibverbs (a machine without rdma-core skips it, naming the package). */
    @BeforeAll
    static void needsLibibverbs() {
        RequiredTools.libibverbs();
    }

    @Test
    void aRefusedVerbIsLoggedAtInfoAndRecorded() throws Throwable {
        List<String> lines;
        UnsupportedVerbException[] refused = new UnsupportedVerbException[1];
        List<RecordedEvent> events;
        try (Observation.LogCapture log = new Observation.LogCapture("org.panamaverbs.verbs")) {
            events = Observation.record(() -> refused[0] = ObservedTree.refuseSharedReceiveQueue());
            lines = log.lines();
        }
        String expected = "INFO refused ibv_create_srq on fake0 (PVRDMA_HWV13 profile): " + refused[0].getMessage();
        assertTrue(lines.contains(expected), "log lines: " + lines);
        List<RecordedEvent> recorded = Observation.events(events, "VerbRefused", e -> true);
        assertEquals(1, recorded.size(), events.toString());
        RecordedEvent event = recorded.getFirst();
        assertEquals("fake0", event.getString("device"));
        assertEquals("ibv_create_srq", event.getString("verb"));
        assertEquals("PVRDMA_HWV13", event.getString("hardwareClass"));
        assertEquals(false, event.getBoolean("emulated"));
        assertEquals(refused[0].getMessage(), event.getString("message"));
        assertEquals("Panama Verbs", event.getEventType().getCategoryNames().getFirst());
    }

    @Test
    void closesAreLoggedAtDebugAndRecordedWithTheirTypeAndDuration() throws Throwable {
        List<String> lines;
        List<RecordedEvent> events;
        try (Observation.LogCapture log = new Observation.LogCapture("org.panamaverbs.verbs")) {
            events = Observation.record(ObservedTree::adoptAndClose);
            lines = log.lines();
        }
        assertTrue(lines.contains("FINE gave back CompletionQueue[fake0, 64 entries]"), "log lines: " + lines);
        assertTrue(lines.contains("FINE gave back ProtectionDomain[fake0]"), "log lines: " + lines);
        assertTrue(lines.contains("FINE gave back Context[fake0]"), "log lines: " + lines);
        List<RecordedEvent> destroys = Observation.events(events, "ResourceDestroy", e -> "fake0".equals(e.getString("device")));
        assertEquals(List.of("CompletionQueue", "ProtectionDomain", "Context"),
                destroys.stream().map(e -> e.getString("resourceType")).toList(), "children first");
        for (RecordedEvent destroy : destroys) {
            assertTrue(destroy.getBoolean("givenBack") && destroy.getBoolean("succeeded"), destroy.toString());
            assertTrue(!destroy.getDuration().isNegative(), destroy.toString());
        }
        assertEquals("Context[fake0]", destroys.getLast().getString("resource"));
    }

    @Test
    void eventsAreOffUnlessARecordingEnablesThem() {
        assertTrue(ControlEvents.JFR_PRESENT, "this JDK has jdk.jfr");
        assumeTrue(!FlightRecorder.isInitialized() || FlightRecorder.getFlightRecorder().getRecordings().stream()
                .noneMatch(r -> r.getState() == RecordingState.RUNNING), "a recording of this JVM is already running");
        assertNull(ControlEvents.begin(ControlEvents.Kind.RESOURCE_DESTROY), "no recording: no event object");
        try (Recording recording = new Recording()) {
            // a recording enables the library's events unless its settings say otherwise (@Enabled defaults to true)
            recording.disable("org.panamaverbs.ResourceDestroy");
            recording.start();
            assertNull(ControlEvents.begin(ControlEvents.Kind.RESOURCE_DESTROY), "a recording that disables the type");
            assertNotNull(ControlEvents.begin(ControlEvents.Kind.VERB_REFUSED), "a recording with it");
            assertTrue(ControlEvents.isRecording(ControlEvents.Kind.VERB_REFUSED));
        }
        assertNull(ControlEvents.begin(ControlEvents.Kind.VERB_REFUSED), "the recording ended");
    }

    @Test
    void theLibraryRunsWithoutJdkJfr() throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        // --limit-modules java.base: a runtime of java.base alone, as a jlink image without jdk.jfr would be
        Process child = new ProcessBuilder(java, "--limit-modules", "java.base", "--enable-native-access=ALL-UNNAMED",
                "-cp", classPath, ObservedTree.class.getName()).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), output);
        assertEquals(0, child.exitValue(), output);
        assertTrue(output.contains("jdk.jfr.present=false"), output);
        assertTrue(output.contains("jfr.usable=false"), output);
        assertTrue(output.contains("refused=ibv_create_srq"), output);
        assertTrue(output.contains("adopted.closed=true"), output);
    }
}
