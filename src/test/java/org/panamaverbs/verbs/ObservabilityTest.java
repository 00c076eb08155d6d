package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.util.List;

import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;
import jdk.jfr.consumer.RecordedEvent;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.panamaverbs.internal.ControlEvents;

/**
 * The control path's logging and JFR events, without a device: a gate refusal under an emulated PVRDMA
 * profile ({@link ObservedTree}) and the closes of a tree on the stand-in libibverbs ({@link StandInTree}); that
 * events are off unless a recording enables them, and JFR is not even started without one; and that the library runs on a
 * runtime without {@code jdk.jfr}. The device tier's
 * {@code JfrEventsDeviceTest} covers the events of real verbs.
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

    /**
     * On the stand-in libibverbs and librdmacm (a child JVM, {@link StandInTree}): a tree the library made is
     * destroyed, children first; a queue pair an rdma_cm id holds is given back when the id closes. Each close is
     * logged at DEBUG and recorded with its type and duration.
     */
    @Test
    void closesAreLoggedAtDebugAndRecordedWithTheirTypeAndDuration() throws Throwable {
        String output = StandIn.run(StandInTree.class, List.of(), "record");
        List<String> lines = StandIn.values(output, "log");
        assertTrue(lines.contains("FINE destroyed CompletionQueue[stub0, 64 entries]"), output);
        assertTrue(lines.contains("FINE destroyed ProtectionDomain[stub0]"), output);
        assertTrue(lines.contains("FINE destroyed Context[stub0]"), output);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("FINE gave back QueuePair[RC ")), output);
        List<String> destroys = StandIn.values(output, "destroy");
        assertEquals(List.of("CompletionQueue CompletionQueue[stub0, 64 entries] givenBack=false succeeded=true timed=true",
                "ProtectionDomain ProtectionDomain[stub0] givenBack=false succeeded=true timed=true",
                "Context Context[stub0] givenBack=false succeeded=true timed=true"), destroys.subList(0, 3),
                "children first: " + output);
        // closing the id gives its queue pair back to rdma_cm; the context rdma_cm lent stays open, as librdmacm's does
        List<String> held = destroys.subList(3, destroys.size());
        assertEquals(1, held.size(), output);
        assertTrue(held.getFirst().matches("QueuePair QueuePair\\[RC 0x[0-9a-f]+ on stub0] givenBack=true succeeded=true"
                + " timed=true"), output);
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

    /**
     * A JVM's first event object starts JFR's metadata (about a hundred classes, 120 to 180 ms, most of a first
     * {@code Rdma.open}): a child JVM that opens, refuses and closes without a recording loads neither the library's
     * event classes nor JFR's metadata, and a recording started after that still gets the events of what follows.
     */
    @Test
    void withoutARecordingJfrIsNeverStarted() throws IOException, InterruptedException {
        String output = StandIn.run(ObservedTree.class, List.of("-Xlog:class+load:stdout:none"));
        int closed = output.indexOf("tree.closed=true");
        assertTrue(output.contains("jfr.usable=true") && closed > 0, output);
        List<String> loadedBefore = output.substring(0, closed).lines()
                .filter(line -> line.startsWith("jdk.jfr.internal.MetadataRepository ")
                        || line.startsWith("org.panamaverbs.internal.JfrEvents"))
                .toList();
        assertEquals(List.of(), loadedBefore, "loaded without a recording");
        List<String> recorded = StandIn.values(output, "recorded");
        for (String type : List.of("DeviceOpen", "ProtectionDomainCreate", "CompletionQueueCreate", "ResourceDestroy",
                "VerbRefused")) {
            assertTrue(recorded.contains("org.panamaverbs." + type), type + " in " + recorded);
        }
    }

    @Test
    void theLibraryRunsWithoutJdkJfr() throws IOException, InterruptedException {
        // --limit-modules java.base: a runtime of java.base alone, as a jlink image without jdk.jfr would be
        String output = StandIn.run(ObservedTree.class, List.of("--limit-modules", "java.base"));
        assertTrue(output.contains("jdk.jfr.present=false"), output);
        assertTrue(output.contains("jfr.usable=false"), output);
        assertTrue(output.contains("refused=ibv_create_srq"), output);
        assertTrue(output.contains("tree.closed=true"), output);
    }
}
