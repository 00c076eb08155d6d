package org.panamaverbs.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.panamaverbs.verbs.Rdma;
import org.panamaverbs.verbs.RdmaCore;
import org.panamaverbs.verbs.RdmaUnavailableException;

/** {@code java -jar panama-verbs-bench.jar TOOL}: each tool by name, JMH for anything else. */
class ToolsTest {
    private record Outcome(Integer exit, String out) {
    }

    private static Outcome run(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Integer exit = Tools.run(new PrintStream(bytes, true, StandardCharsets.UTF_8), args);
        return new Outcome(exit, bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void withoutArgumentsOrWithHelpListsEveryTool() {
        for (String[] args : new String[][] {{}, {"--help"}, {"help"}}) {
            Outcome o = run(args);
            assertEquals(0, o.exit());
            for (String tool : new String[] {"write-bw", "cmtime", "perftest TOOL", "device-report", "rdma-core", "jmh",
                    "ib_send_lat"}) {
                assertTrue(o.out().contains(tool), o.out());
            }
        }
    }

    @Test
    void toolsRunByNameAndAnythingElseIsLeftToJmh() {
        assertEquals(2, run("device-report", "--profile", "esxi-6.5").exit());
        assertEquals(0, run("write-bw", "--help").exit());
        assertEquals(1, run("cmtime", "-x", "1").exit()); // cmtime's own answer to an unknown option: usage, exit 1
        assertEquals(0, run("perftest", "ib_read_lat", "--help").exit());
        assertEquals(0, run("ib_send_bw", "--help").exit());
        assertNull(run("DataPathCritical.pollEmptyCq", "-f", "1").exit());
        assertNull(run("jmh", "-l").exit());
    }

    @Test
    void rdmaCoreNamesTheLoadedLibraryOrWhyThereIsNone() {
        Outcome o = run("rdma-core");
        RdmaCore library;
        try {
            library = Rdma.rdmaCore();
        } catch (RdmaUnavailableException noLibrary) {
            assertEquals(1, o.exit());
            return;
        }
        assertEquals(0, o.exit());
        assertEquals(library + "\n", o.out());
        assertTrue(o.out().startsWith("rdma-core "), o.out());
        assertTrue(o.out().contains("libibverbs.so.1"), o.out());
    }
}
