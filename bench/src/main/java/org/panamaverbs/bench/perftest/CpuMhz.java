package org.panamaverbs.bench.perftest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CPU's MHz as perftest's {@code get_cpu_mhz} reads it from /proc/cpuinfo: the first {@code cpu MHz} line. The
 * latency tools' {@code -C} converts their nanoseconds (System.nanoTime) to cycles at it, so that their figures mean
 * what perftest's cycle counts mean where perftest takes the same figure (it keeps its own measurement of the cycle
 * counter instead when the two differ by more than 2%).
 */
final class CpuMhz {
    /** perftest's {@code sscanf(buf, "cpu MHz : %lf", &m)}: any whitespace (or none) around the words and colon. */
    private static final Pattern LINE = Pattern.compile("^cpu\\s*MHz\\s*:\\s*([0-9]+(?:\\.[0-9]*)?)");
    private static final Path CPUINFO = Path.of("/proc/cpuinfo");

    private CpuMhz() {
    }

    /** This machine's figure, or a refusal of {@code -C} saying why there is none. */
    static double read() {
        try {
            return parse(Files.readAllLines(CPUINFO));
        } catch (IOException e) {
            throw new PerftestException("-C: cannot read " + CPUINFO + " for the CPU's MHz (" + e.getMessage() + ")");
        }
    }

    /** The first {@code cpu MHz} figure of {@code cpuinfo}'s lines. */
    static double parse(List<String> cpuinfo) {
        for (String line : cpuinfo) {
            Matcher m = LINE.matcher(line);
            if (m.find()) {
                double mhz = Double.parseDouble(m.group(1));
                if (mhz > 0) {
                    return mhz;
                }
            }
        }
        throw new PerftestException("-C: /proc/cpuinfo gives no \"cpu MHz\" to convert nanoseconds to cycles at (this"
                + " CPU's perftest measures its cycle counter instead, which Java cannot read)");
    }
}
