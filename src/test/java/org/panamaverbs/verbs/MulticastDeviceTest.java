package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** {@code ibv_attach_mcast} / {@code ibv_detach_mcast}: a group's datagrams reach its members only, and the refusals. */
class MulticastDeviceTest extends DeviceTest {
    private static final int QKEY = 0x11111111;
    private static final int MULTICAST_QPN = 0xffffff;
    private static final Gid GROUP = Gid.of(new byte[] {(byte) 0xff, 0x0e, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x50, 0x56,
        0x6d, 0x63});
    private static final int SLOT = 4096;

    /** A sender and three receivers on UD queue pairs of one completion queue each, the group's IP address joined. */
    private static final class Members implements AutoCloseable {
        final List<CompletionQueue> cqs = new ArrayList<>();
        final List<QueuePair> qps = new ArrayList<>();
        final MemoryRegion mr = pd.allocateAndRegister(16 * SLOT, Access.LOCAL_WRITE);
        final SendChain sends = SendChain.allocate(4, 1);
        final RecvChain recvs = RecvChain.allocate(4, 1);
        final AddressHandle toGroup;
        final DatagramChannel ipMembership;

        Members() throws IOException {
            int gidIndex = ipv6GidIndex();
            for (int i = 0; i < 4; i++) {
                CompletionQueue cq = context.createCompletionQueue(16);
                cqs.add(cq);
                QueuePair qp = pd.createQueuePair(QpConfig.builder(cq).type(QpType.UD).gidIndex(gidIndex).build());
                qps.add(qp);
                qp.readyForDatagrams(QKEY);
            }
            toGroup = pd.createAddressHandle(AddressHandle.Target.of(GROUP, gidIndex, 1));
            ipMembership = joinOnNetworkDevice(GROUP, gidIndex);
        }

        QueuePair sender() {
            return qps.getFirst();
        }

        /** Posts {@code count} receives to receiver {@code r} (1..3) into its own slots. */
        void postReceives(int r, int count) {
            for (int i = 0; i < count; i++) {
                recvs.get(i).wrId(r * 100 + i).sge(mr, (4L * r + i) * SLOT, Grh.SIZE + 1024);
            }
            qps.get(r).postRecvOrThrow(recvs, count);
        }

        /** Sends {@code count} datagrams of {@code length} bytes from slots 0..count-1 to the group. */
        void send(int count, int length, int seed) {
            for (int i = 0; i < count; i++) {
                fill(mr, (long) i * SLOT, length, seed + i);
                sends.get(i).wrId(i).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(mr, (long) i * SLOT, length)
                        .ud(toGroup, MULTICAST_QPN, QKEY);
            }
            sender().postSendOrThrow(sends, count);
            assertTrue(await(cqs.getFirst(), count).stream().allMatch(d -> d.status() == WcStatus.SUCCESS));
        }

        /** Receiver {@code r}'s {@code count} datagrams: from the sender, after the GRH, the bytes sent. */
        void assertReceived(int r, int count, int length, int seed) {
            List<Done> done = await(cqs.get(r), count);
            for (Done d : done) {
                int i = (int) (d.wrId() - r * 100);
                assertEquals(WcStatus.SUCCESS, d.status(), "receiver " + r);
                assertEquals(WcOpcode.RECV, d.opcode());
                assertEquals(Grh.SIZE + length, d.byteLength(), "byte_len counts the GRH");
                long at = (4L * r + i) * SLOT;
                assertArrayEquals(bytes(mr, (long) i * SLOT, length), bytes(mr, at + Grh.SIZE, length),
                        "receiver " + r + " datagram " + i);
                assertEquals(GROUP, Grh.destinationGid(mr.segment(), at), "the GRH names the group");
            }
        }

        /** Nothing arrived at receiver {@code r}, after the members got theirs and a grace of 300 ms. */
        void assertNothingReceived(int r) throws InterruptedException {
            Thread.sleep(300);
            try (CompletionArray wcs = CompletionArray.allocate(4)) {
                assertEquals(0, cqs.get(r).poll(wcs), "receiver " + r + " is not a member");
            }
        }

        @Override
        public void close() throws IOException {
            ipMembership.close();
            sends.close();
            recvs.close();
            toGroup.close();
            qps.forEach(QueuePair::close);
            mr.close();
            cqs.forEach(CompletionQueue::close);
        }
    }

    @Test
    void aGroupsDatagramsReachItsMembersOnlyUntilTheyDetach() throws Exception {
        assumeMulticast();
        try (Members m = new Members()) {
            m.qps.get(1).attachMulticast(GROUP, 0);
            m.qps.get(2).attachMulticast(GROUP, 0);
            m.qps.get(2).attachMulticast(GROUP, 0); // again: nothing changes
            assertEquals(List.of(new QueuePair.MulticastMembership(GROUP, 0)), m.qps.get(2).multicastGroups());
            for (int r = 1; r <= 3; r++) {
                m.postReceives(r, 3);
            }
            m.send(3, 700, 11);
            m.assertReceived(1, 3, 700, 11);
            m.assertReceived(2, 3, 700, 11);
            m.assertNothingReceived(3);

            m.qps.get(2).detachMulticast(GROUP, 0);
            assertTrue(m.qps.get(2).multicastGroups().isEmpty());
            m.postReceives(1, 1);
            m.send(1, 64, 40);
            m.assertReceived(1, 1, 64, 40);
            m.assertNothingReceived(2);
        }
    }

    @Test
    void closingAnAttachedQueuePairDetachesItFirst() throws Exception {
        assumeMulticast();
        try (CompletionQueue cq = context.createCompletionQueue(4)) {
            QueuePair qp = pd.createQueuePair(QpConfig.builder(cq).type(QpType.UD).build());
            qp.readyForDatagrams(QKEY);
            qp.attachMulticast(GROUP, 0);
            qp.close(); // the kernel refuses to destroy an attached queue pair (EBUSY): a VerbsException here
            assertTrue(qp.isClosed());
            assertThrows(IllegalStateException.class, () -> qp.attachMulticast(GROUP, 0));
            assertThrows(IllegalStateException.class, qp::multicastGroups);
        }
    }

    @Test
    void onlyUdQueuePairsJoinAndOnlyMulticastGids() {
        try (CompletionQueue cq = context.createCompletionQueue(4);
             QueuePair rc = pd.createQueuePair(QpConfig.builder(cq).build());
             QueuePair ud = pd.createQueuePair(QpConfig.builder(cq).type(QpType.UD).build())) {
            IllegalArgumentException notUd = assertThrows(IllegalArgumentException.class,
                    () -> rc.attachMulticast(GROUP, 0));
            assertTrue(notUd.getMessage().contains("only UD queue pairs"), notUd.getMessage());
            Gid unicast = context.gidTable(1).getFirst().gid();
            IllegalArgumentException notGroup = assertThrows(IllegalArgumentException.class,
                    () -> ud.attachMulticast(unicast, 0));
            assertTrue(notGroup.getMessage().contains("is not a multicast GID"), notGroup.getMessage());
            assertThrows(IllegalArgumentException.class, () -> ud.attachMulticast(GROUP, 0x10000));
            IllegalStateException notAttached = assertThrows(IllegalStateException.class,
                    () -> ud.detachMulticast(GROUP, 0));
            assertTrue(notAttached.getMessage().contains("is not attached"), notAttached.getMessage());
        }
    }

    @Test
    void theCapabilityReportAgreesWithTheGate() {
        CapabilityVerdict verdict = context.capabilities().stream()
                .filter(v -> v.capability() == Capability.MULTICAST).findFirst().orElseThrow();
        boolean reported = context.attributes().maxMcastGrp() > 0;
        assertEquals(reported ? CapabilityVerdict.Status.ALLOWED : CapabilityVerdict.Status.REFUSED, verdict.status(),
                verdict.toString());
        assertTrue(verdict.detail().contains("max_mcast_grp " + context.attributes().maxMcastGrp()), verdict.detail());
    }

    private static void assumeMulticast() {
        assumeTrue(context.attributes().maxMcastGrp() > 0, context.name() + " reports max_mcast_grp 0: no multicast");
    }

    /** A GID index of port 1 with an IPv6 (not IPv4-mapped) GID: the family of the group's address. */
    private static int ipv6GidIndex() {
        return context.gidTable(1).stream().filter(g -> !g.gid().isIpv4Mapped()).findFirst()
                .orElseThrow(() -> new AssertionError(context.name() + " port 1 has no IPv6 GID")).index();
    }

    /**
     * On RoCE, the group's IP address joined on the GID's network device. Soft-RoCE before Linux 6.10 does not join
     * it when a queue pair attaches, and the IP stack drops (and does not loop back) the packets of a group nobody
     * joined; a program on such a kernel joins it as this test does. On InfiniBand: a channel joined to nothing.
     */
    private static DatagramChannel joinOnNetworkDevice(Gid group, int gidIndex) throws IOException {
        DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET6);
        Path ndev = Path.of("/sys/class/infiniband", context.name(), "ports/1/gid_attrs/ndevs", String.valueOf(gidIndex));
        if (Files.isReadable(ndev)) {
            String name = Files.readString(ndev).strip();
            NetworkInterface device = NetworkInterface.getByName(name);
            assertTrue(device != null, "network device " + name + " of GID index " + gidIndex);
            channel.join(group.toInetAddress(), device);
        }
        return channel;
    }
}
