package org.panamaverbs.verbs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The device's resource counts ({@code rdma resource show}: pd, cq, qp, mr, ctx, srq, ...) and this
 * process's own objects ({@code rdma resource show pd|cq|qp|mr|cm_id}, the lines of this pid) must be the
 * same after the whole device suite as before it: {@link LeakBaselineTest} runs first and
 * {@link LeakCheckTest} last (class order from junit-platform.properties). Device-wide totals alone would
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
        Pattern ours = Pattern.compile("\\bpid " + ProcessHandle.current().pid() + "\\b");
        for (String type : OBJECT_TYPES) {
            long mine = rdma("resource", "show", type).stream().filter(l -> ours.matcher(l).find()).count();
            counts.add("this process: " + mine + " " + type);
        }
        return counts;
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
