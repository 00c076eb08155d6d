package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.panamaverbs.internal.VerbsSymbols;

/**
 * The fallbacks for rdma-core 17 to 31 on the real device: a context opened with {@code _ibv_query_gid_table} and
 * {@code ibv_reg_mr_iova2} hidden from the installed libibverbs ({@link OlderRdmaCore}) reads the same GID table as
 * the library's own call (slot by slot, types and network devices from sysfs), detects the same profile, registers
 * memory through {@code ibv_reg_mr} that RDMA WRITE and SEND then move bytes through, and refuses the one
 * registration with no fallback in one line. Also: the library the JVM loaded is the rdma-core the run asked for
 * ({@code PANAMA_VERBS_EXPECT_RDMA_CORE}, set by scripts/test-all for each version it runs).
 */
class OlderRdmaCoreDeviceTest extends DeviceTest {

    @Test
    void runsOnTheExpectedRdmaCore() {
        String expected = System.getenv("PANAMA_VERBS_EXPECT_RDMA_CORE");
        assumeTrue(expected != null && !expected.isBlank(), "PANAMA_VERBS_EXPECT_RDMA_CORE names no version to expect");
        RdmaCore library = Rdma.rdmaCore();
        System.out.println("[rdma-core] " + library);
        assertEquals(expected, library.version(), library.toString());
    }

    @Test
    void gidTablesAndProfileAreTheSameThroughTheFallback() {
        try (Context older = Rdma.open(context.name(), null, OlderRdmaCore.symbols(null))) {
            for (int port = 1; port <= context.attributes().physicalPortCount(); port++) {
                List<GidEntry> table = context.gidTable(port);
                assertFalse(table.isEmpty(), "port " + port + " has GIDs");
                assertEquals(table, older.gidTable(port), "port " + port);
                assertEquals(context.defaultGidIndex(port), older.defaultGidIndex(port));
                for (GidEntry entry : table) {
                    assertNotEquals(GidType.UNKNOWN, entry.type(), entry.toString());
                    assertEquals(entry.gid(), older.gid(port, entry.index()));
                }
            }
            assertEquals(context.profile().hardwareClass(), older.profile().hardwareClass());
            assertEquals(context.profile().reasons(), older.profile().reasons());
        }
    }

    @Test
    void regionsRegisterThroughIbvRegMrAndCarryWritesAndSends() {
        try (Context older = Rdma.open(context.name(), null, OlderRdmaCore.symbols(null));
             ProtectionDomain olderPd = older.allocateProtectionDomain();
             Loopback l = new Loopback(older, olderPd, 16384, 1, QpConnectOptions.defaults())) {
            assertTrue(l.mrA.lkey() != 0 || l.mrA.rkey() != 0, "keys from ibv_reg_mr");
            fill(l.mrA, 0, 8192, 11);
            l.sends.get(0).wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(l.mrA, 0, 8192)
                    .remote(l.mrB.address() + 4096, l.mrB.rkey());
            l.a.postSendOrThrow(l.sends, 1);
            Done write = await(l.cqA, 1).getFirst();
            assertEquals(WcStatus.SUCCESS, write.status());
            assertEquals(WcOpcode.RDMA_WRITE, write.opcode());
            assertArrayEquals(bytes(l.mrA, 0, 8192), bytes(l.mrB, 4096, 8192));

            fill(l.mrA, 0, 3000, 12);
            l.recvs.get(0).wrId(20).sge(l.mrB, 0, 4096);
            l.b.postRecvOrThrow(l.recvs, 1);
            l.sends.get(0).wrId(2).opcode(WrOpcode.SEND_WITH_IMM).flags(SendFlags.SIGNALED).immediateData(0x0DDBA11)
                    .sge(l.mrA, 0, 3000);
            l.a.postSendOrThrow(l.sends, 1);
            assertEquals(WcStatus.SUCCESS, await(l.cqA, 1).getFirst().status());
            Done received = await(l.cqB, 1).getFirst();
            assertEquals(20, received.wrId());
            assertEquals(3000, received.byteLength());
            assertEquals(0x0DDBA11, received.imm());
            assertArrayEquals(bytes(l.mrA, 0, 3000), bytes(l.mrB, 0, 3000));
        }
    }

    @Test
    void relaxedOrderingNeedsIova2AndIsRefusedInOneLineWithoutIt() {
        int relaxed = Access.bits(Access.LOCAL_WRITE, Access.RELAXED_ORDERING);
        try (Context older = Rdma.open(context.name(), null, OlderRdmaCore.symbols(null));
             ProtectionDomain olderPd = older.allocateProtectionDomain()) {
            UnsupportedVerbException refused = assertThrows(UnsupportedVerbException.class,
                    () -> olderPd.allocateAndRegister(4096, Access.LOCAL_WRITE, Access.RELAXED_ORDERING));
            assertEquals(1, refused.getMessage().lines().count(), refused.getMessage());
            assertTrue(refused.getMessage().startsWith("ibv_reg_mr failed: not supported: access 0x" + Integer.toHexString(relaxed)
                    + " with an optional flag (RELAXED_ORDERING) needs ibv_reg_mr_iova2 (IBVERBS_1.8, rdma-core 28 or later)"),
                    refused.getMessage());
            assertTrue(olderPd.dependents().isEmpty(), "nothing registered");
            try (MemoryRegion plain = olderPd.allocateAndRegister(4096, Access.LOCAL_WRITE)) {
                assertEquals(Access.LOCAL_WRITE.bit(), plain.access());
            }
        }
        if (VerbsSymbols.system().handle(VerbsSymbols.Newer.REG_MR_IOVA2) != null) {
            try (MemoryRegion withIova2 = pd.allocateAndRegister(4096, Access.LOCAL_WRITE, Access.RELAXED_ORDERING)) {
                assertEquals(relaxed, withIova2.access());
            }
        }
    }
}
