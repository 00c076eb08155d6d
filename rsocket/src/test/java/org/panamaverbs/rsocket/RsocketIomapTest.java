package org.panamaverbs.rsocket;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** rsocket's iomap extension (riomap, riowrite, riounmap) between two flows over the simulated fabric. */
class RsocketIomapTest {
    private static final int REGION_KEY = 0x7777;

    @Test
    void theConnectionDataOffersATableAfterTheTargetListAsRsocketDoes() {
        try (SimulatedFabric fabric = new SimulatedFabric(16, 8192, 8192, 4)) {
            var data = fabric.a.flow.localData();
            assertEquals(RsocketWire.FLAG_IOMAP, data.flags(), "rs_format_conn_data always sets the iomap flag");
            assertEquals(4, RsocketWire.scaleToValue(data.iomapScale()));
            assertEquals(8192 + 2 * 16 + 4 * 24, RsocketFlow.receiveMemoryBytes(8192, 4));
        }
        try (SimulatedFabric fabric = new SimulatedFabric(16, 8192, 8192)) {
            var data = fabric.a.flow.localData();
            assertEquals(RsocketWire.FLAG_IOMAP, data.flags());
            assertEquals(0, data.iomapScale(), "rsocket's default RDMA_IOMAPSIZE: no table");
        }
    }

    @Test
    void tableSizesAreRoundedAsRdmaIomapsizeRoundsThem() {
        assertEquals(0, RsocketIomap.roundedSize(0));
        assertEquals(128, RsocketIomap.roundedSize(128));
        assertEquals(128, RsocketIomap.roundedSize(200));
        assertEquals(512, RsocketIomap.roundedSize(700));
        assertEquals(32512, RsocketIomap.roundedSize(32512));
        assertThrows(IllegalArgumentException.class, () -> RsocketIomap.roundedSize(32513));
        assertThrows(IllegalArgumentException.class, () -> RsocketIomap.roundedSize(-1));
    }

    @Test
    void anEntryIsOffsetAddressKeyLengthInThePeersByteOrder() {
        var offer = new RsocketIomap.Offer(0, 0x10, 0x7f00_1122_3344_5500L, 0x20000, 0xabcd);
        ByteBuffer entry = ByteBuffer.allocate(24);
        RsocketIomap.encode(offer, entry, true);
        assertEquals("0000000000000010" + "7f00112233445500" + "0000abcd" + "00020000",
                HexFormat.of().formatHex(entry.array(), 0, entry.limit()));
        RsocketIomap.encode(offer, entry, false);
        assertEquals("1000000000000000" + "005544332211007f" + "cdab0000" + "00000200",
                HexFormat.of().formatHex(entry.array(), 0, entry.limit()));
    }

    @Test
    void directWritesLandInTheMappedRegionAtItsOffsetsAndNotInTheStream() {
        try (SimulatedFabric fabric = new SimulatedFabric(16, 16384, 16384, 2)) {
            fabric.connect();
            fabric.deliver();
            int creditsBefore = fabric.b.flow.sendCreditsLeft();
            MemorySegment region = fabric.b.register(100_000, REGION_KEY);
            assertEquals(0, fabric.b.flow.offerRegion(5000, region.address(), 100_000, REGION_KEY));
            fabric.deliver();
            assertEquals(creditsBefore - 1, fabric.b.flow.sendCreditsLeft(), "an IOMAP_SGL takes a sequence number");
            assertTrue(fabric.a.flow.peerRegionsCover(5000, 100_000));
            assertFalse(fabric.a.flow.peerRegionsCover(4999, 2));
            assertFalse(fabric.a.flow.peerRegionsCover(5000, 100_001));
            assertEquals("[5000, 105000)", fabric.a.flow.describePeerRegions());

            byte[] sent = new byte[99_000];
            new Random(3).nextBytes(sent);
            ByteBuffer source = ByteBuffer.wrap(sent);
            int receivesBefore = fabric.b.postedReceives;
            int rounds = 0;
            while (source.hasRemaining()) {
                assertTrue(++rounds < 10_000, "no progress: " + fabric.a.flow);
                fabric.a.flow.writeDirect(source, 6000 + source.position());
                fabric.a.flow.flush();
                fabric.deliver();
            }
            assertArrayEquals(sent, region.asSlice(1000, sent.length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            assertEquals(0, fabric.b.flow.readableBytes(), "nothing in the stream");
            assertEquals(receivesBefore, fabric.b.postedReceives, "no receive consumed");
            assertTrue(fabric.a.flow.allSendsDone(), "the send buffer and queue came back: " + fabric.a.flow);

            // the stream still works after them, in order
            fabric.a.flow.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            fabric.a.flow.flush();
            fabric.deliver();
            assertEquals(3, fabric.b.flow.readableBytes());
            assertNull(fabric.a.flow.failure());
            assertNull(fabric.b.flow.failure());
        }
    }

    @Test
    void aWriteWalksAcrossAdjacentRegionsAsRiowriteDoes() {
        try (SimulatedFabric fabric = new SimulatedFabric(16, 16384, 16384, 2)) {
            fabric.connect();
            MemorySegment first = fabric.b.register(3000, REGION_KEY);
            MemorySegment second = fabric.b.register(5000, REGION_KEY + 1);
            fabric.b.flow.offerRegion(0, first.address(), 3000, REGION_KEY);
            fabric.b.flow.offerRegion(3000, second.address(), 5000, REGION_KEY + 1);
            fabric.deliver();
            assertTrue(fabric.a.flow.peerRegionsCover(0, 8000));
            byte[] sent = new byte[8000];
            new Random(4).nextBytes(sent);
            ByteBuffer source = ByteBuffer.wrap(sent);
            while (source.hasRemaining()) {
                fabric.a.flow.writeDirect(source, source.position());
                fabric.a.flow.flush();
                fabric.deliver();
            }
            assertArrayEquals(java.util.Arrays.copyOf(sent, 3000), first.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            assertArrayEquals(java.util.Arrays.copyOfRange(sent, 3000, 8000),
                    second.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void aFullOrAbsentTableRefusesAndAnUnmappedSlotIsReused() {
        try (SimulatedFabric fabric = new SimulatedFabric(16, 8192, 8192, 1)) {
            fabric.connect();
            MemorySegment region = fabric.b.register(4096, REGION_KEY);
            int slot = fabric.b.flow.offerRegion(0, region.address(), 4096, REGION_KEY);
            var full = assertThrows(IllegalStateException.class,
                    () -> fabric.b.flow.offerRegion(8192, region.address(), 4096, REGION_KEY));
            assertTrue(full.getMessage().contains("all 1 entries"), full.getMessage());
            fabric.deliver();
            assertTrue(fabric.a.flow.peerRegionsCover(0, 4096));

            fabric.b.deregister(REGION_KEY);
            fabric.b.flow.withdrawRegion(slot); // riounmap: the peer is not told
            MemorySegment next = fabric.b.register(4096, REGION_KEY + 1);
            assertEquals(slot, fabric.b.flow.offerRegion(1 << 20, next.address(), 4096, REGION_KEY + 1));
            fabric.deliver();
            assertFalse(fabric.a.flow.peerRegionsCover(0, 1), "the slot's new entry replaced the old one");
            assertTrue(fabric.a.flow.peerRegionsCover(1 << 20, 4096));
        }
        try (SimulatedFabric fabric = new SimulatedFabric(16, 8192, 8192, 0)) {
            fabric.connect();
            var none = assertThrows(IllegalStateException.class, () -> fabric.a.flow.offerRegion(0, 1, 1, 1));
            assertTrue(none.getMessage().contains("RDMA_IOMAPSIZE"), none.getMessage());
        }
    }

    @Test
    void anEntryOfferedWithoutCreditsWaitsAndGoesBeforeLaterData() {
        try (SimulatedFabric fabric = new SimulatedFabric(16, 8192, 8192, 1)) {
            fabric.connect();
            fabric.deliver();
            // use up b's credits to a: a does not read
            while (fabric.b.flow.canSend()) {
                fabric.b.flow.write(ByteBuffer.wrap(new byte[10]));
                fabric.b.flow.flush();
                fabric.deliver();
            }
            MemorySegment region = fabric.b.register(4096, REGION_KEY);
            fabric.b.flow.offerRegion(0, region.address(), 4096, REGION_KEY);
            fabric.deliver();
            assertFalse(fabric.a.flow.peerRegionsCover(0, 1), "not sent without a credit");
            ByteBuffer drain = ByteBuffer.allocate(1 << 16);
            fabric.a.flow.read(drain);
            fabric.a.flow.afterCompletions(); // credits to b: its entry goes
            fabric.deliver();
            assertTrue(fabric.a.flow.peerRegionsCover(0, 4096), fabric.b.flow.toString());
        }
    }

    @Test
    void anEntryBeyondTheTableIsAProtocolViolation() {
        try (SimulatedFabric fabric = new SimulatedFabric(16, 8192, 8192, 2)) {
            fabric.connect();
            fabric.a.flow.onReceive(RsocketWire.message(RsocketWire.OP_IOMAP_SGL, 9), 24, null);
            assertTrue(fabric.a.flow.failure().contains("iomap entry 9 of a table of 2"), fabric.a.flow.failure());
        }
    }
}
