package org.panamaverbs.verbs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/** Test helpers that watch the library's loggers (through java.util.logging) and its JFR events. */
final class Observation {
    private Observation() {
    }

    /** The library's JFR event names, as docs/guide/logging-and-jfr.md lists them. */
    static final List<String> EVENT_NAMES = List.of("org.panamaverbs.DeviceOpen", "org.panamaverbs.ProtectionDomainCreate",
            "org.panamaverbs.MemoryRegionCreate", "org.panamaverbs.CompletionQueueCreate",
            "org.panamaverbs.QueuePairCreate", "org.panamaverbs.SharedReceiveQueueCreate",
            "org.panamaverbs.AddressHandleCreate", "org.panamaverbs.ResourceDestroy",
            "org.panamaverbs.QueuePairTransition", "org.panamaverbs.AsyncEvent", "org.panamaverbs.ConnectionEvent",
            "org.panamaverbs.VerbRefused", "org.panamaverbs.BackstopFree");

    /** An action that may throw anything. */
    interface Action {
        void run() throws Throwable;
    }

    /** Runs {@code action} under a recording that enables every event of the library (no threshold), and reads it back. */
    static List<RecordedEvent> record(Action action) throws Throwable {
        Path file = Files.createTempFile("panama-verbs-", ".jfr");
        try (Recording recording = new Recording()) {
            for (String name : EVENT_NAMES) {
                recording.enable(name).withoutThreshold();
            }
            recording.start();
            action.run();
            recording.stop();
            recording.dump(file);
            return RecordingFile.readAllEvents(file);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** The events named {@code name} (without the {@code org.panamaverbs.} prefix) that match {@code filter}. */
    static List<RecordedEvent> events(List<RecordedEvent> all, String name, Predicate<RecordedEvent> filter) {
        return all.stream().filter(e -> e.getEventType().getName().equals("org.panamaverbs." + name)).filter(filter).toList();
    }

    /** The records a java.util.logging logger receives at every level while open; restores the level on close. */
    static final class LogCapture extends Handler implements AutoCloseable {
        private final Logger logger;
        private final Level previous;
        private final List<LogRecord> records = new ArrayList<>();
        private final SimpleFormatter formatter = new SimpleFormatter();

        LogCapture(String name) {
            logger = Logger.getLogger(name);
            previous = logger.getLevel();
            setLevel(Level.ALL);
            logger.setLevel(Level.ALL);
            logger.addHandler(this);
        }

        @Override
        public synchronized void publish(LogRecord record) {
            records.add(record);
        }

        /** Each record as level and formatted message, e.g. {@code "INFO refused ibv_create_srq on ..."}. */
        synchronized List<String> lines() {
            return records.stream().map(r -> r.getLevel() + " " + formatter.formatMessage(r)).toList();
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            logger.removeHandler(this);
            logger.setLevel(previous);
        }
    }

    /** Reads a whole file, for messages. */
    static String read(Path file) throws IOException {
        return Files.readString(file);
    }
}
