package org.panamaverbs.bench.perftest;

import java.util.List;

import org.panamaverbs.verbs.Capability;
import org.panamaverbs.verbs.CapabilityVerdict;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.DeviceProfile;
import org.panamaverbs.verbs.SendWorkRequest;
import org.panamaverbs.verbs.WrOpcode;

/**
 * What {@code ib_atomic_bw} and {@code ib_atomic_lat} share: perftest's {@code -A} ({@link Type}), its fixed 8-byte
 * message, the operands it posts, its checks of the command line, and the refusal of a device without atomics.
 */
final class AtomicTools {
    /** perftest's {@code DEF_SIZE_ATOMIC}: an atomic operation reads and writes one 64-bit word. */
    static final long SIZE = 8;
    /** perftest's {@code ATOMIC_ADD_VALUE}: what fetch-and-add adds. */
    static final long ADD_VALUE = 1;
    /** perftest's {@code ATOMIC_SWAP_VALUE}: what compare-and-swap writes (it compares with 0). */
    static final long SWAP_VALUE = 0;

    private AtomicTools() {
    }

    /** perftest's {@code -A}, with its codes on the wire ({@code atomicType} of the parameter negotiation). */
    enum Type {
        CMP_AND_SWAP(ParameterNegotiation.CMP_AND_SWAP, WrOpcode.ATOMIC_CMP_AND_SWP),
        FETCH_AND_ADD(ParameterNegotiation.FETCH_AND_ADD, WrOpcode.ATOMIC_FETCH_AND_ADD);

        final int code;
        final WrOpcode opcode;

        Type(int code, WrOpcode opcode) {
            this.code = code;
            this.opcode = opcode;
        }

        /** {@code -A}'s value, spelled as perftest wants it (it compares case-sensitively). */
        static Type parse(String name) {
            for (Type type : values()) {
                if (type.name().equals(name)) {
                    return type;
                }
            }
            throw new PerftestException("Invalid Atomic type " + name
                    + "! please choose from {CMP_AND_SWAP,FETCH_AND_ADD} (as perftest)");
        }

        /** The banner's test name, e.g. "Atomic FETCH_AND_ADD BW" ({@code ctx_print_test_info}). */
        String title(boolean bandwidth) {
            return "Atomic " + name() + (bandwidth ? " BW" : " Latency");
        }
    }

    /**
     * Sets {@code wr}'s atomic target and operands as perftest's {@code ctx_set_send_wqes}: fetch-and-add adds 1,
     * compare-and-swap compares with 0 and writes 0.
     */
    static void target(SendWorkRequest wr, WrOpcode opcode, long remoteAddress, int rkey) {
        boolean add = opcode == WrOpcode.ATOMIC_FETCH_AND_ADD;
        wr.atomic(remoteAddress, rkey, add ? ADD_VALUE : 0, add ? 0 : SWAP_VALUE);
    }

    /**
     * perftest's checks of an atomic test's command line: the size is 8 bytes ({@code -s} other than 8 and {@code -a}
     * are refused with its message), no inline data, RC only.
     */
    static void validate(PerftestOptions o, String tool) {
        if (o.allSizes || o.size != null && o.size != SIZE) {
            throw new PerftestException("Message size cannot be changed for Atomic tests ("
                    + (o.allSizes ? "-a" : "-s " + o.size) + "; an atomic operation moves 8 bytes, as perftest)");
        }
        if (o.inlineSize != null) {
            throw new PerftestException("-I: Inline feature not available on READ/Atomic verbs (as perftest)");
        }
        if (o.connection.equalsIgnoreCase("UC")) {
            throw new PerftestException("-c UC: UC connection not possible in READ/ATOMIC verbs (as perftest)");
        }
        if (o.isUd()) {
            throw new PerftestException("-c UD: UD connection only possible in SEND verb (as perftest)");
        }
        PerftestOptions.refuse(tool, o.loopback, "--loopback");
    }

    /**
     * Refuses, before any peer waits, a device whose gates refuse atomics (PVRDMA, or a device reporting
     * {@code atomic_cap} NONE), with the message the library's {@code ibv_post_send} gate would throw.
     */
    static void requireAtomics(Context context) {
        DeviceProfile profile = context.profile();
        if (profile.capabilities().atomics() && !profile.hardwareClass().isPvrdma()) {
            return; // the gate lets atomics through: no need for the full report (GID tables, librdmacm)
        }
        String refusal = refusal(context.capabilities());
        if (refusal != null) {
            throw new PerftestException(refusal);
        }
    }

    /** The refusal of {@link Capability#ATOMICS} among {@code verdicts}, or null when allowed. */
    static String refusal(List<CapabilityVerdict> verdicts) {
        for (CapabilityVerdict verdict : verdicts) {
            if (verdict.capability() == Capability.ATOMICS && !verdict.allowed()) {
                return verdict.refusal() != null ? verdict.refusal()
                        : "not supported: atomics (" + verdict.detail() + ")";
            }
        }
        return null;
    }
}
