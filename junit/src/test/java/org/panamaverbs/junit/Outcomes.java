package org.panamaverbs.junit;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import java.util.Map;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.EventType;

/** Runs a fixture class through JUnit's EngineTestKit and lists each test's or container's outcome as text. */
final class Outcomes {
    private Outcomes() {
    }

    /** One finished or skipped node: its display name, SKIPPED/SUCCESSFUL/FAILED/ABORTED, and the reason or message. */
    record Outcome(String name, boolean container, String result, String detail) {
        @Override
        public String toString() {
            return (container ? "container " : "test ") + name + " " + result + (detail == null ? "" : ": " + detail);
        }
    }

    static List<Outcome> run(Class<?> fixture, Map<String, String> configuration) {
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter").selectors(selectClass(fixture))
                .configurationParameters(configuration).execute();
        return results.allEvents().stream()
                .filter(e -> e.getType() == EventType.SKIPPED || e.getType() == EventType.FINISHED)
                .filter(e -> !e.getTestDescriptor().isRoot())
                .map(Outcomes::outcome).toList();
    }

    /** The outcome named {@code name} (a display name, such as {@code "test(Context)"}); fails if there is none. */
    static Outcome find(List<Outcome> outcomes, String name) {
        return outcomes.stream().filter(o -> o.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no outcome for " + name + " in " + outcomes));
    }

    private static Outcome outcome(Event event) {
        String name = event.getTestDescriptor().getDisplayName();
        boolean container = event.getTestDescriptor().isContainer();
        if (event.getType() == EventType.SKIPPED) {
            return new Outcome(name, container, "SKIPPED", event.getPayload(String.class).orElse(null));
        }
        TestExecutionResult result = event.getPayload(TestExecutionResult.class).orElseThrow();
        String detail = result.getThrowable().map(t -> t.getClass().getSimpleName() + ": " + t.getMessage()).orElse(null);
        return new Outcome(name, container, result.getStatus().name(), detail);
    }

    /**
     * Entry point of a child JVM (the tests of {@code RDMA_TEST_DEVICE} and {@code PANAMA_VERBS_REQUIRE_DEVICE}
     * need an environment this JVM cannot change): runs the fixture class named by the argument and prints one
     * outcome per line.
     */
    public static void main(String[] args) throws ClassNotFoundException {
        for (Outcome outcome : run(Class.forName(args[0]), Map.of())) {
            System.out.println(outcome);
        }
    }
}
