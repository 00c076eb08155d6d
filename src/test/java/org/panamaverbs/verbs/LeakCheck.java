package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The device's resource counts ({@code rdma resource show}: pd, cq, qp, mr, ctx, srq, ...) must be the
 * same after the whole device suite as before it: {@link LeakBaselineTest} runs first and
 * {@link LeakCheckTest} last (class order from junit-platform.properties).
 */
final class LeakCheck {
    static List<String> baseline;

    private LeakCheck() {
    }

    static List<String> resourceCounts() throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder("rdma", "resource", "show").redirectErrorStream(true).start();
        } catch (IOException noTool) {
            assumeTrue(false, "the rdma tool (iproute2) is not installed");
            throw noTool;
        }
        String out = new String(p.getInputStream().readAllBytes());
        assumeTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, "rdma resource show failed: " + out);
        return out.lines().filter(l -> !l.isBlank()).toList();
    }
}
