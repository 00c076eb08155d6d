package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.panamaverbs.ffi.ibverbs_h;

/** Listing, opening and querying the device: identity, limits, port state and the GID table. */
class DiscoveryDeviceTest extends DeviceTest {

    @Test
    void deviceListNamesTheOpenDeviceWithGuidAndTransport() {
        List<RdmaDevice> devices = Rdma.devices();
        RdmaDevice listed = devices.stream().filter(d -> d.name().equals(context.name())).findFirst().orElseThrow();
        assertNotEquals(0L, listed.guid(), "GUID");
        assertEquals(16, listed.guidHex().length());
        assertEquals(Transport.IB, listed.transport(), "RoCE and InfiniBand devices report the IB transport");
        assertEquals(listed, context.device());
        assertTrue(Rdma.isAvailable());
    }

    @Test
    void openByNameGivesAnIndependentContext() {
        try (Context second = Rdma.open(context.name())) {
            assertEquals(context.name(), second.name());
            assertEquals(context.attributes(), second.attributes());
        }
        RdmaUnavailableException e = assertThrows(RdmaUnavailableException.class, () -> Rdma.open("no-such-device"));
        assertEquals(RdmaUnavailableException.Reason.NO_DEVICE, e.reason());
        assertTrue(e.getMessage().contains(context.name()), "lists the devices present: " + e.getMessage());
    }

    @Test
    void deviceAttributesGiveUsableLimits() {
        DeviceAttributes attributes = context.attributes();
        assertTrue(attributes.maxQp() > 0);
        assertTrue(attributes.maxQpWr() >= 32);
        assertTrue(attributes.maxSge() >= 1);
        assertTrue(attributes.maxCqe() >= 64);
        assertNotEquals(0L, attributes.maxMrSize(), "max_mr_size (unsigned; rxe reports 2^64-1)");
        assertTrue(attributes.physicalPortCount() >= 1);
        assertFalse(attributes.firmwareVersion() == null);
    }

    @Test
    void portOneIsActiveWithGids() {
        PortAttributes port = context.queryPort(1);
        assertEquals(PortState.ACTIVE, port.state());
        assertTrue(port.gidTableLength() > 0);
        assertTrue(port.activeMtu().bytes() >= 256 && port.activeMtu().bytes() <= port.maxMtu().bytes());
        assertTrue(port.maxMessageSize() >= 65536);
        if (port.linkLayer() == LinkLayer.ETHERNET) {
            assertEquals(0, port.lid(), "RoCE ports have no LID");
        }
    }

    /**
     * {@code ibv_query_device_ex}'s on-demand paging decides {@link Access#ON_DEMAND}: a region registers where the
     * device reports it, and where it does not the library refuses before the kernel, which refuses too (checked with
     * a raw {@code ibv_reg_mr} past the gate). rxe on Linux 6.1 reports none.
     */
    @Test
    void onDemandPagingDecidesWhetherAnOnDemandRegionRegisters() throws Exception {
        OnDemandPaging paging = context.onDemandPaging();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = arena.allocate(4096, 4096);
            int access = Access.LOCAL_WRITE.bit() | Access.ON_DEMAND.bit();
            MemorySegment raw = ibverbs_h.ibv_reg_mr(pd.handle(), memory, memory.byteSize(), access);
            if (!raw.equals(MemorySegment.NULL)) {
                assertEquals(0, ibverbs_h.ibv_dereg_mr(raw));
            }
            assertEquals(paging.supported(), !raw.equals(MemorySegment.NULL), "the kernel and " + paging + " disagree");
            if (paging.supported()) {
                try (MemoryRegion region = pd.register(arena, memory, Access.LOCAL_WRITE, Access.ON_DEMAND)) {
                    assertTrue(region.lkey() != 0);
                }
            } else {
                UnsupportedVerbException e = assertThrows(UnsupportedVerbException.class,
                        () -> pd.register(arena, memory, Access.LOCAL_WRITE, Access.ON_DEMAND));
                assertEquals("ibv_reg_mr", e.verb());
                assertTrue(e.getMessage().contains(context.name() + " has no on-demand paging"), e.getMessage());
            }
        }
    }

    /**
     * {@code ibv_alloc_null_mr} through the context's {@code alloc_null_mr}: a provider without null regions (rxe,
     * vmw_pvrdma: libibverbs' default operation, EOPNOTSUPP) is refused in one line naming the verb and the errno; one
     * with them (mlx5) gives a region with a local key only.
     */
    @Test
    void aNullRegionIsMadeOrRefusedAsTheProviderAnswers() {
        boolean withoutNullRegions = context.name().startsWith("rxe") || context.name().startsWith("vmw_pvrdma");
        try (MemoryRegion none = pd.allocateNullRegion(4096)) {
            assertFalse(withoutNullRegions, context.name() + "'s provider has no alloc_null_mr, yet " + none + " was made");
            assertTrue(none.isNullRegion());
            assertThrows(UnsupportedOperationException.class, none::rkey);
            assertEquals(none.lkey(), none.sge(0, 4096).lkey());
        } catch (UnsupportedVerbException e) {
            assertEquals("ibv_alloc_null_mr", e.verb());
            assertTrue(e.getMessage().contains(context.name() + " has no null memory regions"), e.getMessage());
            if (withoutNullRegions) {
                assertTrue(e.getMessage().contains("EOPNOTSUPP"), e.getMessage());
            }
        }
    }

    @Test
    void gidTableHasTypedEntries() {
        PortAttributes port = context.queryPort(1);
        List<GidEntry> table = context.gidTable(1);
        assertFalse(table.isEmpty());
        for (GidEntry entry : table) {
            assertEquals(1, entry.port());
            assertFalse(entry.gid().isZero(), "empty slots are not listed");
            assertEquals(entry.gid(), context.gid(1, entry.index()));
            if (port.linkLayer() == LinkLayer.ETHERNET) {
                assertTrue(entry.type() == GidType.ROCE_V1 || entry.type() == GidType.ROCE_V2, entry.toString());
                assertTrue(entry.gid().isLinkLocal() || entry.gid().isIpv4Mapped() || entry.gid().subnetPrefix() != 0,
                        entry.toString());
            }
        }
        int chosen = context.defaultGidIndex(1);
        assertTrue(table.stream().anyMatch(e -> e.index() == chosen));
    }

    @Test
    void softRoceReportsRoceV2GidsIncludingItsIpv4Address() {
        org.junit.jupiter.api.Assumptions.assumeTrue(context.name().startsWith("rxe"), "rxe-specific");
        List<GidEntry> table = context.gidTable(1);
        assertTrue(table.stream().allMatch(e -> e.type() == GidType.ROCE_V2), table.toString());
        assertTrue(table.stream().anyMatch(e -> e.gid().isIpv4Mapped()), table.toString());
        assertTrue(table.stream().anyMatch(e -> e.gid().isLinkLocal()), table.toString());
        GidEntry chosen = table.stream().filter(e -> e.index() == context.defaultGidIndex(1)).findFirst().orElseThrow();
        assertTrue(chosen.gid().isIpv4Mapped(), "the default GID is the routable IPv4 one: " + chosen);
    }

    @Test
    void badPortAndGidIndexAreRefusedClearly() {
        IllegalArgumentException port = assertThrows(IllegalArgumentException.class, () -> context.queryPort(9));
        assertTrue(port.getMessage().contains("has ports 1.."), port.getMessage());
        assertThrows(IllegalArgumentException.class, () -> context.queryPort(0));
        VerbsException gid = assertThrows(VerbsException.class, () -> context.gid(1, 100_000));
        assertEquals("ENODATA", gid.errnoName());
        assertEquals("ibv_query_gid", gid.verb());
    }
}
