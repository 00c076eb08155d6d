package org.panamaverbs.bench.perftest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * perftest's {@code --cpu_util}: the machine's first {@code /proc/stat} line read where a timed run's sample starts
 * and where it ends, and perftest's figure from the two, user time over user and idle time in percent (its formula:
 * system and the other columns count in neither). A run that never samples (a side that only waits, or
 * {@code --run_infinitely}) reports 0, as perftest's.
 */
final class CpuUtilization {
    /** The extra column of a result line's header ({@code RESULT_EXT_CPU_UTIL}). */
    static final String HEADER_COLUMN = "    CPU_Util[%]";
    private static final Path PROC_STAT = Path.of("/proc/stat");

    /** The user and idle columns of {@code /proc/stat}'s {@code cpu} line, in clock ticks. */
    record Ticks(long user, long idle) {
    }

    /** /proc/stat where the sample started, or null */
    private Ticks atStart;
    /** /proc/stat where the sample ended, or null */
    private Ticks atEnd;

    /** Called where a timed run's sample starts. */
    void sampleStarts() {
        atStart = read();
    }

    /** Called where a timed run's sample ends. */
    void sampleEnds() {
        atEnd = read();
    }

    /** perftest's {@code calc_cpu_util}, a C float: 0 when nothing was sampled or no tick passed. */
    float percent() {
        if (atStart == null || atEnd == null) {
            return 0;
        }
        return percent(atStart, atEnd);
    }

    static float percent(Ticks start, Ticks end) {
        long user = end.user() - start.user();
        long idle = end.idle() - start.idle();
        return user + idle == 0 ? 0 : (float) user / (user + idle) * 100;
    }

    /** The figure a result line ends with ({@code REPORT_EXT_CPU_UTIL}, without its newline). */
    String column() {
        return String.format(Locale.ROOT, "\t    %-3.2f", percent());
    }

    /** The figure in perftest 25.01's results file ({@code REPORT_EXT_CPU_UTIL_JSON}, without its newline). */
    String jsonField() {
        return String.format(Locale.ROOT, ",\n\"CPU_util\": %.2f", percent());
    }

    /** The first line of /proc/stat, or nothing counted when it cannot be read (perftest then keeps zeros). */
    static Ticks read() {
        try (var lines = Files.lines(PROC_STAT)) {
            return parse(lines.findFirst().orElse(""));
        } catch (IOException | RuntimeException e) {
            return new Ticks(0, 0);
        }
    }

    /** "cpu  USER NICE SYSTEM IDLE ...": the second word and the fifth, as perftest picks them. */
    static Ticks parse(String line) {
        String[] words = line.trim().split("\\s+");
        if (words.length < 5) {
            return new Ticks(0, 0);
        }
        return new Ticks(Long.parseLong(words[1]), Long.parseLong(words[4]));
    }
}
