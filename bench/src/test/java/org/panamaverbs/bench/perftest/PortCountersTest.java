package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code -W}: each result followed by the counters' changes since the previous read, as perftest_counters.c prints. */
class PortCountersTest {

    @Test
    void eachReadReportsTheChangeSinceThePreviousOne(@TempDir Path port) throws Exception {
        Files.createDirectories(port.resolve("hw_counters"));
        Files.writeString(port.resolve("hw_counters/sent_pkts"), "100\n");
        Files.writeString(port.resolve("hw_counters/rcvd_pkts"), "7\n");
        PortCounters counters = PortCounters.open("hw_counters/sent_pkts,hw_counters/rcvd_pkts", port);
        Files.writeString(port.resolve("hw_counters/sent_pkts"), "350\n");
        assertEquals("\n\thw_counters/sent_pkts=250\n\thw_counters/rcvd_pkts=0\n", counters.deltas());
        Files.writeString(port.resolve("hw_counters/rcvd_pkts"), "9\n");
        assertEquals("\n\thw_counters/sent_pkts=0\n\thw_counters/rcvd_pkts=2\n", counters.deltas());
    }

    @Test
    void aCounterOutsideThePortOrMissingIsRefused(@TempDir Path dir) throws Exception {
        Path port = Files.createDirectories(dir.resolve("ports/1"));
        Files.writeString(dir.resolve("secret"), "1\n");
        for (String bad : new String[] {"../../secret", "no_such_counter", ""}) {
            PerftestException e = assertThrows(PerftestException.class, () -> PortCounters.open(bad, port));
            assertTrue(e.getMessage().startsWith("Unable to access performance counters"), e.getMessage());
        }
    }
}
