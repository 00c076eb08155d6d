package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** {@code -C}'s CPU MHz: the first {@code cpu MHz} of /proc/cpuinfo, as perftest's proc_get_cpu_mhz. */
class CpuMhzTest {
    @Test
    void takesTheFirstCpuMhzLine() {
        List<String> cpuinfo = List.of("processor\t: 0", "model name\t: Some CPU @ 3.00GHz", "cpu MHz\t\t: 2999.998",
                "processor\t: 1", "cpu MHz\t\t: 1200.000");
        assertEquals(2999.998, CpuMhz.parse(cpuinfo));
        assertEquals(2100.0, CpuMhz.parse(List.of("cpu MHz : 2100")));
    }

    @Test
    void noFigureRefusesMinusCInOneLine() {
        PerftestException e = assertThrows(PerftestException.class,
                () -> CpuMhz.parse(List.of("processor\t: 0", "BogoMIPS\t: 50.00")));
        assertTrue(e.getMessage().startsWith("-C: /proc/cpuinfo gives no \"cpu MHz\""), e.getMessage());
        assertEquals(1, e.getMessage().lines().count());
    }
}
