package org.panamaverbs.verbs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The device's resource counts ({@code rdma resource show}: pd, cq, qp, mr, ctx, srq, ...) and this
 * process's own objects ({@code rdma resource show pd|cq|qp|mr|cm_id}, the lines naming one of this process's
 * live threads: the kernel records the creating thread) must be the
 * same after the whole device suite as before it: {@link LeakBaselineDeviceTest} runs first and
 * {@link LeakCheckDeviceTest} last (class order from junit-platform.properties). Device-wide totals alone would
 * hide a leak that another process's close happened to balance; this process's lines cannot.
 *
 * <p>The device tier needs the {@code rdma} tool (iproute2, installed by scripts/setup and present in the
 * guest): without it, or if it fails, the check fails rather than skip, so a leak cannot pass unseen.
 */
final class LeakCheck {
    static List<String> baseline;
    private static final List<String> OBJECT_TYPES = List.of("pd", "cq", "qp", "mr", "cm_id");

    private LeakCheck() {
    }

    /** Device-wide summary lines, then per object type the number of this process's objects. */
    static List<String> resourceCounts() throws IOException, InterruptedException {
        List<String> counts = new ArrayList<>(rdma("resource", "show"));
        Set<String> threads = threadIds();
        Pattern pid = Pattern.compile("\\bpid (\\d+)\\b");
        for (String type : OBJECT_TYPES) {
            long mine = rdma("resource", "show", type).stream().map(pid::matcher)
                    .filter(m -> m.find() && threads.contains(m.group(1))).count();
            counts.add("this process: " + mine + " " + type);
        }
        return counts;
    }

    /**
     * The ids of this process's live threads. The kernel names the thread that created an object ({@code pid}
     * is its task id), and a JVM's threads, its main thread included, are not the process's first task.
     */
    private static Set<String> threadIds() throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            return tasks.map(t -> t.getFileName().toString()).collect(Collectors.toSet());
        }
    }

    private static List<String> rdma(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("rdma"));
        command.addAll(List.of(args));
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException noTool) {
            throw new AssertionError("the rdma tool (iproute2) is missing: the leak check cannot run", noTool);
        }
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed: " + out);
        }
        return out.lines().filter(l -> !l.isBlank()).toList();
    }
}
