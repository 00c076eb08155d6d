package org.panamaverbs.bench.perftest;

import java.util.Map;

/**
 * The perftest release a peer runs, known from the version string of the version exchange, and what that release's
 * side of the exchange does differently (read from linux-rdma/perftest's tags; docs/perftest-protocol.md lists the
 * differences). perftest compares versions as {@code atof} numbers, and so does this class.
 *
 * @param version the version string as the peer sent it, e.g. "6.28"
 * @param number  its value as perftest's {@code atof} reads it
 */
record PerftestRelease(String version, double number) {
    /** The version the Java tools announce: they speak the exchange of perftest 26.04, the newest release known. */
    static final String NEWEST_KNOWN_VERSION = "6.29";
    /** perftest refuses peers older than this ({@code check_version_compatibility}), and so do the Java tools. */
    static final double OLDEST_COMPATIBLE = 5.70;
    /** From this version on (23.10), a tool no longer writes "done" after its last handshake: it raced with the close. */
    private static final double NO_DONE_SINCE = 6.17;
    /** 24.07 labels the bandwidth table's unit MiB/sec and spaces its result line further. */
    private static final double TABLES_OF_24_07 = 6.22;
    /** 26.01 added the parameter negotiation after the version exchange, whatever the peer's version. */
    private static final double NEGOTIATES_SINCE = 6.28;
    /** 26.04: talks only to 6.28+; adds {@code data_validation} and {@code tail_markers_vaddr} to the exchange. */
    private static final double PERFTEST_26_04 = 6.29;

    /** The upstream releases (git tags of linux-rdma/perftest) behind each version string since 4.4-0.32. */
    private static final Map<String, String> RELEASES = Map.ofEntries(
            Map.entry("5.94", "4.4-0.32"), Map.entry("5.96", "4.4-0.36"), Map.entry("5.98", "4.5-0.2"),
            Map.entry("6.03", "4.5-0.11"), Map.entry("6.04", "4.5-0.14"), Map.entry("6.06", "4.5-0.17"),
            Map.entry("6.10", "4.5-0.20"), Map.entry("6.13", "23.04"), Map.entry("6.16", "23.07"),
            Map.entry("6.17", "23.10"), Map.entry("6.20", "24.01"), Map.entry("6.21", "24.04"),
            Map.entry("6.22", "24.07"), Map.entry("6.23", "24.10"), Map.entry("6.24", "25.01"),
            Map.entry("6.25", "25.04"), Map.entry("6.26", "25.07"), Map.entry("6.27", "25.10"),
            Map.entry("6.28", "26.01"), Map.entry("6.29", "26.04"));

    /** The release of a version string, or {@code null} if it is not a number (not a perftest peer). */
    static PerftestRelease of(String version) {
        try {
            double number = Double.parseDouble(version);
            return Double.isFinite(number) ? new PerftestRelease(version, number) : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The release as messages name it: "perftest 26.01 (version 6.28)", or "perftest version 6.31" if unknown. */
    String describe() {
        String release = RELEASES.get(version);
        if (release != null) {
            return "perftest " + release + " (version " + version + ")";
        }
        if (number > Double.parseDouble(NEWEST_KNOWN_VERSION)) {
            return "perftest version " + version + " (newer than 26.04, the newest release these tools know)";
        }
        return "perftest version " + version;
    }

    /** Whether perftest refuses this version as too old (below 5.70). */
    boolean isTooOld() {
        return number < OLDEST_COMPATIBLE;
    }

    /** Whether this release prints the bandwidth table as 24.07 and later do ({@link PerftestOptions#tablesSince2407}). */
    boolean printsTablesOf2407() {
        return number >= TABLES_OF_24_07;
    }

    /** Whether this release writes "done" after its closing handshake (before 23.10); nobody ever reads it. */
    boolean writesDone() {
        return number < NO_DONE_SINCE;
    }

    /**
     * The parameter negotiation this release runs with a side announcing {@link #NEWEST_KNOWN_VERSION}: none before
     * 26.01; 26.01's record for 26.01 (it negotiates with every peer); 26.04's record from 26.04 on (it negotiates
     * with peers of 6.28 and later, which the Java tools are).
     */
    ParameterNegotiation.Layout negotiation() {
        if (number < NEGOTIATES_SINCE) {
            return null;
        }
        return number < PERFTEST_26_04 ? ParameterNegotiation.Layout.PERFTEST_26_01 : ParameterNegotiation.Layout.PERFTEST_26_04;
    }

    /** Whether this release's binary address record over rdma_cm carries {@code tail_markers_vaddr} (64 bytes, not 56). */
    boolean hasTailMarkers() {
        return number >= PERFTEST_26_04;
    }
}
