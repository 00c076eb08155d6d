package org.panamaverbs.bench.perftest;

import org.panamaverbs.verbs.WrOpcode;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ib_atomic_bw}: fetch-and-add or compare-and-swap ({@code -A}) bandwidth over RC, wire-compatible with
 * perftest 4.5 to 26.04 in both directions. {@code ib_read_bw}'s run with an 8-byte atomic operation on the server's
 * buffer instead of a READ ({@code atomic_bw.c} follows {@code read_bw.c}); a device without atomics is refused in
 * one line before the peer is contacted.
 */
@Command(name = "ib_atomic_bw", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Atomic (fetch-and-add, compare-and-swap) bandwidth, client/server, wire-compatible with"
                + " perftest's ib_atomic_bw.")
public final class AtomicBandwidth extends RdmaBandwidth {
    @Option(names = {"-A", "--atomic_type"}, defaultValue = "FETCH_AND_ADD", paramLabel = "TYPE",
            description = "the atomic operation: CMP_AND_SWAP or FETCH_AND_ADD (default: ${DEFAULT-VALUE})")
    String atomicTypeName;
    private AtomicTools.Type type;

    public AtomicBandwidth() {
        super("ib_atomic_bw", WrOpcode.ATOMIC_FETCH_AND_ADD, "Atomic FETCH_AND_ADD BW");
    }

    @Override
    void validate() {
        type = AtomicTools.Type.parse(atomicTypeName);
        AtomicTools.validate(o, "ib_atomic_bw");
    }

    @Override
    WrOpcode opcode() {
        return type.opcode;
    }

    @Override
    String title() {
        return type.title(true);
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
