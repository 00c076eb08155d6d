package org.panamaverbs.bench.perftest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * perftest's {@code -W/--report-counters} ({@code perftest_counters.c}): counters of the port's sysfs directory
 * ({@code /sys/class/infiniband/DEVICE/ports/PORT/NAME}, e.g. {@code hw_counters/rcvd_pkts} on rxe,
 * {@code counters/port_xmit_data} on InfiniBand), read when the tool starts and after each result line, which is
 * followed by each counter's change since the previous read ({@code \tNAME=DELTA}) and an empty line.
 */
final class PortCounters {
    private final List<String> names;
    private final List<Path> files;
    private final long[] last;

    private PortCounters(List<String> names, List<Path> files) {
        this.names = names;
        this.files = files;
        this.last = new long[names.size()];
    }

    /** Opens {@code list} (comma-separated names) for {@code device}'s {@code port} and reads every counter once. */
    static PortCounters open(String list, String device, int port) {
        return open(list, Path.of("/sys/class/infiniband", device, "ports", String.valueOf(port)));
    }

    static PortCounters open(String list, Path portDirectory) {
        List<String> names = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        for (String name : list.split(",")) {
            Path file = portDirectory.resolve(name).normalize();
            if (name.isEmpty() || !file.startsWith(portDirectory) || !Files.isRegularFile(file)
                    || !Files.isReadable(file)) {
                throw new PerftestException("Unable to access performance counters (" + file + "; as perftest)");
            }
            names.add(name);
            files.add(file);
        }
        PortCounters counters = new PortCounters(List.copyOf(names), List.copyOf(files));
        counters.deltas();
        return counters;
    }

    /** Reads every counter: what follows a result line, each counter's change since the previous read. */
    String deltas() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < files.size(); i++) {
            long value = read(files.get(i));
            b.append("\n\t").append(names.get(i)).append('=').append(Long.toUnsignedString(value - last[i]));
            last[i] = value;
        }
        return b.append('\n').toString();
    }

    private static long read(Path file) {
        try {
            return Long.parseUnsignedLong(Files.readString(file).strip());
        } catch (IOException | NumberFormatException e) {
            throw new PerftestException("Unable to read the performance counter " + file + ": " + e.getMessage());
        }
    }
}
