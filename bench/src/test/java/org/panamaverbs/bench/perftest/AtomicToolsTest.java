package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.panamaverbs.verbs.Capability;
import org.panamaverbs.verbs.CapabilityVerdict;
import org.panamaverbs.verbs.WrOpcode;

import picocli.CommandLine;

/**
 * {@code ib_atomic_bw} and {@code ib_atomic_lat} before a device is opened: {@code -A}, perftest's checks of the size
 * and transport, the negotiated verb and atomic type, and the refusal of a device without atomics.
 */
class AtomicToolsTest {
    @Test
    void atomicTypesAreSpelledAsPerftestAndCarryItsCodes() {
        AtomicTools.Type cas = AtomicTools.Type.parse("CMP_AND_SWAP");
        AtomicTools.Type add = AtomicTools.Type.parse("FETCH_AND_ADD");
        assertEquals(0, cas.code);
        assertEquals(1, add.code);
        assertSame(WrOpcode.ATOMIC_CMP_AND_SWP, cas.opcode);
        assertSame(WrOpcode.ATOMIC_FETCH_AND_ADD, add.opcode);
        // perftest compares with strcmp: another spelling is an error there too
        PerftestException e = assertThrows(PerftestException.class, () -> AtomicTools.Type.parse("fetch_and_add"));
        assertTrue(e.getMessage().startsWith("Invalid Atomic type fetch_and_add!"), e.getMessage());
    }

    @Test
    void theBannerNamesTheOperationAsPerftestDoes() {
        assertEquals("Atomic FETCH_AND_ADD BW", AtomicTools.Type.FETCH_AND_ADD.title(true));
        assertEquals("Atomic CMP_AND_SWAP Latency", AtomicTools.Type.CMP_AND_SWAP.title(false));
    }

    @Test
    void fetchAndAddIsTheDefaultAndEightBytesTheSize() {
        AtomicBandwidth bw = new AtomicBandwidth();
        new CommandLine(bw).parseArgs("10.0.0.1");
        bw.validate();
        assertSame(WrOpcode.ATOMIC_FETCH_AND_ADD, bw.opcode());
        assertEquals(ParameterNegotiation.FETCH_AND_ADD, bw.atomicType());
        assertEquals(8, bw.defaultSize());
        assertEquals(1000, bw.defaultIterations()); // perftest's DEF_ITERS: only the WRITE bandwidth test runs 5000
        assertEquals(1000, new RdmaBandwidth.Read().defaultIterations());
        assertEquals(5000, new RdmaBandwidth.Write().defaultIterations());

        AtomicLatency lat = new AtomicLatency();
        new CommandLine(lat).parseArgs("-A", "CMP_AND_SWAP", "-s", "8", "10.0.0.1");
        lat.validate(); // -s 8 is the size itself, which perftest accepts
        assertEquals(ParameterNegotiation.CMP_AND_SWAP, lat.atomicType());
        assertEquals("Atomic CMP_AND_SWAP Latency", lat.title());
        assertTrue(lat.readTest(), "reads outstanding as ib_read_lat's");
    }

    @Test
    void otherSizesInlineDataAndOtherTransportsAreRefusedAsPerftestRefusesThem() {
        for (String tool : List.of("ib_atomic_bw", "ib_atomic_lat")) {
            CommandLineTest.assertOneLine(CommandLineTest.run(tool, "-s", "16"), 1,
                    "Message size cannot be changed for Atomic tests (-s 16", tool);
            CommandLineTest.assertOneLine(CommandLineTest.run(tool, "-a"), 1,
                    "Message size cannot be changed for Atomic tests (-a", tool);
            CommandLineTest.assertOneLine(CommandLineTest.run(tool, "-I", "8"), 1,
                    "Inline feature not available on READ/Atomic verbs", tool);
            CommandLineTest.assertOneLine(CommandLineTest.run(tool, "-c", "UC"), 1,
                    "UC connection not possible in READ/ATOMIC verbs", tool);
            CommandLineTest.assertOneLine(CommandLineTest.run(tool, "-c", "UD"), 1,
                    "UD connection only possible in SEND verb", tool);
            CommandLineTest.assertOneLine(CommandLineTest.run(tool, "-A", "SWAP"), 1,
                    "Invalid Atomic type SWAP! please choose from {CMP_AND_SWAP,FETCH_AND_ADD}", tool);
        }
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_atomic_lat", "-D", "2", "--json"), 1,
                "--json with -D", "ib_atomic_lat");
    }

    @Test
    void theAtomicTypeIsRefusedOnTheOtherTools() {
        CommandLineTest.Outcome outcome = CommandLineTest.run("ib_read_bw", "-A", "CMP_AND_SWAP", "127.0.0.1");
        CommandLineTest.assertOneLine(outcome, 1, "-A, --atomic_type is refused", "ib_read_bw");
        assertTrue(outcome.err().contains("(C perftest has it on ib_atomic_bw, ib_atomic_lat only)"), outcome.err());
    }

    @Test
    void theNegotiationCarriesVerbAtomicAndTheAtomicType() {
        ParameterNegotiation.Parameters cas = new ParameterNegotiation.Parameters(0, 0, ParameterNegotiation.ATOMIC, 1,
                ParameterNegotiation.CMP_AND_SWAP, 0, 1, 8, 200, 0, 1, 5, 0, 0, 0, 0, 0, 16);
        byte[] wire = ParameterNegotiation.encode(cas, PerftestDialectTest.attributes(),
                ParameterNegotiation.Layout.PERFTEST_26_01, ParameterNegotiation.RECORD_SIZE);
        assertEquals(5, wire[11]); // verb, the third big-endian int: ATOMIC is 5 in 26.01's VerbType
        assertEquals(0, wire[19]); // atomicType, the fifth: CMP_AND_SWAP
        ParameterNegotiation.Parameters back = ParameterNegotiation.decode(wire,
                ParameterNegotiation.Layout.PERFTEST_26_01, "perftest 26.01");
        assertEquals(cas, back);

        ParameterNegotiation.Parameters add = new ParameterNegotiation.Parameters(0, 0, ParameterNegotiation.ATOMIC, 1,
                ParameterNegotiation.FETCH_AND_ADD, 0, 1, 8, 200, 0, 1, 5, 0, 0, 0, 0, 0, 16);
        PerftestException e = assertThrows(PerftestException.class, () -> ParameterNegotiation.check(cas, add,
                ParameterNegotiation.Layout.PERFTEST_26_01, "perftest 26.01"));
        assertTrue(e.getMessage().startsWith("perftest 26.01 runs atomicType=FETCH_AND_ADD and this side CMP_AND_SWAP"
                + " (atomicType mismatch"), e.getMessage());
        assertTrue(e.getMessage().endsWith("-A: both sides must run the same atomic operation"), e.getMessage());
    }

    @Test
    void aDeviceWhoseGatesRefuseAtomicsIsRefusedWithTheGatesMessage() {
        // the message is the library's, whatever it says: the tool passes it on as its one line
        String gate = "ibv_post_send: not supported: this device is VMware PVRDMA HWv14-class, which has no atomic"
                + " operations; use a device with atomic support (rxe, mlx5)";
        List<CapabilityVerdict> pvrdma = List.of(
                new CapabilityVerdict(Capability.RC_QUEUE_PAIRS, CapabilityVerdict.Status.ALLOWED, "", null),
                new CapabilityVerdict(Capability.ATOMICS, CapabilityVerdict.Status.REFUSED, "", gate));
        assertEquals(gate, AtomicTools.refusal(pvrdma));
        List<CapabilityVerdict> rxe = List.of(
                new CapabilityVerdict(Capability.ATOMICS, CapabilityVerdict.Status.ALLOWED, "atomic_cap HCA", null));
        assertNull(AtomicTools.refusal(rxe));
        List<CapabilityVerdict> absent = List.of(
                new CapabilityVerdict(Capability.ATOMICS, CapabilityVerdict.Status.ABSENT, "atomic_cap NONE", null));
        assertEquals("not supported: atomics (atomic_cap NONE)", AtomicTools.refusal(absent));
    }
}
