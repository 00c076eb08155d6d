package org.panamaverbs.bench;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.sun.management.HotSpotDiagnosticMXBean;

import org.panamaverbs.cm.ConnParam;
/**
 * How many rdma_cm connections one JVM holds, and with how many threads: {@code cmscale server} accepts connections
 * on one thread over one polled event channel (a queue pair of depth 2 and one 64-byte receive slot per connection,
 * all slots in one registered region, completion queues shared by up to 4096 connections each) and echoes every
 * message it receives; {@code cmscale client} opens M connections from one thread (at most K connect steps in flight),
 * sends a 64-byte message naming each connection, checks the echo byte for byte, holds the connections until told,
 * then disconnects and closes them all. The server prints its thread count (platform and virtual, from a thread
 * dump) and heap at 10, 100, 1 000 and every 1 000 connections. A benchmark, not a test: {@code bench/cm-scale}
 * runs a server and several client JVMs and checks that nothing is left on the device.
 */
final class CmScale {
    /** The message of each connection: "cmscale PID INDEX " then a pattern of both. */
    static final int SLOT = 64;
    static final int HEADER = 23;
    static final Duration RESOLVE = Duration.ofSeconds(10);
    /** Only SENDs: one READ each way is what C cmtime asks for; less kernel memory per queue pair than the default. */
    static final ConnParam PARAMETERS = new ConnParam(null, 1, 1, 7, 7);
    static final int CONNECTIONS_PER_CQ = 4096;
    static final int REASONS_SHOWN = 5;

    private CmScale() {
    }

    static int run(String[] args) {
        CmScaleOptions options;
        try {
            options = CmScaleOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("cmscale: " + e.getMessage());
            System.err.println("""
                    usage: cmscale server [-b BIND_ADDRESS] [-p PORT] [-n CAPACITY] [--stop FILE] [--bound SECONDS]
                           cmscale client -s SERVER [-p PORT] -c CONNECTIONS [-k IN_FLIGHT] [--hold FILE] [--bound SECONDS]
                      server: accepts up to CAPACITY connections (default 10000) on one thread and echoes each message;
                              ends once it served CAPACITY connections, or FILE exists, and every connection is closed
                      client: opens CONNECTIONS connections from one thread (at most IN_FLIGHT, default 64, being set
                              up at once), checks each one's echo, holds them until FILE exists or a line arrives on
                              stdin or the server disconnects, then disconnects and closes them all""");
            return 2;
        }
        try {
            return options.server ? new CmScaleServer(options).run() : new CmScaleClient(options).run();
        } catch (UnknownHostException e) {
            System.err.println("cmscale: unknown host " + e.getMessage());
            return 2;
        }
    }

    /** The 64 bytes of connection {@code index} of process {@code pid}: "cmscale PID INDEX " and a pattern of both. */
    static void message(int pid, int index, byte[] into) {
        byte[] header = String.format(Locale.ROOT, "cmscale %7d %6d ", pid, index).getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < SLOT; i++) {
            into[i] = i < HEADER ? header[i] : (byte) ('a' + Math.floorMod(pid * 31 + index * 7 + i, 26));
        }
    }

    private static final Pattern HEADER_FIELDS = Pattern.compile("cmscale +(\\d+) +(\\d+) ");

    /** The server's check of a received message: its header names a connection, and the rest is that one's pattern. */
    static String check(MemorySegment segment, long offset, int length) {
        if (length != SLOT) {
            return "message of " + length + " bytes";
        }
        byte[] got = new byte[SLOT];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, got, 0, SLOT);
        Matcher m = HEADER_FIELDS.matcher(new String(got, 0, HEADER, StandardCharsets.US_ASCII));
        if (!m.lookingAt()) {
            return "no header: " + new String(got, StandardCharsets.ISO_8859_1);
        }
        byte[] expected = new byte[SLOT];
        message(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), expected);
        for (int i = 0; i < SLOT; i++) {
            if (got[i] != expected[i]) {
                return "byte " + i + " is " + (got[i] & 0xff) + ", expected " + (expected[i] & 0xff);
            }
        }
        return null;
    }

    private static final Pattern TID = Pattern.compile("\"tid\"\\s*:");
    private static final Pattern VIRTUAL = Pattern.compile("\"virtual\"\\s*:\\s*true");
    /** A thread's entry: its tid, then (for a virtual one) "virtual": true, then its name. */
    private static final Pattern THREAD = Pattern.compile(
            "\"tid\"\\s*:\\s*\"?(\\d+)\"?,[^{}]*?(\"virtual\"\\s*:\\s*true,)?\\s*\"name\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

    /**
     * {total, virtual} threads of this JVM from a JSON thread dump ({@code HotSpotDiagnosticMXBean.dumpThreads}): one
     * {@code "tid"} per thread, virtual ones marked {@code "virtual": true}. Virtual threads are listed when they are
     * tracked (the default, {@code -Djdk.trackAllThreads}). Adds each thread's name to {@code names}.
     */
    static int[] threadCounts(List<String> names) {
        try {
            Path dump = Files.createTempFile("cmscale-threads-", ".json");
            Files.delete(dump); // dumpThreads refuses an existing file
            try {
                ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpThreads(dump.toString(),
                        HotSpotDiagnosticMXBean.ThreadDumpFormat.JSON);
                String json = Files.readString(dump);
                Matcher thread = THREAD.matcher(json);
                while (thread.find()) {
                    names.add((thread.group(2) != null ? "virtual " : "") + "\"" + thread.group(3) + "\"");
                }
                return new int[] {count(TID, json), count(VIRTUAL, json)};
            } finally {
                Files.deleteIfExists(dump);
            }
        } catch (IOException e) {
            throw new IllegalStateException("thread dump: " + e, e);
        }
    }

    private static int count(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    /** The process's OS threads (/proc/self/task): the JVM's own (GC, compiler) included; -1 if unreadable. */
    static long osThreads() {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            return tasks.count();
        } catch (IOException e) {
            return -1;
        }
    }

    static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
