package org.panamaverbs.bench.perftest;

import org.panamaverbs.verbs.SendWorkRequest;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ib_atomic_lat}: fetch-and-add or compare-and-swap ({@code -A}) latency over RC, wire-compatible with perftest
 * 4.5 to 26.04 in both directions. {@code ib_read_lat}'s sequence ({@code atomic_lat.c} follows {@code read_lat.c}):
 * the client posts one signaled 8-byte atomic operation on the server's buffer at a time; the server only waits.
 */
@Command(name = "ib_atomic_lat", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Atomic (fetch-and-add, compare-and-swap) latency, client/server, wire-compatible with"
                + " perftest's ib_atomic_lat.")
public final class AtomicLatency extends Latency.Read {
    @Option(names = {"-A", "--atomic_type"}, defaultValue = "FETCH_AND_ADD", paramLabel = "TYPE",
            description = "the atomic operation: CMP_AND_SWAP or FETCH_AND_ADD (default: ${DEFAULT-VALUE})")
    String atomicTypeName;
    private AtomicTools.Type type;

    public AtomicLatency() {
        super("ib_atomic_lat");
    }

    @Override
    void validate() {
        type = AtomicTools.Type.parse(atomicTypeName);
        AtomicTools.validate(o, tool);
    }

    @Override
    void target(SendWorkRequest wr, PingPongSide s) {
        AtomicTools.target(wr.opcode(type.opcode), type.opcode, s.peerVaddr(), s.peerRkey());
    }

    @Override
    String title() {
        return type.title(false);
    }

    @Override
    int atomicType() {
        return type.code;
    }

    @Override
    long defaultSize() {
        return AtomicTools.SIZE;
    }
}
