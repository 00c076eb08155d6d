package org.panamaverbs.verbs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.panamaverbs.ffi.ibv_recv_wr;
import org.panamaverbs.ffi.ibv_send_wr;
import org.panamaverbs.ffi.ibv_sge;
import org.panamaverbs.ffi.ibv_wc;

/** The flyweights write (and read) exactly the bytes C code would, as gcc lays them out. */
class WorkRequestEncodingTest {
    /** Everything here loads libibverbs (a machine without rdma-core skips it, naming the package). */
    @BeforeAll
    static void needsLibibverbs() {
        RequiredTools.libibverbs();
    }

    private static byte[] bytes(MemorySegment segment, long offset, long size) {
        return segment.asSlice(offset, size).toArray(JAVA_BYTE);
    }

    @Test
    void sendRequestMatchesC() throws Exception {
        try (SendChain wrs = SendChain.allocate(3, 2)) {
            SendWorkRequest wr = wrs.get(1)
                    .wrId(0x1122334455667788L)
                    .opcode(WrOpcode.RDMA_WRITE_WITH_IMM)
                    .flags(SendFlags.SIGNALED | SendFlags.SOLICITED | SendFlags.FENCE)
                    .immediateData(0xCAFEBABE)
                    .remote(0x00007f0000001000L, 0xABCD1234)
                    .sge(0, new Sge(null, 0x7000_0000_1000L, 4096, 0x42))
                    .sge(1, new Sge(null, 0x7000_0000_3000L, 100, 0x43))
                    .numSge(2);
            long base = SendChain.WR_SIZE;
            long next = wrs.requests.get(JAVA_LONG, base + ibv_send_wr.next$offset());
            long sgList = wrs.requests.get(JAVA_LONG, base + ibv_send_wr.sg_list$offset());
            byte[] expected = CReference.bytes("send", 0x1122334455667788L, next, sgList, 2,
                    WrOpcode.RDMA_WRITE_WITH_IMM.code(), SendFlags.SIGNALED | SendFlags.SOLICITED | SendFlags.FENCE,
                    0xCAFEBABEL, 0x00007f0000001000L, 0xABCD1234L);
            assertArrayEquals(expected, bytes(wrs.requests, base, SendChain.WR_SIZE));
            assertArrayEquals(CReference.bytes("sge", 0x7000_0000_1000L, 4096, 0x42),
                    bytes(wrs.sges, wrs.sgeBase(1), WorkRequestChain.SGE_SIZE));
            assertArrayEquals(CReference.bytes("sge", 0x7000_0000_3000L, 100, 0x43),
                    bytes(wrs.sges, wrs.sgeBase(1) + WorkRequestChain.SGE_SIZE, WorkRequestChain.SGE_SIZE));
            assertEquals(0x1122334455667788L, wr.wrId());
            assertEquals(WrOpcode.RDMA_WRITE_WITH_IMM, wr.opcode());
            assertEquals(2, wr.numSge());
        }
    }

    @Test
    void udSendRequestMatchesC() throws Exception {
        try (SendChain wrs = SendChain.allocate(1, 0)) {
            SendWorkRequest wr = wrs.get(0).wrId(0x55).opcode(WrOpcode.SEND);
            wr.writeUd(0x0000_7f12_3456_7890L, 0x00ABCDEF, 0x11111111);
            wrs.requests.set(JAVA_LONG, ibv_send_wr.next$offset(), 0L); // C's request has no next
            assertArrayEquals(CReference.bytes("send-ud", 0x0000_7f12_3456_7890L, 0x00ABCDEFL, 0x11111111L, 0x55L),
                    bytes(wrs.requests, 0, SendChain.WR_SIZE));
        }
    }

    @Test
    void atomicSendRequestMatchesC() throws Exception {
        try (SendChain wrs = SendChain.allocate(1, 0)) {
            wrs.get(0).wrId(0x66).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).flags(SendFlags.SIGNALED)
                    .atomic(0x0000_7f00_0000_1008L, 0xA1B2C3D4, 0x0102030405060708L, 0x1112131415161718L);
            wrs.requests.set(JAVA_LONG, ibv_send_wr.next$offset(), 0L);
            assertArrayEquals(CReference.bytes("send-atomic", 0x0000_7f00_0000_1008L, 0x0102030405060708L,
                    0x1112131415161718L, 0xA1B2C3D4L, 0x66L, (long) SendFlags.SIGNALED),
                    bytes(wrs.requests, 0, SendChain.WR_SIZE));
        }
    }

    @Test
    void receiveRequestMatchesC() throws Exception {
        try (RecvChain wrs = RecvChain.allocate(2, 1)) {
            wrs.get(0).wrId(77).sge(0, new Sge(null, 0x1234_5000L, 64, 7)).numSge(1);
            long next = wrs.requests.get(JAVA_LONG, ibv_recv_wr.next$offset());
            long sgList = wrs.requests.get(JAVA_LONG, ibv_recv_wr.sg_list$offset());
            assertArrayEquals(CReference.bytes("recv", 77L, next, sgList, 1), bytes(wrs.requests, 0, RecvChain.WR_SIZE));
        }
    }

    @Test
    void chainIsLinkedAndEachRequestHasItsOwnScatterGatherArray() {
        try (SendChain wrs = SendChain.allocate(4, 3)) {
            long first = wrs.requests.address();
            for (int i = 0; i < 4; i++) {
                long base = i * SendChain.WR_SIZE;
                long next = wrs.requests.get(JAVA_LONG, base + ibv_send_wr.next$offset());
                assertEquals(i < 3 ? first + base + SendChain.WR_SIZE : 0L, next, "next of request " + i);
                long sgList = wrs.requests.get(JAVA_LONG, base + ibv_send_wr.sg_list$offset());
                assertEquals(wrs.sges.address() + i * 3 * ibv_sge.layout().byteSize(), sgList, "sg_list of request " + i);
            }
        }
    }

    @Test
    void postingFewerThanTheCapacityCutsTheChainUntilAnotherCountMovesTheCut() {
        try (SendChain wrs = SendChain.allocate(4, 1)) {
            long nextOf1 = SendChain.WR_SIZE + ibv_send_wr.next$offset();
            long nextOf2 = 2 * SendChain.WR_SIZE + ibv_send_wr.next$offset();
            long linked1 = wrs.requests.get(JAVA_LONG, nextOf1);
            long linked2 = wrs.requests.get(JAVA_LONG, nextOf2);
            wrs.cutFor(2);
            assertEquals(0L, wrs.requests.get(JAVA_LONG, nextOf1));
            assertEquals(linked2, wrs.requests.get(JAVA_LONG, nextOf2));
            wrs.cutFor(3); // the old cut is joined again, the new one made
            assertEquals(linked1, wrs.requests.get(JAVA_LONG, nextOf1));
            assertEquals(0L, wrs.requests.get(JAVA_LONG, nextOf2));
            wrs.cutFor(4); // the whole chain
            assertEquals(linked1, wrs.requests.get(JAVA_LONG, nextOf1));
            assertEquals(linked2, wrs.requests.get(JAVA_LONG, nextOf2));
            assertThrows(IndexOutOfBoundsException.class, () -> wrs.cutFor(0));
            assertThrows(IndexOutOfBoundsException.class, () -> wrs.cutFor(5));
        }
    }

    @Test
    void failedIndexComesFromBadWr() {
        try (SendChain wrs = SendChain.allocate(4, 1)) {
            wrs.recordResult(0, 4, false);
            assertEquals(-1, wrs.failedIndex());
            wrs.badRequestSlot().set(JAVA_LONG, 0, wrs.requests.address() + 2 * SendChain.WR_SIZE);
            wrs.recordResult(Errno.EINVAL, 4, false);
            assertEquals(2, wrs.failedIndex());
            assertEquals(Errno.EINVAL, wrs.lastResult());
        }
    }

    @Test
    void sendsAndReceivesShareTheBaseSetters() {
        try (SendChain sends = SendChain.allocate(2, 2); RecvChain recvs = RecvChain.allocate(2, 2)) {
            for (WorkRequest<?> wr : List.of(sends.get(1), recvs.get(1))) {
                wr.wrId(9).sge(0, new Sge(null, 0x1000, 10, 1)).sge(1, new Sge(null, 0x2000, 20, 2)).numSge(2);
                assertEquals(9, wr.wrId());
                assertEquals(2, wr.numSge());
                assertEquals(1, wr.index());
                assertEquals(30, wr.payloadLength());
            }
            assertEquals(0, sends.get(0).wrId(), "request 1's fields are its own");
            assertEquals(0, recvs.get(0).numSge());
            // The setters return the concrete type, so send-only setters still chain after shared ones.
            SendWorkRequest send = sends.get(0).wrId(4).numSge(0).opcode(WrOpcode.SEND);
            RecvWorkRequest recv = recvs.get(0).sge(0, new Sge(null, 0x3000, 8, 3)).numSge(1).wrId(5);
            assertEquals(WrOpcode.SEND, send.opcode());
            assertEquals(1, recv.numSge());
        }
    }

    @Test
    void scatterGatherBoundsAreChecked() {
        try (SendChain wrs = SendChain.allocate(1, 2)) {
            SendWorkRequest wr = wrs.get(0);
            assertThrows(IndexOutOfBoundsException.class, () -> wr.sge(2, new Sge(null, 1, 1, 1)));
            assertThrows(IndexOutOfBoundsException.class, () -> wr.numSge(3));
            assertThrows(IndexOutOfBoundsException.class, () -> wr.numSge(-1));
        }
    }

    @Test
    void closedChainRefusesUse() {
        SendChain wrs = SendChain.allocate(1, 1);
        wrs.close();
        wrs.close();
        assertThrows(IllegalStateException.class, () -> wrs.get(0).wrId(1));
    }

    @Test
    void completionIsDecodedAsCWroteIt() throws Exception {
        byte[] wc = CReference.bytes("wc", 0x0102030405060708L, WcStatus.REM_ACCESS_ERR.code(),
                WcOpcode.RECV_RDMA_WITH_IMM.code(), 0x99, 4096, 0xDEADBEEFL, 0x000abc, 0x000def,
                WorkCompletion.WC_WITH_IMM | 1, 0xfffe, 0x1234, 5, 3);
        assertEquals(ibv_wc.layout().byteSize(), wc.length);
        try (CompletionArray wcs = CompletionArray.allocate(2)) {
            MemorySegment.copy(MemorySegment.ofArray(wc), 0, wcs.arrayForPoll(), CompletionArray.WC_SIZE, wc.length);
            wcs.setCount(2);
            WorkCompletion c = wcs.get(1);
            assertEquals(0x0102030405060708L, c.wrId());
            assertEquals(WcStatus.REM_ACCESS_ERR, c.status());
            assertFalse(c.isSuccess());
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, c.opcode());
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM.code(), c.opcodeCode());
            assertEquals(0x99, c.vendorError());
            assertEquals(4096, c.byteLength());
            assertTrue(c.hasImmediateData());
            assertEquals(0xDEADBEEF, c.immediateData());
            assertEquals(0xabc, c.qpNumber());
            assertEquals(0xdef, c.sourceQp());
            assertEquals(0xfffe, c.pkeyIndex());
            assertEquals(0x1234, c.sourceLid());
            assertEquals(5, c.serviceLevel());
            assertEquals(3, c.dlidPathBits());
            assertThrows(IndexOutOfBoundsException.class, () -> wcs.get(2));
        }
    }

    @Test
    void heapCopyDecodesEveryFieldAsTheFlyweight() throws Exception {
        byte[] wc = CReference.bytes("wc", 0x0102030405060708L, WcStatus.REM_ACCESS_ERR.code(),
                WcOpcode.RECV_RDMA_WITH_IMM.code(), 0x99, 4096, 0xDEADBEEFL, 0x000abc, 0x000def,
                WorkCompletion.WC_WITH_IMM | 1, 0xfffe, 0x1234, 5, 3);
        try (CompletionArray wcs = CompletionArray.allocate(2)) {
            MemorySegment.copy(MemorySegment.ofArray(wc), 0, wcs.arrayForPoll(), CompletionArray.WC_SIZE, wc.length);
            wcs.setCount(2);
            WorkCompletion c = wcs.get(1);
            CompletionCopy copy = new CompletionCopy();
            assertSame(copy, c.copyTo(copy));
            assertEquals(0x0102030405060708L, copy.wrId());
            assertEquals(WcStatus.REM_ACCESS_ERR, copy.status());
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM.code(), copy.opcodeCode());
            assertEquals(0x99, copy.vendorError());
            assertEquals(4096, copy.byteLength());
            assertEquals(0xDEADBEEF, copy.immediateData());
            assertEquals(0xabc, copy.qpNumber());
            assertEquals(0xdef, copy.sourceQp());
            assertEquals(WorkCompletion.WC_WITH_IMM | 1, copy.flags());
            assertEquals(0xfffe, copy.pkeyIndex());
            assertEquals(0x1234, copy.sourceLid());
            assertEquals(5, copy.serviceLevel());
            assertEquals(3, copy.dlidPathBits());
            // the copy outlives the array's next contents
            wcs.arrayForPoll().fill((byte) 0);
            assertEquals(0x0102030405060708L, copy.wrId());
            assertEquals(0, c.wrId());
            // and is overwritten by the next copy
            wcs.get(0).copyTo(copy);
            assertEquals(0, copy.wrId());
            assertEquals(0, copy.byteLength());
        }
    }

    @Test
    void opcodeNoConstantHasKeepsItsNumber() throws Exception {
        // an error completion's opcode is undefined, and a provider may use a number this library has no name for
        byte[] wc = CReference.bytes("wc", 7L, WcStatus.WR_FLUSH_ERR.code(), 0x7777, 0, 0, 0L, 1, 0, 0, 0, 0, 0, 0);
        try (CompletionArray wcs = CompletionArray.allocate(1)) {
            MemorySegment.copy(MemorySegment.ofArray(wc), 0, wcs.arrayForPoll(), 0, wc.length);
            wcs.setCount(1);
            WorkCompletion c = wcs.get(0);
            assertEquals(WcOpcode.UNKNOWN, c.opcode());
            assertEquals(0x7777, c.opcodeCode());
            assertEquals(WcStatus.WR_FLUSH_ERR, c.status());
        }
    }
}
