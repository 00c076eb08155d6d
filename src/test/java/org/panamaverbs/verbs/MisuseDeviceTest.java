package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

/**
 * Misuse of the public API, one case each: every case ends in its documented exception or error
 * completion, and none may crash the JVM (a crash would end the whole device run).
 */
class MisuseDeviceTest extends DeviceTest {

    /** A fresh context tree per case, so closing things never disturbs the other cases. */
    private static final class Tree implements AutoCloseable {
        final Context ctx = Rdma.open(context.name());
        final ProtectionDomain pd = ctx.allocateProtectionDomain();
        final CompletionChannel channel = ctx.createCompletionChannel();
        final CompletionQueue cq = ctx.createCompletionQueue(64, channel);
        final QueuePair qp = pd.createQueuePair(QpConfig.builder(cq).capabilities(QpCapabilities.of(8, 8)).build());
        final MemoryRegion mr = pd.allocateAndRegister(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        final SendChain sends = SendChain.allocate(64, 2);
        final RecvChain recvs = RecvChain.allocate(4, 1);
        final CompletionArray wcs = CompletionArray.allocate(4);

        @Override
        public void close() {
            sends.close();
            recvs.close();
            wcs.close();
            ctx.close();
        }
    }

    private static DynamicTest misuse(String name, Consumer<Tree> body) {
        return dynamicTest(name, () -> {
            try (Tree t = new Tree()) {
                body.accept(t);
            }
        });
    }

    private static <T extends Throwable> T expect(Class<T> type, Executable call) {
        return assertThrows(type, call);
    }

    @TestFactory
    Stream<DynamicTest> everyMisuseEndsInItsDocumentedError() {
        List<DynamicTest> cases = new ArrayList<>();
        // use after close, for every object type
        cases.add(misuse("context: queryPort after close", t -> {
            t.ctx.close();
            expect(IllegalStateException.class, () -> t.ctx.queryPort(1));
        }));
        cases.add(misuse("context: allocate PD after close", t -> {
            t.ctx.close();
            expect(IllegalStateException.class, t.ctx::allocateProtectionDomain);
        }));
        cases.add(misuse("context: create CQ after close", t -> {
            t.ctx.close();
            expect(IllegalStateException.class, () -> t.ctx.createCompletionQueue(4));
        }));
        cases.add(misuse("context: create channel after close", t -> {
            t.ctx.close();
            expect(IllegalStateException.class, t.ctx::createCompletionChannel);
        }));
        cases.add(misuse("context: async event after close", t -> {
            t.ctx.close();
            expect(IllegalStateException.class, () -> t.ctx.awaitAsyncEvent(Duration.ofMillis(1)));
        }));
        cases.add(misuse("PD: register after close", t -> {
            t.pd.close();
            expect(IllegalStateException.class, () -> t.pd.allocateAndRegister(64, Access.LOCAL_WRITE));
        }));
        cases.add(misuse("PD: create QP after close", t -> {
            t.pd.close();
            expect(IllegalStateException.class, () -> t.pd.createQueuePair(QpConfig.builder(t.cq).build()));
        }));
        cases.add(misuse("PD: create SRQ after close", t -> {
            t.pd.close();
            expect(IllegalStateException.class, () -> t.pd.createSharedReceiveQueue(4, 1));
        }));
        cases.add(misuse("PD: create AH after close", t -> {
            Gid gid = t.ctx.gidTable(1).getFirst().gid();
            t.pd.close();
            expect(IllegalStateException.class, () -> t.pd.createAddressHandle(AddressHandle.Target.of(gid, 0, 1)));
        }));
        cases.add(misuse("MR: keys after close", t -> {
            t.mr.close();
            expect(IllegalStateException.class, t.mr::lkey);
            expect(IllegalStateException.class, t.mr::rkey);
        }));
        cases.add(misuse("MR: SGE from a closed region", t -> {
            t.mr.close();
            expect(IllegalStateException.class, () -> t.sends.get(0).sge(t.mr, 0, 8));
        }));
        cases.add(misuse("CQ: poll after close", t -> {
            t.cq.close();
            expect(IllegalStateException.class, () -> t.cq.poll(t.wcs));
        }));
        cases.add(misuse("CQ: arm after close", t -> {
            t.cq.close();
            expect(IllegalStateException.class, () -> t.cq.requestNotification(false));
        }));
        cases.add(misuse("channel: wait after close", t -> {
            t.channel.close();
            expect(IllegalStateException.class, () -> t.channel.awaitEvent(Duration.ofMillis(1)));
        }));
        cases.add(misuse("QP: post send after close", t -> {
            t.sends.get(0).opcode(WrOpcode.SEND).sge(t.mr, 0, 8);
            t.qp.close();
            expect(IllegalStateException.class, () -> t.qp.postSend(t.sends, 1));
        }));
        cases.add(misuse("QP: post receive after close", t -> {
            t.recvs.get(0).sge(t.mr, 0, 8);
            t.qp.close();
            expect(IllegalStateException.class, () -> t.qp.postRecv(t.recvs, 1));
        }));
        cases.add(misuse("QP: query and modify after close", t -> {
            t.qp.close();
            expect(IllegalStateException.class, t.qp::state);
            expect(IllegalStateException.class, () -> t.qp.modifyToInit(0));
        }));
        cases.add(misuse("SRQ: post after close", t -> {
            assumeTrue(t.ctx.attributes().maxSrq() > 0, "the device has no shared receive queues");
            SharedReceiveQueue srq = t.pd.createSharedReceiveQueue(4, 1);
            t.recvs.get(0).sge(t.mr, 0, 8);
            srq.close();
            expect(IllegalStateException.class, () -> srq.postRecv(t.recvs, 1));
        }));
        cases.add(misuse("AH: naming a closed handle in a request", t -> {
            GidEntry entry = t.ctx.gidTable(1).getFirst();
            AddressHandle ah = t.pd.createAddressHandle(AddressHandle.Target.of(entry.gid(), entry.index(), 1));
            ah.close();
            expect(IllegalStateException.class, () -> t.sends.get(0).ud(ah, 1, 1));
        }));
        cases.add(misuse("work requests: post a closed chain", t -> {
            QueuePair.connectLoopback(t.qp, t.qp);
            t.sends.close();
            expect(IllegalStateException.class, () -> t.qp.postSend(t.sends, 1));
        }));
        cases.add(misuse("completions: poll into a closed array", t -> {
            t.wcs.close();
            expect(IllegalStateException.class, () -> t.cq.poll(t.wcs));
        }));
        // double close and closing parents with live children
        cases.add(misuse("double close of every object type", t -> {
            for (AutoCloseable c : new AutoCloseable[] {t.qp, t.mr, t.cq, t.channel, t.pd, t.ctx, t.sends, t.recvs, t.wcs}) {
                assertDoesNotThrow(c::close);
                assertDoesNotThrow(c::close);
            }
        }));
        cases.add(misuse("closing the context with live children closes them first", t -> {
            t.ctx.close();
            assertTrue(t.qp.isClosed() && t.mr.isClosed() && t.cq.isClosed() && t.channel.isClosed() && t.pd.isClosed());
        }));
        cases.add(misuse("closing the PD with live children closes them first", t -> {
            t.pd.close();
            assertTrue(t.qp.isClosed() && t.mr.isClosed());
            assertTrue(!t.cq.isClosed(), "the CQ belongs to the context, not the PD");
        }));
        cases.add(misuse("closing the channel closes its CQ and that CQ's QP", t -> {
            t.channel.close();
            assertTrue(t.cq.isClosed() && t.qp.isClosed());
        }));
        // posting in the wrong state
        cases.add(misuse("post send on a QP in RESET returns an errno", t -> {
            t.sends.get(0).wrId(1).opcode(WrOpcode.SEND).sge(t.mr, 0, 8);
            assertNotEquals(0, t.qp.postSend(t.sends, 1));
            int failed = t.sends.failedIndex();
            assertTrue(failed == 0 || failed == -1, "request 0, or none named (rxe: the kernel refuses the doorbell); not " + failed);
        }));
        cases.add(misuse("post send on a QP in INIT returns an errno", t -> {
            t.qp.modifyToInit(Access.bits(Access.LOCAL_WRITE));
            t.sends.get(0).wrId(1).opcode(WrOpcode.SEND).sge(t.mr, 0, 8);
            assertNotEquals(0, t.qp.postSend(t.sends, 1));
        }));
        cases.add(misuse("postSendOrThrow names the verb and the refused request", t -> {
            t.sends.get(0).wrId(1).opcode(WrOpcode.SEND).sge(t.mr, 0, 8);
            VerbsException e = expect(VerbsException.class, () -> t.qp.postSendOrThrow(t.sends, 1));
            assertEquals("ibv_post_send", e.verb());
        }));
        cases.add(misuse("connecting a connected QP again fails in ibv_modify_qp", t -> {
            QueuePair.connectLoopback(t.qp, t.qp);
            VerbsException e = expect(VerbsException.class, () -> t.qp.connect(t.qp.localEndpoint()));
            assertEquals("ibv_modify_qp", e.verb());
        }));
        // memory and scatter-gather
        cases.add(misuse("SGE past the end of its region", t ->
                expect(IndexOutOfBoundsException.class, () -> t.sends.get(0).sge(t.mr, 4090, 16))));
        cases.add(misuse("SGE at a negative offset", t ->
                expect(IndexOutOfBoundsException.class, () -> t.sends.get(0).sge(t.mr, -1, 16))));
        cases.add(misuse("more SGEs than the chain holds", t ->
                expect(IndexOutOfBoundsException.class, () -> t.sends.get(0).sge(2, t.mr, 0, 8))));
        cases.add(misuse("num_sge above the chain's room", t ->
                expect(IndexOutOfBoundsException.class, () -> t.sends.get(0).numSge(3))));
        cases.add(misuse("more SGEs than the QP allows returns EINVAL with the failed request", t -> {
            QueuePair.connectLoopback(t.qp, t.qp);
            int allowed = t.qp.capabilities().maxSendSge();
            assumeTrue(allowed < 2, "the queue pair was granted " + allowed + " entries per send, room for the chain's 2");
            t.sends.get(0).opcode(WrOpcode.SEND).sge(0, t.mr, 0, 8).sge(1, t.mr, 8, 8).numSge(2);
            assertNotEquals(0, t.qp.postSend(t.sends, 1));
        }));
        // entries written once and posted later: the region may have closed in between
        cases.add(misuse("posting a send whose entry names a region closed since it was written", t -> {
            QueuePair.connectLoopback(t.qp, t.qp);
            MemoryRegion gone = t.pd.allocateAndRegister(4096, Access.LOCAL_WRITE);
            t.sends.get(0).wrId(1).opcode(WrOpcode.SEND).sge(gone, 0, 8);
            gone.close();
            expect(IllegalStateException.class, () -> t.qp.postSend(t.sends, 1));
        }));
        cases.add(misuse("posting an inline send from a region closed after an earlier post", t -> {
            QueuePair.connectLoopback(t.qp, t.qp);
            assumeTrue(t.qp.capabilities().maxInlineData() >= 8, "the queue pair has no inline room");
            MemoryRegion gone = t.pd.allocateAndRegister(4096, Access.LOCAL_WRITE);
            t.recvs.get(0).wrId(2).sge(t.mr, 0, 64);
            assertEquals(0, t.qp.postRecv(t.recvs, 1));
            t.sends.get(0).wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED | SendFlags.INLINE).sge(gone, 0, 8);
            assertEquals(0, t.qp.postSend(t.sends, 1)); // checked and posted once: the fast path is armed
            assertEquals(2, await(t.cq, 2).size());
            gone.close(); // the provider would copy the inline bytes from freed memory
            expect(IllegalStateException.class, () -> t.qp.postSend(t.sends, 1));
        }));
        cases.add(misuse("posting a receive into a region closed since it was written", t -> {
            MemoryRegion gone = t.pd.allocateAndRegister(4096, Access.LOCAL_WRITE);
            t.recvs.get(0).sge(gone, 0, 64);
            gone.close();
            expect(IllegalStateException.class, () -> t.qp.postRecv(t.recvs, 1));
        }));
        cases.add(misuse("posting a receive into memory whose arena the caller closed", t -> {
            QueuePair.connectLoopback(t.qp, t.qp);
            Arena arena = Arena.ofShared();
            MemoryRegion mr = t.pd.register(arena, arena.allocate(4096), Access.LOCAL_WRITE);
            t.recvs.get(0).sge(mr, 0, 64);
            assertEquals(0, t.qp.postRecv(t.recvs, 1));
            arena.close(); // deregisters first: else the device would write into memory malloc may hand out again
            expect(IllegalStateException.class, () -> t.qp.postRecv(t.recvs, 1));
        }));
        cases.add(misuse("an Sge kept after its region closed", t -> {
            MemoryRegion gone = t.pd.allocateAndRegister(4096, Access.LOCAL_WRITE);
            Sge kept = gone.sge(0, 8);
            gone.close();
            expect(IllegalStateException.class, () -> t.sends.get(0).sge(0, kept));
        }));
        cases.add(misuse("an entry naming a region of another device context", t -> {
            try (Context other = Rdma.open(context.name())) {
                MemoryRegion foreign = other.allocateProtectionDomain().allocateAndRegister(4096, Access.LOCAL_WRITE);
                t.recvs.get(0).sge(foreign, 0, 8);
                expect(IllegalArgumentException.class, () -> t.qp.postRecv(t.recvs, 1));
            }
        }));
        cases.add(misuse("a post refused by a check leaves the chain whole for the next post", t -> {
            QueuePair.connectLoopback(t.qp, t.qp);
            MemoryRegion gone = t.pd.allocateAndRegister(4096, Access.LOCAL_WRITE);
            t.recvs.get(0).wrId(1).sge(t.mr, 0, 64);
            t.recvs.get(1).wrId(2).sge(gone, 0, 64);
            gone.close();
            expect(IllegalStateException.class, () -> t.qp.postRecv(t.recvs, 2));
            t.recvs.get(1).sge(t.mr, 64, 64);
            assertEquals(0, t.qp.postRecv(t.recvs, 2));
            assertEquals(-1, t.recvs.failedIndex());
            t.sends.get(0).wrId(3).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(t.mr, 256, 8);
            t.sends.get(1).wrId(4).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(t.mr, 256, 8);
            assertEquals(0, t.qp.postSend(t.sends, 2));
            List<Long> ids = await(t.cq, 4).stream().map(Done::wrId).sorted().toList();
            assertEquals(List.of(1L, 2L, 3L, 4L), ids, "both receives of the chain were posted");
        }));
        cases.add(misuse("region on a closed arena", t -> {
            Arena arena = Arena.ofConfined();
            MemorySegment dead = arena.allocate(4096);
            arena.close();
            expect(IllegalStateException.class, () -> t.pd.register(dead, Access.LOCAL_WRITE));
        }));
        cases.add(misuse("region over memory of an arena that can close, without the arena", t -> {
            try (Arena arena = Arena.ofShared()) {
                IllegalArgumentException e = expect(IllegalArgumentException.class,
                        () -> t.pd.register(arena.allocate(4096), Access.LOCAL_WRITE));
                assertTrue(e.getMessage().contains("register(arena, segment)"), e.getMessage());
            }
        }));
        cases.add(misuse("region memory freed while registered", t -> {
            Arena arena = Arena.ofShared();
            MemoryRegion mr = t.pd.register(arena, arena.allocate(4096), Access.LOCAL_WRITE);
            arena.close(); // closes the region before it frees the memory
            expect(IllegalStateException.class, () -> t.sends.get(0).sge(mr, 0, 8));
        }));
        cases.add(misuse("zero-length registration", t -> {
            try (Arena arena = Arena.ofConfined()) {
                expect(IllegalArgumentException.class, () -> t.pd.register(arena.allocate(0), Access.LOCAL_WRITE));
            }
            expect(IllegalArgumentException.class, () -> t.pd.allocateAndRegister(0, Access.LOCAL_WRITE));
        }));
        cases.add(misuse("registration of a heap segment", t ->
                expect(IllegalArgumentException.class, () -> t.pd.register(MemorySegment.ofArray(new long[512])))));
        cases.add(misuse("oversized registration over unmapped memory fails in ibv_reg_mr", t -> {
            MemorySegment unmapped = MemorySegment.ofAddress(1L << 46).reinterpret(1L << 30);
            VerbsException e = expect(VerbsException.class, () -> t.pd.register(unmapped, Access.LOCAL_WRITE));
            assertEquals("ibv_reg_mr", e.verb());
        }));
        // queue capacities
        cases.add(misuse("more work requests than the send queue holds returns ENOMEM", t -> {
            QueuePair.connectLoopback(t.qp, t.qp);
            int depth = t.qp.capabilities().maxSendWr();
            int chain = t.sends.capacity(); // 64, far beyond the 8 asked (providers may round the ring up)
            for (int i = 0; i < chain; i++) {
                t.sends.get(i).wrId(i).opcode(WrOpcode.RDMA_WRITE).flags(0).sge(t.mr, 0, 8).remote(t.mr.address() + 64, t.mr.rkey());
            }
            int rc = t.qp.postSend(t.sends, chain);
            assertEquals(Errno.ENOMEM, rc, "errno " + Errno.describe(rc));
            assertTrue(t.sends.failedIndex() >= depth, "the ring took at least the granted " + depth + " requests, refused at "
                    + t.sends.failedIndex());
        }));
        cases.add(misuse("queue pair larger than the device allows", t ->
                expect(IllegalArgumentException.class, () -> t.pd.createQueuePair(
                        QpConfig.builder(t.cq)
                                .capabilities(QpCapabilities.defaults().withMaxSendWr(t.ctx.attributes().maxQpWr() + 1))
                                .build()))));
        cases.add(misuse("completion queue of zero or too many entries", t -> {
            expect(IllegalArgumentException.class, () -> t.ctx.createCompletionQueue(0));
            expect(IllegalArgumentException.class, () -> t.ctx.createCompletionQueue(t.ctx.attributes().maxCqe() + 1));
        }));
        cases.add(misuse("polling more than the completion array holds", t ->
                expect(IndexOutOfBoundsException.class, () -> t.cq.poll(t.wcs, 5))));
        cases.add(misuse("reading a completion slot that was not polled", t ->
                expect(IndexOutOfBoundsException.class, () -> t.wcs.get(0))));
        cases.add(misuse("unsupported queue pair type", t ->
                expect(UnsupportedVerbException.class, () -> t.pd.createQueuePair(
                        QpConfig.builder(t.cq).type(QpType.UC).build()))));
        // addressing
        cases.add(misuse("bad GID index for a queue pair", t -> {
            QueuePair qp = t.pd.createQueuePair(QpConfig.builder(t.cq).gidIndex(4000).build());
            VerbsException e = expect(VerbsException.class, qp::localEndpoint);
            assertEquals("ENODATA", e.errnoName());
        }));
        cases.add(misuse("bad port for a queue pair", t ->
                expect(IllegalArgumentException.class, () -> t.pd.createQueuePair(QpConfig.builder(t.cq).port(9).build()))));
        cases.add(misuse("bad GID index for an address handle", t -> {
            Gid gid = t.ctx.gidTable(1).getFirst().gid();
            expect(VerbsException.class, () -> t.pd.createAddressHandle(AddressHandle.Target.of(gid, 4000, 1)));
        }));
        cases.add(misuse("address handle to an unreachable GID", t -> {
            GidEntry entry = t.ctx.gidTable(1).getFirst();
            try {
                Gid nowhere = Gid.of(InetAddress.getByName("2001:db8::dead:beef"));
                AtomicReference<AddressHandle> created = new AtomicReference<>();
                VerbsException e = expect(VerbsException.class, () -> created.set(
                        t.pd.createAddressHandle(AddressHandle.Target.of(nowhere, entry.index(), 1))));
                assertEquals("ibv_create_ah", e.verb());
            } catch (java.net.UnknownHostException impossible) {
                throw new AssertionError(impossible);
            }
        }));
        cases.add(misuse("RDMA fields written over a UD request's address handle (they share the union)", t -> {
            QueuePair ud = t.pd.createQueuePair(QpConfig.builder(t.cq).type(QpType.UD).build());
            ud.readyForDatagrams(0x11111111);
            GidEntry entry = t.ctx.gidTable(1).getFirst();
            AddressHandle ah = t.pd.createAddressHandle(AddressHandle.Target.of(entry.gid(), entry.index(), 1));
            t.sends.get(0).opcode(WrOpcode.SEND).sge(t.mr, 0, 8).ud(ah, ud.qpNumber(), 0x11111111)
                    .remote(0xfbb414b084756da6L, 1); // found by FuzzDeviceTest: librxe dereferenced this as the AH
            expect(IllegalArgumentException.class, () -> ud.postSend(t.sends, 1));
        }));
        cases.add(misuse("UD send without an address handle", t -> {
            QueuePair ud = t.pd.createQueuePair(QpConfig.builder(t.cq).type(QpType.UD).build());
            ud.readyForDatagrams(0x11111111);
            t.sends.get(0).opcode(WrOpcode.SEND).sge(t.mr, 0, 8);
            expect(IllegalArgumentException.class, () -> ud.postSend(t.sends, 1));
        }));
        // inline and atomics
        cases.add(misuse("inline payload larger than max_inline_data", t -> {
            QueuePair.connectLoopback(t.qp, t.qp);
            int max = t.qp.capabilities().maxInlineData();
            assumeTrue(max + 1 <= 4096, "max_inline_data " + max + " is beyond the test region");
            t.sends.get(0).opcode(WrOpcode.SEND).flags(SendFlags.INLINE).sge(t.mr, 0, max + 1);
            // no inline room at all is a device limit; room too small for this payload is a bad request
            Class<? extends RuntimeException> refusal = max == 0 || !t.ctx.profile().capabilities().inline()
                    ? UnsupportedVerbException.class : IllegalArgumentException.class;
            expect(refusal, () -> t.qp.postSend(t.sends, 1));
        }));
        cases.add(misuse("atomic on an unaligned remote address", t ->
                expect(IllegalArgumentException.class, () -> t.sends.get(0).atomic(t.mr.address() + 3, t.mr.rkey(), 1, 0))));
        cases.add(misuse("atomic with a local buffer that is not 8 bytes", t -> {
            QueuePair.connectLoopback(t.qp, t.qp);
            t.sends.get(0).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sge(t.mr, 0, 4).atomic(t.mr.address(), t.mr.rkey(), 1, 0);
            Class<? extends RuntimeException> refusal = t.ctx.profile().capabilities().atomics()
                    ? IllegalArgumentException.class : UnsupportedVerbException.class;
            expect(refusal, () -> t.qp.postSend(t.sends, 1));
        }));
        cases.add(misuse("notifications on a CQ without a channel", t -> {
            try (CompletionQueue plain = t.ctx.createCompletionQueue(4)) {
                expect(IllegalStateException.class, () -> plain.requestNotification(false));
            }
        }));
        cases.add(misuse("wrong rkey ends in a remote access error completion", t -> {
            QueuePair.connectLoopback(t.qp, t.qp);
            t.sends.get(0).wrId(9).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(t.mr, 0, 8)
                    .remote(t.mr.address(), t.mr.rkey() + 0x100);
            assertEquals(0, t.qp.postSend(t.sends, 1));
            Done done = await(t.cq, 1).getFirst();
            assertEquals(WcStatus.REM_ACCESS_ERR, done.status());
        }));
        // concurrency
        cases.add(misuse("closing a CQ while another thread polls it", t -> {
            AtomicReference<Throwable> ended = new AtomicReference<>();
            Thread poller = Thread.ofPlatform().start(() -> {
                try (CompletionArray own = CompletionArray.allocate(4)) {
                    while (true) {
                        t.cq.poll(own);
                    }
                } catch (Throwable e) {
                    ended.set(e);
                }
            });
            sleep(200);
            t.cq.close();
            join(poller);
            assertTrue(ended.get() instanceof IllegalStateException, String.valueOf(ended.get()));
        }));
        cases.add(misuse("closing a QP while another thread posts to it", t -> {
            QueuePair.connectLoopback(t.qp, t.qp);
            AtomicReference<Throwable> ended = new AtomicReference<>();
            Thread poster = Thread.ofPlatform().start(() -> {
                try (RecvChain own = RecvChain.allocate(1, 1)) {
                    own.get(0).sge(t.mr, 0, 8);
                    while (true) {
                        t.qp.postRecv(own, 1); // fills the queue, then keeps returning ENOMEM
                    }
                } catch (Throwable e) {
                    ended.set(e);
                }
            });
            sleep(200);
            t.qp.close();
            join(poster);
            assertTrue(ended.get() instanceof IllegalStateException, String.valueOf(ended.get()));
        }));
        cases.add(misuse("closing a CQ and its QP as another thread's first poll and post begin, 100 times", t -> {
            for (int round = 0; round < 100; round++) {
                CompletionQueue cq = t.ctx.createCompletionQueue(8);
                QueuePair qp = t.pd.createQueuePair(QpConfig.builder(cq).capabilities(QpCapabilities.of(8, 8)).build());
                CountDownLatch started = new CountDownLatch(1);
                AtomicReference<Throwable> ended = new AtomicReference<>();
                Thread caller = Thread.ofPlatform().start(() -> {
                    try (CompletionArray own = CompletionArray.allocate(4); RecvChain recv = RecvChain.allocate(1, 1)) {
                        recv.get(0).sge(t.mr, 0, 8);
                        started.countDown();
                        while (true) { // the first poll and post race the close: each object's first call fences
                            cq.poll(own);
                            qp.postRecv(recv, 1);
                        }
                    } catch (Throwable e) {
                        ended.set(e);
                    }
                });
                await(started);
                if (round % 2 == 0) {
                    qp.close();
                    cq.close();
                } else {
                    VerbsResource.closeAll(qp, cq);
                }
                join(caller);
                assertTrue(ended.get() instanceof IllegalStateException, "round " + round + ": " + ended.get());
            }
        }));
        cases.add(misuse("closing an address handle while another thread posts UD sends with it", t -> {
            QueuePair ud = t.pd.createQueuePair(QpConfig.builder(t.cq).type(QpType.UD)
                    .capabilities(QpCapabilities.defaults().withMaxSendWr(8)).build());
            ud.readyForDatagrams(0x11111111);
            GidEntry entry = t.ctx.gidTable(1).getFirst();
            AddressHandle ah = t.pd.createAddressHandle(AddressHandle.Target.of(entry.gid(), entry.index(), 1));
            AtomicReference<Throwable> ended = new AtomicReference<>();
            Thread poster = Thread.ofPlatform().start(() -> {
                try (SendChain own = SendChain.allocate(1, 1); CompletionArray done = CompletionArray.allocate(8)) {
                    own.get(0).opcode(WrOpcode.SEND).sge(t.mr, 0, 8).ud(ah, ud.qpNumber(), 0x11111111);
                    while (true) {
                        ud.postSend(own, 1); // unsignaled: the ring fills, then ENOMEM until the close
                    }
                } catch (Throwable e) {
                    ended.set(e);
                }
            });
            sleep(200);
            ah.close();
            join(poster);
            assertEquals(IllegalStateException.class, ended.get() == null ? null : ended.get().getClass(), String.valueOf(ended.get()));
        }));
        cases.add(misuse("posting one chain from two threads", t -> {
            QueuePair.connectLoopback(t.qp, t.qp);
            t.recvs.get(0).sge(t.mr, 0, 8);
            assertEquals(0, t.qp.postRecv(t.recvs, 1)); // this thread owns the chain now
            Throwable other = onAnotherThread(() -> t.qp.postRecv(t.recvs, 1));
            assertEquals(WrongThreadException.class, other == null ? null : other.getClass(), String.valueOf(other));
        }));
        cases.add(misuse("threads taking turns with a chain and an array, each releasing its turn", t -> {
            QueuePair.connectLoopback(t.qp, t.qp);
            t.recvs.get(0).sge(t.mr, 0, 8);
            assertEquals(0, t.qp.postRecv(t.recvs, 1));
            assertEquals(0, t.cq.poll(t.wcs));
            Throwable notOwner = onAnotherThread(() -> {
                t.recvs.releaseThread(); // not this thread's: changes nothing
                t.wcs.releaseThread();
                t.qp.postRecv(t.recvs, 1);
            });
            assertEquals(WrongThreadException.class, notOwner == null ? null : notOwner.getClass(), String.valueOf(notOwner));
            t.recvs.releaseThread();
            t.wcs.releaseThread();
            Throwable nextTurn = onAnotherThread(() -> {
                assertEquals(0, t.qp.postRecv(t.recvs, 1));
                assertEquals(0, t.cq.poll(t.wcs));
            });
            assertNull(nextTurn, "the other thread's turn after the release");
            Throwable backHere = onAnotherThread(() -> t.qp.postRecv(t.recvs, 1)); // that thread did not release
            assertEquals(WrongThreadException.class, backHere == null ? null : backHere.getClass(), String.valueOf(backHere));
        }));
        cases.add(misuse("polling into one completion array from two threads", t -> {
            assertEquals(0, t.cq.poll(t.wcs));
            Throwable other = onAnotherThread(() -> t.cq.poll(t.wcs));
            assertEquals(WrongThreadException.class, other == null ? null : other.getClass(), String.valueOf(other));
        }));
        cases.add(misuse("a call outliving close's bounded wait: that close gives up, a later one frees", t -> {
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Thread caller = Thread.ofPlatform().start(() -> {
                try (RecvChain own = RecvChain.allocate(1, 1)) {
                    own.enter(t.qp); // what a post does before calling the provider; this call "hangs"
                    inside.countDown();
                    try {
                        release.await();
                    } finally {
                        own.exit();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            await(inside);
            long before = ownQueuePairs();
            long start = System.nanoTime();
            IllegalStateException stuck = expect(IllegalStateException.class, t.qp::close);
            long waited = System.nanoTime() - start;
            assertTrue(waited >= InFlight.CLOSE_WAIT_NANOS, "waited " + waited + " ns: " + stuck.getMessage());
            assertTrue(stuck.getMessage().contains("has not returned"), stuck.getMessage());
            assertTrue(t.qp.isClosed());
            expect(IllegalStateException.class, () -> t.qp.postRecv(t.recvs, 1));
            assertEquals(before, ownQueuePairs(), "the abandoned QP stays allocated");
            release.countDown();
            join(caller);
            t.qp.close(); // the call returned: this close frees it
            assertEquals(before - 1, ownQueuePairs(), "the second close freed the QP");
            t.qp.close(); // and closing again is a no-op
        }));
        addDataPathHoles(cases);
        // -Dpanamaverbs.misuse.only=TEXT runs only the cases whose name contains TEXT (one crash case at a time)
        String only = System.getProperty("panamaverbs.misuse.only");
        return cases.stream().filter(c -> only == null || c.getDisplayName().contains(only));
    }

    /**
     * Sequences the first misuse suite never tried, each traced to a crash or a hang: entries past a checked
     * {@code num_sge}, writes through a handle, a completion-channel reader racing a CQ's close, and setters
     * from a second thread on a chain another thread posts.
     */
    private static void addDataPathHoles(List<DynamicTest> cases) {
        cases.add(misuse("raising num_sge after a post brings in an entry whose region closed", t -> {
            QueuePair qp = t.pd.createQueuePair(QpConfig.builder(t.cq)
                    .capabilities(QpCapabilities.of(8, 8).withMaxSendSge(2).withMaxInlineData(64)).build());
            assumeTrue(qp.capabilities().maxInlineData() >= 16, "the queue pair has no inline room");
            QueuePair.connectLoopback(qp, qp);
            // above glibc's largest mmap threshold (32 MiB), so freeing the region's memory unmaps it
            MemoryRegion gone = t.pd.allocateAndRegister(64 << 20, Access.LOCAL_WRITE);
            t.sends.get(0).wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.INLINE)
                    .sge(0, t.mr, 0, 8).sge(1, gone, 0, 8).numSge(1);
            gone.close();
            t.recvs.get(0).wrId(2).sge(t.mr, 64, 64);
            assertEquals(0, qp.postRecv(t.recvs, 1));
            assertEquals(0, qp.postSend(t.sends, 1)); // entry 0 only: checked, and the fast path armed for 1 request
            t.sends.get(0).numSge(2); // entry 1 names the closed region, whose memory is unmapped now
            IllegalStateException e = expect(IllegalStateException.class, () -> qp.postSend(t.sends, 1));
            assertTrue(e.getMessage().contains("entry 1"), e.getMessage());
        }));
        cases.add(misuse("writing through a handle is refused: the provider's structs are read-only", t -> {
            for (MemorySegment handle : new MemorySegment[] {t.ctx.handle(), t.pd.handle(), t.cq.handle(), t.qp.handle()}) {
                assertTrue(handle.isReadOnly(), String.valueOf(handle));
                // cq->context, pd->context, ...: zero would crash the destroy call
                expect(IllegalArgumentException.class, () -> handle.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 0L));
            }
            long context = t.cq.handle().get(java.lang.foreign.ValueLayout.JAVA_LONG, 0);
            assertEquals(t.ctx.handle().address(), context, "reading a handle still works (cq->context)");
            t.cq.close();
            expect(IllegalStateException.class, t.cq::handle);
        }));
        cases.add(dynamicTest("closing a CQ while a channel reader holds its event: bounded, no deadlock", () -> {
            closeWhileAReaderHoldsTheEvent();
        }));
        cases.add(misuse("a setter from a second thread on a chain another thread posts", t -> {
            QueuePair.connectLoopback(t.qp, t.qp);
            t.recvs.get(0).wrId(1).sge(t.mr, 0, 8);
            t.sends.get(0).wrId(2).opcode(WrOpcode.SEND).sge(t.mr, 0, 8);
            // before the first post any thread may fill the chain
            Throwable filled = onAnotherThread(() -> t.sends.get(1).wrId(3).opcode(WrOpcode.SEND).sge(t.mr, 8, 8));
            assertEquals(null, filled, "filling an unposted chain on another thread");
            assertEquals(0, t.qp.postRecv(t.recvs, 1)); // this thread owns both chains from here on
            assertEquals(0, t.qp.postSend(t.sends, 1));
            List<Executable> setters = List.of(
                    () -> t.sends.get(0).remote(0x1000, 1),
                    () -> t.sends.get(0).wrId(9),
                    () -> t.sends.get(0).flags(SendFlags.INLINE),
                    () -> t.sends.get(0).opcode(WrOpcode.RDMA_WRITE),
                    () -> t.sends.get(0).numSge(2),
                    () -> t.sends.get(0).sge(1, t.mr, 0, 4096),
                    () -> t.sends.get(0).sge(0, t.mr.sge(0, 8)),
                    () -> t.sends.get(0).immediateData(1),
                    () -> t.sends.get(0).atomic(t.mr.address(), t.mr.rkey(), 1, 2),
                    () -> t.recvs.get(0).sge(t.mr, 0, 4096));
            for (Executable setter : setters) {
                Throwable other = onAnotherThread(() -> {
                    try {
                        setter.execute();
                    } catch (Throwable e) {
                        throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
                    }
                });
                assertEquals(WrongThreadException.class, other == null ? null : other.getClass(), String.valueOf(other));
            }
            assertEquals(2, t.sends.get(0).wrId(), "the refused setters changed nothing");
            assertEquals(WrOpcode.SEND, t.sends.get(0).opcode());
            assertEquals(1, t.sends.get(0).numSge());
        }));
        cases.add(misuse("a second thread rewriting a UD request's destination while the owner posts it", t -> {
            QueuePair ud = t.pd.createQueuePair(QpConfig.builder(t.cq).type(QpType.UD)
                    .capabilities(QpCapabilities.defaults().withMaxSendWr(8)).build());
            ud.readyForDatagrams(0x11111111);
            GidEntry entry = t.ctx.gidTable(1).getFirst();
            AddressHandle ah = t.pd.createAddressHandle(AddressHandle.Target.of(entry.gid(), entry.index(), 1));
            SendWorkRequest wr = t.sends.get(0).opcode(WrOpcode.SEND).sge(t.mr, 0, 8).ud(ah, ud.qpNumber(), 0x11111111);
            assertEquals(0, ud.postSend(t.sends, 1)); // binds the chain to this thread
            AtomicReference<Throwable> rewriter = new AtomicReference<>();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            Thread other = Thread.ofPlatform().start(() -> {
                try {
                    while (System.nanoTime() < end) {
                        // the provider would dereference 0xfbb4... as the ibv_ah * (the fields share the union)
                        wr.remote(0xfbb414b084756da6L, 1);
                        wr.ud(ah, ud.qpNumber(), 0x11111111);
                    }
                } catch (Throwable e) {
                    rewriter.set(e);
                }
            });
            while (System.nanoTime() < end) {
                try {
                    ud.postSend(t.sends, 1); // unsignaled: the ring fills, then ENOMEM
                } catch (IllegalArgumentException refusedWithoutHandle) {
                    // the other thread's remote() landed between two posts: refused before the provider
                }
            }
            join(other);
            assertEquals(WrongThreadException.class, rewriter.get() == null ? null : rewriter.get().getClass(),
                    String.valueOf(rewriter.get()));
        }));
    }

    /**
     * A reader took a completion event from the channel ({@code ibv_get_cq_event}) and has not counted it yet,
     * while another thread closes the CQ: {@code ibv_destroy_cq} waits for every event to be acknowledged, so the
     * reader must be able to count (or acknowledge) its event without the lock the close holds. The closing
     * thread holds the tree lock from before the read to after the close; the whole sequence must end within
     * 30 s (it deadlocked: the reader waited for that lock, the destroy for the reader).
     */
    private static void closeWhileAReaderHoldsTheEvent() throws InterruptedException {
        Context ctx = Rdma.open(context.name());
        ProtectionDomain domain = ctx.allocateProtectionDomain();
        CompletionChannel channel = ctx.createCompletionChannel();
        CompletionQueue cq = ctx.createCompletionQueue(16, channel);
        QueuePair qp = domain.createQueuePair(QpConfig.builder(cq).build());
        MemoryRegion mr = domain.allocateAndRegister(4096, Access.LOCAL_WRITE);
        QueuePair.connectLoopback(qp, qp);
        try (RecvChain recvs = RecvChain.allocate(1, 1); SendChain sends = SendChain.allocate(1, 1)) {
            assertEquals(0, cq.requestNotification(false));
            recvs.get(0).wrId(1).sge(mr, 0, 64);
            sends.get(0).wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(mr, 64, 8);
            assertEquals(0, qp.postRecv(recvs, 1));
            assertEquals(0, qp.postSend(sends, 1));
            assertEquals(2, await(cq, 2).size()); // the event is pending on the channel now
        }
        AtomicReference<Object> read = new AtomicReference<>();
        AtomicReference<Throwable> closeFailed = new AtomicReference<>();
        Thread closer = Thread.ofPlatform().daemon().start(() -> {
            synchronized (cq.treeLock()) {
                Thread reader = Thread.ofPlatform().daemon().start(() -> {
                    try {
                        read.set(channel.awaitEvent(Duration.ofSeconds(20)));
                    } catch (Throwable e) {
                        read.set(e);
                    }
                });
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (read.get() == null && reader.getState() != Thread.State.BLOCKED && System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                try {
                    cq.close(); // acknowledges what was counted, then ibv_destroy_cq waits for the rest
                } catch (Throwable e) {
                    closeFailed.set(e);
                }
            }
        });
        String late = BoundedJoin.join(closer, Duration.ofSeconds(30));
        assertNull(late, () -> "closing the CQ while a reader held its event: " + late + " (reader: " + read.get() + ")");
        assertEquals(null, closeFailed.get());
        assertTrue(read.get() == cq || read.get() == null, "the reader got the event or nothing: " + read.get());
        assertTrue(cq.isClosed());
        ctx.close();
    }

    /** How many QPs of this process the kernel holds. */
    private static long ownQueuePairs() {
        try {
            return LeakCheck.resourceCounts().stream().filter(l -> l.startsWith("this process: ") && l.endsWith(" qp"))
                    .mapToLong(l -> Long.parseLong(l.split(" ")[2])).sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(COMPLETION_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS), "the other thread got there");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs {@code call} on a new thread; what it threw, or null. */
    private static Throwable onAnotherThread(Runnable call) {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        join(Thread.ofPlatform().start(() -> {
            try {
                call.run();
            } catch (Throwable e) {
                thrown.set(e);
            }
        }));
        return thrown.get();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void join(Thread thread) {
        try {
            thread.join(COMPLETION_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        assertTrue(!thread.isAlive(), "the other thread stopped");
    }
}
