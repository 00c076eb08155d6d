package org.panamaverbs.bench.perftest;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The validating side of perftest 26.04's {@code --data_validation} ({@code host_validation.c}): threads that watch
 * the chunks' markers in this side's buffer ({@link ValidationLayout#watchedMarkerOffset}) and, each time one moves,
 * check every byte of its chunk against the pattern the marker names. A mismatch where the chunk is already being
 * written again (the byte and the four after it are another pattern) is a race, not an error, and one in the chunk's
 * tail that a second read no longer sees is a late write ("stale"), as perftest classifies them. The threads spin
 * while they wait, as perftest's: start them just before the peer writes, stop them once it is done.
 */
final class Validators implements AutoCloseable {
    /** perftest's {@code HOST_VALIDATION_DEFAULT_VALIDATORS} and {@code HOST_VALIDATION_MAX_VALIDATORS}. */
    private static final int DEFAULT_VALIDATORS = 4;
    private static final int MAX_VALIDATORS = 32;
    /** perftest's {@code VALIDATION_REPOLL_THRESHOLD_BYTES}: WRITE mode rechecks a marker at once up to it. */
    private static final long REPOLL_THRESHOLD_BYTES = 64 * 1024;
    /** How long a stop waits for a validator to finish its last chunk. */
    private static final Duration STOP_BOUND = Duration.ofSeconds(30);
    private static final VarHandle MARKER = ValueLayout.JAVA_LONG.varHandle();

    private final ValidationLayout layout;
    private final MemorySegment buffer;
    private final boolean debug;
    private final Arena patternArena = Arena.ofShared();
    /** Each pattern repeated over a whole chunk, what a chunk is compared with. */
    private final MemorySegment[] patterns = new MemorySegment[ValidationLayout.PATTERNS];
    private final List<Validator> validators = new ArrayList<>();
    private final AtomicLong errors = new AtomicLong();
    /** The first error's place and bytes, set once. */
    private volatile String firstError;
    private volatile boolean stopping;

    /** Validators of {@code buffer} (this side's registered buffer, laid out as {@code layout}), not yet started. */
    Validators(ValidationLayout layout, MemorySegment buffer, boolean debug) {
        this.layout = layout;
        this.buffer = buffer;
        this.debug = debug;
        for (int p = 0; p < patterns.length; p++) {
            patterns[p] = patternArena.allocate(layout.chunkBytes()).fill(ValidationLayout.pattern(p));
        }
        int count = count(layout, Runtime.getRuntime().availableProcessors());
        for (int v = 0; v < count; v++) {
            validators.add(new Validator(v));
        }
        int markers = layout.queuePairs() * layout.chunksPerQp();
        for (int m = 0; m < markers; m++) { // dealt round, as even as perftest's distribution
            validators.get(m % count).watch(m);
        }
    }

    /** {@code get_num_validators}: two per queue pair (READ three), at least 4, at most half the CPUs and the markers. */
    static int count(ValidationLayout layout, int cpus) {
        int wanted = Math.max(layout.queuePairs() * (layout.read() ? 3 : 2), DEFAULT_VALIDATORS);
        wanted = Math.min(Math.min(wanted, cpus / 2), MAX_VALIDATORS);
        wanted = Math.min(wanted, layout.queuePairs() * layout.chunksPerQp());
        return Math.max(wanted, 1);
    }

    /** Starts the threads. */
    void start() {
        for (Validator v : validators) {
            v.thread.start();
        }
    }

    /** Stops the threads once each has checked what its markers show by now, and returns what they found. */
    Result stop() {
        stopping = true;
        for (Validator v : validators) {
            try {
                if (!v.thread.join(STOP_BOUND)) {
                    throw new PerftestException("a data validator did not end within " + STOP_BOUND.toSeconds() + " s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PerftestException("interrupted while the data validators ended");
            }
        }
        List<Counts> each = validators.stream().map(Validator::counts).toList();
        return new Result(each.stream().mapToLong(Counts::chunks).sum(), each.stream().mapToLong(Counts::bytes).sum(),
                errors.get(), firstError, each.stream().mapToLong(Counts::scanned).sum(),
                each.stream().mapToLong(Counts::hits).sum(), each.stream().mapToLong(Counts::skipped).sum(),
                each.stream().mapToLong(Counts::races).sum(), each.stream().mapToLong(Counts::stale).sum(), each);
    }

    @Override
    public void close() {
        stopping = true;
        for (Validator v : validators) {
            try {
                v.thread.join(STOP_BOUND); // they read the arena below and the buffer, which the caller frees next
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        patternArena.close();
    }

    /** One validator's counts, which {@link Result} sums (the names as in {@link Result}). */
    record Counts(int id, int owned, long chunks, long bytes, long scanned, long hits, long skipped, long races,
            long stale) {
    }

    /**
     * What the validators found.
     *
     * @param chunks          messages validated (perftest's "chunks": a chunk's messages each time its marker moved)
     * @param bytes           bytes validated
     * @param errors          chunks with a mismatch that was neither a race nor a late write
     * @param firstError      where the first was, in perftest's words, or null
     * @param markersScanned  markers read
     * @param markersHit      markers found moved
     * @param skippedSteps    marker moves not seen one by one (a marker that moved by more than 1)
     * @param races           mismatches where the chunk was being written again
     * @param staleRetries    mismatches in a chunk's tail gone on a second read
     * @param perValidator    each validator's counts, for {@code --data_validation_debug}
     */
    record Result(long chunks, long bytes, long errors, String firstError, long markersScanned, long markersHit,
            long skippedSteps, long races, long staleRetries, List<Counts> perValidator) {
        /** Whether every chunk checked matched and some were checked. */
        boolean passed() {
            return errors == 0 && chunks > 0;
        }

        /**
         * perftest's {@code data_validation_stop_and_report}: with {@code --data_validation_debug} the per-validator
         * breakdown first; then "VALIDATION: PASSED ..." on {@code out}, or FAILED or WARNING on {@code err}; then,
         * debugging, the markers' counts. {@code role}: " (SERVER)"/" (CLIENT)" in a bidirectional run, else "".
         */
        void print(String role, boolean debug, PrintStream out, PrintStream err) {
            if (debug) {
                out.println();
                out.println("--- Per-Validator Breakdown ---");
                for (Counts v : perValidator) {
                    out.println(String.format(Locale.ROOT, "  Validator[%d]: %d slots (%.1f%%), %d markers owned, %d hits"
                            + " / %d scans", v.id(), v.chunks(), chunks == 0 ? 0.0 : 100.0 * v.chunks() / chunks,
                            v.owned(), v.hits(), v.scanned()) + (v.races() != 0 || v.stale() != 0
                                    ? ", races=" + v.races() + ", retries=" + v.stale() : ""));
                }
                out.println("---");
            }
            if (errors > 0) {
                err.println("VALIDATION: FAILED" + role + " - " + errors + " error(s), " + firstError);
                return;
            }
            if (chunks == 0) {
                err.println("VALIDATION: WARNING" + role + " - no data validated");
                return;
            }
            StringBuilder line = new StringBuilder("VALIDATION: PASSED" + role + " - " + chunks + " chunks, " + bytes
                    + " bytes");
            if (races != 0 || staleRetries != 0 || skippedSteps != 0) {
                line.append(" [races=").append(races).append(", retries=").append(staleRetries).append(", skips=")
                        .append(skippedSteps).append(", queue_full=0, stale_work=0]");
            }
            out.println(line);
            if (!debug) {
                return;
            }
            out.print("  Markers: " + markersScanned + " scanned, " + markersHit + " hit");
            if (markersScanned > 0) {
                out.print(String.format(Locale.ROOT, " (%.4f%% hit rate)", 100.0 * markersHit / markersScanned));
            }
            out.println();
            if (skippedSteps != 0) {
                out.println("  Skipped steps: " + skippedSteps + " (marker jumps > 1)");
            }
            if (races != 0) {
                out.println("  Race overwrites: " + races + " (epoch guard suppressions)");
            }
            if (staleRetries != 0) {
                out.println("  DMA stale retries: " + staleRetries + " (tail flush resolved)");
            }
        }
    }

    /** One thread and the markers it owns; its counts are read after its thread has ended. */
    private final class Validator implements Runnable {
        private final int id;
        private final Thread thread;
        private final List<Integer> owned = new ArrayList<>();
        private long[] lastSeen;
        private int[] markers;
        private long chunks;
        private long bytes;
        private long scanned;
        private long hits;
        private long skipped;
        private long races;
        private long stale;

        Validator(int id) {
            this.id = id;
            this.thread = Thread.ofPlatform().daemon().name("data-validator-" + id).unstarted(this);
        }

        void watch(int marker) {
            owned.add(marker);
        }

        @Override
        public void run() {
            markers = owned.stream().mapToInt(Integer::intValue).toArray();
            lastSeen = new long[markers.length];
            boolean repoll = !layout.read() && layout.chunkBytes() <= REPOLL_THRESHOLD_BYTES;
            boolean running = true;
            while (running) {
                boolean found = false;
                for (int m = 0; m < markers.length; m++) {
                    long value = marker(m);
                    while (value != lastSeen[m] && value != 0) {
                        found = true;
                        hits++;
                        check(m, value);
                        value = repoll ? marker(m) : lastSeen[m];
                    }
                    scanned++;
                }
                if (!found) {
                    Thread.onSpinWait();
                    running = !stopping;
                }
            }
            for (int m = 0; m < markers.length; m++) { // the last moves, after the peer stopped
                long value = marker(m);
                if (value != lastSeen[m] && value != 0) {
                    hits++;
                    check(m, value);
                }
            }
        }

        private long marker(int m) {
            return (long) MARKER.getAcquire(buffer, layout.watchedMarkerOffset(markers[m]));
        }

        /** {@code validate_one_marker}: chunk {@code markers[m]} against the pattern of {@code value}. */
        private void check(int m, long value) {
            int index = markers[m];
            int q = index / layout.chunksPerQp();
            int chunk = index % layout.chunksPerQp();
            long delta = value - lastSeen[m];
            if (delta > 1) {
                skipped += delta - 1;
            }
            int p = (int) Long.remainderUnsigned(value - 1, ValidationLayout.PATTERNS);
            byte expected = ValidationLayout.pattern(p);
            long size = layout.chunkBytes();
            MemorySegment data = buffer.asSlice(layout.chunkOffset(q, chunk), size);
            long mismatch = data.mismatch(patterns[p]);
            if (mismatch >= 0) {
                classify(data, mismatch, expected, q, chunk);
            }
            chunks += layout.opsPerChunk();
            bytes += size;
            lastSeen[m] = value;
        }

        private void classify(MemorySegment data, long mismatch, byte expected, int q, int chunk) {
            long size = data.byteSize();
            long tail = Math.max(layout.payload() * 2, 256);
            byte actual = data.get(ValueLayout.JAVA_BYTE, mismatch);
            if (mismatch >= size - tail) { // a write still landing at the chunk's end: look once more
                Thread.onSpinWait();
                Thread.onSpinWait();
                long again = data.asSlice(mismatch).mismatch(patterns[expected - 1].asSlice(mismatch));
                if (again < 0) {
                    stale++;
                    return;
                }
                mismatch += again;
                actual = data.get(ValueLayout.JAVA_BYTE, mismatch);
            }
            if (mismatch + 4 < size) { // the next pass's pattern already here, as far as 4 bytes on: a race
                byte at = data.get(ValueLayout.JAVA_BYTE, mismatch);
                boolean race = at != expected && at >= 1 && at <= ValidationLayout.PATTERNS;
                for (int i = 1; race && i <= 4; i++) {
                    race = data.get(ValueLayout.JAVA_BYTE, mismatch + i) == at;
                }
                if (race) {
                    races++;
                    return;
                }
            }
            if (errors.getAndIncrement() == 0) {
                firstError = String.format(Locale.ROOT, "first at QP %d, Chunk %d, Offset %d (expected 0x%02x, got 0x%02x)",
                        q, chunk, mismatch % layout.payload(), expected & 0xff, actual & 0xff);
            }
        }

        Counts counts() {
            return new Counts(id, owned.size(), chunks, bytes, scanned, hits, skipped, races, stale);
        }
    }
}
