package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** UD queue pairs and address handles: datagrams with the GRH accounted for, and the refusals. */
class UnreliableDatagramDeviceTest extends DeviceTest {
    private static final int QKEY = 0x11111111;

    /** Two UD queue pairs on the device and an address handle from one to the other. */
    private static final class UdPair implements AutoCloseable {
        final CompletionQueue cqA = context.createCompletionQueue(32);
        final CompletionQueue cqB = context.createCompletionQueue(32);
        final QueuePair a = pd.createQueuePair(QpConfig.builder(cqA).type(QpType.UD).build());
        final QueuePair b = pd.createQueuePair(QpConfig.builder(cqB).type(QpType.UD).build());
        final AddressHandle toB;
        final MemoryRegion mr = pd.allocateAndRegister(64 * 1024, Access.LOCAL_WRITE);
        final SendChain sends = SendChain.allocate(4, 1);
        final RecvChain recvs = RecvChain.allocate(4, 1);

        UdPair() {
            a.readyForDatagrams(QKEY);
            b.readyForDatagrams(QKEY);
            toB = pd.createAddressHandle(AddressHandle.Target.of(b.localEndpoint().gid(), a.gidIndex(), 1));
        }

        @Override
        public void close() {
            sends.close();
            recvs.close();
            toB.close();
            a.close();
            b.close();
            mr.close();
            cqA.close();
            cqB.close();
        }
    }

    @Test
    void datagramsArriveAfterTheGrhWithTheSenderIdentified() {
        try (UdPair p = new UdPair()) {
            int mtu = p.a.maxDatagramSize();
            assertTrue(mtu >= 256, "path MTU " + mtu);
            int[] sizes = {1, 200, mtu};
            for (int i = 0; i < 3; i++) {
                p.recvs.get(i).wrId(10 + i).sge(p.mr, 32768 + i * 8192L, Grh.SIZE + mtu);
            }
            p.b.postRecvOrThrow(p.recvs, 3);
            for (int i = 0; i < 3; i++) {
                fill(p.mr, i * 8192L, sizes[i], 80 + i);
                p.sends.get(i).wrId(i).opcode(i == 1 ? WrOpcode.SEND_WITH_IMM : WrOpcode.SEND).flags(SendFlags.SIGNALED)
                        .immediateData(0x5150).sge(p.mr, i * 8192L, sizes[i]).ud(p.toB, p.b.qpNumber(), QKEY);
            }
            p.a.postSendOrThrow(p.sends, 3);
            assertTrue(await(p.cqA, 3).stream().allMatch(d -> d.status() == WcStatus.SUCCESS));
            try (CompletionArray wcs = CompletionArray.allocate(4)) {
                int got = 0;
                long deadline = System.nanoTime() + COMPLETION_TIMEOUT.toNanos();
                while (got < 3 && System.nanoTime() < deadline) {
                    int n = p.cqB.poll(wcs);
                    for (int k = 0; k < n; k++, got++) {
                        WorkCompletion wc = wcs.get(k);
                        int i = (int) wc.wrId() - 10;
                        assertEquals(WcStatus.SUCCESS, wc.status());
                        assertEquals(WcOpcode.RECV, wc.opcode());
                        assertTrue(wc.hasGrh(), "UD receives carry a GRH");
                        assertEquals(Grh.SIZE + sizes[i], wc.byteLength(), "byte_len counts the GRH");
                        assertEquals(p.a.qpNumber(), wc.sourceQp());
                        assertEquals(i == 1, wc.hasImmediateData());
                        long buffer = 32768 + i * 8192L;
                        assertArrayEquals(bytes(p.mr, i * 8192L, sizes[i]), bytes(p.mr, buffer + Grh.SIZE, sizes[i]));
                        assertEquals(p.a.localEndpoint().gid(), Grh.sourceGid(p.mr.segment(), buffer));
                    }
                }
                assertEquals(3, got);
            }
        }
    }

    @Test
    void anAddressHandlesTrafficClassReachesTheReceiversHeader() {
        try (UdPair p = new UdPair();
             AddressHandle marked = pd.createAddressHandle(p.toB.target().withGrh(0x68, 0x12345))) {
            p.recvs.get(0).wrId(20).sge(p.mr, 32768, Grh.SIZE + 300);
            p.b.postRecvOrThrow(p.recvs, 1);
            fill(p.mr, 0, 300, 93);
            p.sends.get(0).wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(p.mr, 0, 300)
                    .ud(marked, p.b.qpNumber(), QKEY);
            p.a.postSendOrThrow(p.sends, 1);
            assertEquals(WcStatus.SUCCESS, await(p.cqA, 1).getFirst().status());
            Done received = await(p.cqB, 1).getFirst();
            assertEquals(WcStatus.SUCCESS, received.status());
            assertArrayEquals(bytes(p.mr, 0, 300), bytes(p.mr, 32768 + Grh.SIZE, 300));
            assertEquals(0x68, Grh.trafficClass(p.mr.segment(), 32768), "the IPv4 TOS or GRH traffic class on the wire");
        }
        assertThrows(IllegalArgumentException.class, () -> AddressHandle.Target.of(Gid.of(new byte[16]), 0, 1).withGrh(0, 0x100000));
    }

    @Test
    void datagramsLargerThanThePathMtuAreRefused() {
        try (UdPair p = new UdPair()) {
            int mtu = p.a.maxDatagramSize();
            p.sends.get(0).wrId(1).opcode(WrOpcode.SEND).sge(p.mr, 0, mtu + 1).ud(p.toB, p.b.qpNumber(), QKEY);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.a.postSend(p.sends, 1));
            assertTrue(e.getMessage().contains("path MTU"), e.getMessage());
        }
    }

    @Test
    void udSendsWithoutOrWithAClosedAddressHandleNeverReachTheProvider() {
        try (UdPair p = new UdPair()) {
            p.sends.get(0).wrId(1).opcode(WrOpcode.SEND).sge(p.mr, 0, 16);
            IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> p.a.postSend(p.sends, 1));
            assertTrue(none.getMessage().contains("no address handle"), none.getMessage());
            AddressHandle soon = pd.createAddressHandle(p.toB.target());
            p.sends.get(0).ud(soon, p.b.qpNumber(), QKEY);
            soon.close();
            assertThrows(IllegalStateException.class, () -> p.a.postSend(p.sends, 1));
            assertThrows(IllegalStateException.class, () -> p.sends.get(1).ud(soon, 1, QKEY));
        }
    }

    @Test
    void addressHandlesNeedAPopulatedGidIndexAndARealPort() {
        Gid own = context.gidTable(1).getFirst().gid();
        VerbsException badIndex = assertThrows(VerbsException.class,
                () -> pd.createAddressHandle(AddressHandle.Target.of(own, 4000, 1)));
        assertEquals("ENODATA", badIndex.errnoName());
        assertThrows(IllegalArgumentException.class, () -> pd.createAddressHandle(AddressHandle.Target.of(own, 0, 7)));
        try (UdPair p = new UdPair()) {
            assertThrows(IllegalStateException.class, () -> p.a.connect(p.b.localEndpoint()));
            List<GidEntry> table = context.gidTable(1);
            try (AddressHandle ah = pd.createAddressHandle(AddressHandle.Target.of(table.getFirst().gid(), table.getFirst().index(), 1))) {
                assertEquals(table.getFirst().gid(), ah.target().gid());
            }
        }
    }
}
