package org.panamaverbs.cm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A thread dump of this JVM, virtual threads (the channels' readers) included, which
 * {@code Thread.getAllStackTraces()} leaves out. Through reflection, because the library's module (which its tests
 * patch) reads neither java.management nor jdk.management.
 */
final class ThreadDumps {
    private ThreadDumps() {
    }

    /** {@code HotSpotDiagnosticMXBean.dumpThreads} in {@code format} ({@code "TEXT_PLAIN"} or {@code "JSON"}). */
    static String take(String format) throws ReflectiveOperationException, IOException {
        Class<?> beanType = Class.forName("com.sun.management.HotSpotDiagnosticMXBean");
        Object bean = Class.forName("java.lang.management.ManagementFactory").getMethod("getPlatformMXBean", Class.class)
                .invoke(null, beanType);
        Class<?> formats = Class.forName("com.sun.management.HotSpotDiagnosticMXBean$ThreadDumpFormat");
        Object chosen = null;
        for (Object candidate : formats.getEnumConstants()) {
            if (candidate.toString().equals(format)) {
                chosen = candidate;
            }
        }
        Path dump = Files.createTempFile("threads", ".dump");
        Files.delete(dump); // dumpThreads refuses an existing file
        try {
            beanType.getMethod("dumpThreads", String.class, formats).invoke(bean, dump.toString(), chosen);
            return Files.readString(dump);
        } finally {
            Files.deleteIfExists(dump);
        }
    }
}
