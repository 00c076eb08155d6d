package org.panamaverbs.verbs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The live instances of every class in this JVM, from the {@code GC.class_histogram} diagnostic command (which
 * collects garbage first): for tests that check an operation repeated many times leaves nothing behind. Through
 * reflection, because the library's module (which its tests patch) does not read java.management.
 */
final class HeapCensus {
    private HeapCensus() {
    }

    /**
     * The histogram's text, after a full collection: one string, so that a census kept for comparison adds two
     * objects to the next one (a map of it would add thousands).
     */
    static String take() throws Exception {
        Object server = Class.forName("java.lang.management.ManagementFactory").getMethod("getPlatformMBeanServer")
                .invoke(null);
        Class<?> objectName = Class.forName("javax.management.ObjectName");
        Object command = objectName.getConstructor(String.class).newInstance("com.sun.management:type=DiagnosticCommand");
        String histogram = (String) Class.forName("javax.management.MBeanServerConnection")
                .getMethod("invoke", objectName, String.class, Object[].class, String[].class)
                .invoke(server, command, "gcClassHistogram", new Object[] {new String[0]},
                        new String[] {String[].class.getName()});
        return histogram;
    }

    /** Instances by class name, from a histogram {@link #take} returned. */
    static Map<String, Long> instancesByClass(String histogram) {
        Map<String, Long> counts = new HashMap<>();
        for (String line : histogram.split("\n")) {
            String[] fields = line.trim().split("\\s+");
            // "  1:   12345   678900  java.lang.String (java.base@25)"
            if (fields.length >= 4 && fields[0].endsWith(":")) {
                // a hidden class's name carries its address: the same lambda is one entry however often it loads
                counts.merge(fields[3].replaceAll("/0x[0-9a-f]+$", ""), Long.parseLong(fields[1]), Long::sum);
            }
        }
        return counts;
    }

    /** The classes with at least {@code threshold} more instances in {@code after}, with their growth. */
    static List<String> grownBy(Map<String, Long> before, Map<String, Long> after, long threshold) {
        List<String> grown = new ArrayList<>();
        after.forEach((name, count) -> {
            long growth = count - before.getOrDefault(name, 0L);
            if (growth >= threshold) {
                grown.add(name + " +" + growth);
            }
        });
        return grown;
    }
}
