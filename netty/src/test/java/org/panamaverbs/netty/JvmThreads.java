package org.panamaverbs.netty;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.sun.management.HotSpotDiagnosticMXBean;

/**
 * The names of this JVM's threads, platform and virtual: a thread dump ({@code HotSpotDiagnosticMXBean.dumpThreads}),
 * since {@code Thread.getAllStackTraces()} and {@code Thread.activeCount()} leave virtual threads out.
 */
final class JvmThreads {
    private static final Pattern NAME = Pattern.compile("\"name\": \"((?:[^\"\\\\]|\\\\.)*)\"");

    private JvmThreads() {
    }

    static List<String> names() throws IOException {
        Path dump = Files.createTempFile("threads", ".json");
        Files.delete(dump); // dumpThreads refuses an existing file
        try {
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpThreads(dump.toString(),
                    HotSpotDiagnosticMXBean.ThreadDumpFormat.JSON);
            String json = Files.readString(dump);
            List<String> names = new ArrayList<>();
            int threads = json.split("\"tid\":", -1).length - 1;
            Matcher matcher = NAME.matcher(json);
            while (matcher.find()) {
                names.add(matcher.group(1));
            }
            while (names.size() < threads) {
                names.add(""); // a thread without a name: JSON leaves the field out
            }
            return names;
        } finally {
            Files.deleteIfExists(dump);
        }
    }
}
