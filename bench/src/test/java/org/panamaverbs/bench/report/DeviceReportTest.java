package org.panamaverbs.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.api.Test;

/** Bad input ends in one line on stderr and a non-zero exit, with or without an RDMA device. */
class DeviceReportTest {

    private record Outcome(int exit, String out, String err) {
    }

    private static Outcome run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = DeviceReport.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Outcome(exit, out.toString(), err.toString());
    }

    @Test
    void unknownProfileIsOneLineAndExit2() {
        Outcome o = run("--profile", "esxi-6.5");
        assertEquals(2, o.exit());
        assertEquals("", o.out());
        assertEquals(1, o.err().lines().count(), o.err());
        assertTrue(o.err().contains("--profile must be native, pvrdma-hwv13 or pvrdma-hwv14, not 'esxi-6.5'"), o.err());
    }

    @Test
    void unknownOptionIsOneLineAndExit2() {
        Outcome o = run("--verbose");
        assertEquals(2, o.exit());
        assertEquals(1, o.err().lines().count(), o.err());
    }

    @Test
    void unknownDeviceIsOneLineAndExit1() {
        // without RDMA (the build machine) the line says why there is none; with a device, which ones exist
        Outcome o = run("-d", "no_such_device0");
        assertEquals(1, o.exit());
        assertEquals(1, o.err().lines().count(), o.err());
        assertTrue(o.err().startsWith("device-report: "), o.err());
        assertTrue(!o.err().contains("\tat "), o.err());
    }
}
