package org.panamaverbs.rsocket;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** The rsocket codec and stream state machine, two flows over a simulated fabric: no device needed. */
class RsocketFlowTest {

    @Test
    void immediateCarriesOpInTheTopThreeBitsAndTheValueBelow() {
        assertEquals(0x0000_1000, RsocketWire.message(RsocketWire.OP_DATA, 4096));
        assertEquals(0x8000_0180, RsocketWire.message(RsocketWire.OP_SGL, 384));
        assertEquals(0xE000_0000, RsocketWire.message(RsocketWire.OP_CTRL, RsocketWire.CTRL_DISCONNECT));
        assertEquals(0xE000_0002, RsocketWire.message(RsocketWire.OP_CTRL, RsocketWire.CTRL_SHUTDOWN));
        assertEquals(RsocketWire.OP_CTRL, RsocketWire.op(0xE000_0002));
        assertEquals(2, RsocketWire.value(0xE000_0002));
        assertEquals(0x1FFF_FFFF, RsocketWire.value(RsocketWire.message(RsocketWire.OP_DATA, -1)));
        assertEquals("SGL credits to 384", RsocketWire.describe(0x8000_0180));
        assertEquals("CTRL SHUTDOWN", RsocketWire.describe(0xE000_0002));
    }

    @Test
    void connectionDataIsFortyBigEndianBytesAsRsFormatConnDataWritesThem() {
        var data = new RsocketWire.ConnectionData(RsocketWire.FLAG_IOMAP, 384, 0, 0x7f00_1122_3344_5500L, 0x1234,
                2, 0x7f00_aabb_ccdd_0000L, 0x5678, 65536);
        byte[] bytes = data.encode();
        assertEquals("01020180" + "00000000" + "7f00112233445500" + "00001234" + "00000002"
                + "7f00aabbccdd0000" + "00005678" + "00010000", HexFormat.of().formatHex(bytes));
        byte[] padded = java.util.Arrays.copyOf(bytes, 56); // InfiniBand/RoCE pad private data to 56 bytes
        assertEquals(data, RsocketWire.ConnectionData.decode(padded));
        assertFalse(data.networkOrder());
    }

    @Test
    void garbagePrivateDataIsRefusedWithTheByteThatIsWrong() {
        byte[] good = new RsocketWire.ConnectionData(0, 16, 0, 1, 2, 2, 3, 4, 4096).encode();
        assertThrows(RsocketWire.MalformedConnectionData.class, () -> RsocketWire.ConnectionData.decode(new byte[12]));
        assertThrows(RsocketWire.MalformedConnectionData.class, () -> RsocketWire.ConnectionData.decode(null));
        byte[] version = good.clone();
        version[0] = 2;
        var e = assertThrows(RsocketWire.MalformedConnectionData.class, () -> RsocketWire.ConnectionData.decode(version));
        assertTrue(e.getMessage().contains("version 2"), e.getMessage());
        byte[] noCredits = good.clone();
        noCredits[2] = 0;
        noCredits[3] = 0;
        assertThrows(RsocketWire.MalformedConnectionData.class, () -> RsocketWire.ConnectionData.decode(noCredits));
        byte[] noBuffer = good.clone();
        java.util.Arrays.fill(noBuffer, 36, 40, (byte) 0);
        assertThrows(RsocketWire.MalformedConnectionData.class, () -> RsocketWire.ConnectionData.decode(noBuffer));
        byte[] random = new byte[56];
        new Random(7).nextBytes(random);
        random[0] = 1;
        random[20] = 0x7f; // an absurd target list
        assertThrows(RsocketWire.MalformedConnectionData.class, () -> RsocketWire.ConnectionData.decode(random));
    }

    @Test
    void iomapSizeScaleMatchesRsocket() {
        assertEquals(0, RsocketWire.valueToScale(0));
        assertEquals(128, RsocketWire.valueToScale(128));
        assertEquals(0x80 | 2, RsocketWire.valueToScale(512));
        assertEquals(512, RsocketWire.scaleToValue(0x82));
    }

    @Test
    void bytesArriveInOrderThroughWrappingBuffersAndBothGrantedHalves() throws Exception {
        try (SimulatedFabric fabric = new SimulatedFabric(32, 8192, 8192)) {
            fabric.connect();
            Random random = new Random(42);
            byte[] sent = new byte[3 * 1024 * 1024];
            random.nextBytes(sent);
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            int offset = 0;
            int rounds = 0;
            while (received.size() < sent.length) {
                assertTrue(++rounds < 1_000_000, "no progress: " + fabric.a.flow + " / " + fabric.b.flow);
                if (offset < sent.length) {
                    int chunk = Math.min(sent.length - offset, 1 + random.nextInt(20000));
                    ByteBuffer source = ByteBuffer.wrap(sent, offset, chunk);
                    offset += fabric.a.flow.write(source);
                    fabric.a.flow.flush();
                }
                fabric.deliver();
                ByteBuffer target = ByteBuffer.allocate(1 + random.nextInt(9000));
                fabric.b.flow.read(target);
                fabric.b.flow.afterCompletions();
                received.write(target.array(), 0, target.position());
            }
            assertArrayEquals(sent, received.toByteArray());
            fabric.deliver();
            assertTrue(fabric.a.flow.allSendsDone(), fabric.a.flow.toString());
            assertNull(fabric.a.flow.failure());
            assertNull(fabric.b.flow.failure());
            // selective signalling: far fewer completions than writes
            assertTrue(fabric.a.signaledCompletions < fabric.a.writesPosted, fabric.a.signaledCompletions + " of "
                    + fabric.a.writesPosted);
        }
    }

    @Test
    void aReceiverThatDoesNotReadStopsTheSenderAtItsBufferAndLosesNothing() throws Exception {
        try (SimulatedFabric fabric = new SimulatedFabric(64, 16384, 16384)) {
            fabric.connect();
            fabric.deliver();
            byte[] sent = new byte[100_000];
            new Random(1).nextBytes(sent);
            ByteBuffer source = ByteBuffer.wrap(sent);
            for (int i = 0; i < 20; i++) {
                fabric.a.flow.write(source);
                fabric.a.flow.flush();
                fabric.deliver();
            }
            int accepted = sent.length - source.remaining();
            assertEquals(16384, accepted, "exactly the receive buffer is in flight while nobody reads");
            assertFalse(fabric.a.flow.canSend());
            assertEquals(16384, fabric.b.flow.readableBytes());
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            while (received.size() < sent.length) {
                ByteBuffer target = ByteBuffer.allocate(5000);
                fabric.b.flow.read(target);
                fabric.b.flow.afterCompletions();
                received.write(target.array(), 0, target.position());
                fabric.deliver();
                fabric.a.flow.write(source);
                fabric.a.flow.flush();
                fabric.deliver();
            }
            assertArrayEquals(sent, received.toByteArray());
        }
    }

    @Test
    void smallMessagesAreLimitedByMessageCreditsNotBytes() {
        int queue = 32;
        try (SimulatedFabric fabric = new SimulatedFabric(queue, 65536, 65536)) {
            fabric.connect();
            fabric.deliver();
            int messages = 0;
            for (int i = 0; i < 1000; i++) {
                int n = fabric.a.flow.write(ByteBuffer.wrap(new byte[] {(byte) i}));
                fabric.a.flow.flush();
                fabric.deliver();
                if (n == 0) {
                    break;
                }
                messages++;
            }
            // credits: the receive queue size, less nothing consumed; sends also stop at the send queue
            assertTrue(messages <= queue && messages >= queue / 2, messages + " one-byte messages before the credits ran out");
            assertEquals(messages, fabric.b.flow.readableBytes());
            ByteBuffer all = ByteBuffer.allocate(messages);
            fabric.b.flow.read(all);
            fabric.b.flow.afterCompletions();
            fabric.deliver();
            for (int i = 0; i < messages; i++) {
                assertEquals((byte) i, all.get(i));
            }
            assertTrue(fabric.a.flow.canSend(), "credits came back after the reads: " + fabric.a.flow);
        }
    }

    @Test
    void shutdownOutputIsAHalfCloseAndCloseDisconnects() {
        try (SimulatedFabric fabric = new SimulatedFabric(16, 8192, 8192)) {
            fabric.connect();
            fabric.a.flow.write(ByteBuffer.wrap("last words".getBytes()));
            fabric.a.flow.flush();
            fabric.a.flow.shutdownOutput();
            fabric.deliver();
            assertFalse(fabric.a.flow.isOutputOpen());
            assertTrue(fabric.b.flow.isPeerOutputDone());
            assertFalse(fabric.b.flow.isPeerDisconnected());
            ByteBuffer data = ByteBuffer.allocate(64);
            fabric.b.flow.read(data);
            assertEquals("last words", new String(data.array(), 0, data.position(), java.nio.charset.StandardCharsets.US_ASCII));
            // the other direction still works
            assertEquals(5, fabric.b.flow.write(ByteBuffer.wrap("reply".getBytes())));
            fabric.b.flow.flush();
            fabric.deliver();
            assertEquals(5, fabric.a.flow.readableBytes());
            fabric.b.flow.close();
            fabric.deliver();
            assertTrue(fabric.a.flow.isPeerDisconnected());
            assertFalse(fabric.a.flow.isConnected());
            assertEquals(5, fabric.a.flow.readableBytes(), "data that arrived before DISCONNECT stays readable");
            assertTrue(fabric.b.flow.allSendsDone());
        }
    }

    @Test
    void shutdownAfterThePeerShutDownIsADisconnect() {
        try (SimulatedFabric fabric = new SimulatedFabric(16, 8192, 8192)) {
            fabric.connect();
            fabric.a.flow.shutdownOutput();
            fabric.deliver();
            assertTrue(fabric.b.flow.isPeerOutputDone());
            fabric.b.flow.shutdownOutput(); // rshutdown(SHUT_WR) when no longer readable sends DISCONNECT
            fabric.deliver();
            assertTrue(fabric.a.flow.isPeerDisconnected());
        }
    }

    @Test
    void aBigEndianPeerGetsItsBufferGrantsBigEndian() {
        try (SimulatedFabric fabric = new SimulatedFabric(16, 8192, 8192)) {
            var fromB = fabric.b.flow.localData();
            var bigEndianB = new RsocketWire.ConnectionData(RsocketWire.FLAG_NETWORK_ORDER, fromB.credits(), 0,
                    fromB.targetAddress(), fromB.targetKey(), fromB.targetSlots(), fromB.bufferAddress(),
                    fromB.bufferKey(), fromB.bufferLength());
            fabric.a.postReceives(16);
            fabric.b.postReceives(16);
            fabric.a.flow.start(bigEndianB);
            fabric.a.flow.afterCompletions(); // established: grants a's second half
            fabric.deliver();
            // b's target list entry 1 now holds a's grant, written big-endian
            long address = fabric.b.receive.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 8192 + 16);
            int length = fabric.b.receive.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 8192 + 28);
            assertEquals(fabric.a.receive.address() + 4096, address);
            assertEquals(4096, length);
        }
    }

    @Test
    void takingThePeersDataPostsNothingBeforeTheConnectionIsEstablished() {
        // the passive side takes the request's data before rdma_accept, when its queue pair cannot send yet
        try (SimulatedFabric fabric = new SimulatedFabric(16, 8192, 8192)) {
            fabric.a.flow.start(RsocketWire.ConnectionData.decode(fabric.b.flow.localData().encode()));
            fabric.a.flow.flush();
            assertEquals(0, fabric.a.writesPosted, "nothing posted by start()");
            assertTrue(fabric.a.idle());
            fabric.a.flow.afterCompletions(); // ESTABLISHED: the second half is granted now
            assertEquals(1, fabric.a.writesPosted);
        }
    }

    @Test
    void keepaliveIsAZeroByteWriteThatTheReceiverNeverSees() {
        try (SimulatedFabric fabric = new SimulatedFabric(16, 8192, 8192)) {
            fabric.connect();
            fabric.deliver();
            int before = fabric.b.postedReceives;
            fabric.a.flow.sendKeepalive();
            assertFalse(fabric.a.flow.allSendsDone());
            fabric.deliver();
            assertTrue(fabric.a.flow.allSendsDone());
            assertEquals(before, fabric.b.postedReceives, "no receive consumed");
        }
    }

    @Test
    void sixteenMebibytesEchoedThroughSmallBuffersArriveWhole() {
        // both directions at once through 128 KiB buffers: the echoing side holds back at most 64 KiB it could not
        // send yet, as a channel's outbound buffer would, and reads again only below that
        try (SimulatedFabric fabric = new SimulatedFabric(128, 1 << 17, 1 << 17)) {
            fabric.connect();
            fabric.deliver();
            byte[] sent = new byte[16 << 20];
            new Random(3).nextBytes(sent);
            ByteBuffer source = ByteBuffer.wrap(sent);
            java.util.ArrayDeque<ByteBuffer> pending = new java.util.ArrayDeque<>();
            int pendingBytes = 0;
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            int rounds = 0;
            while (received.size() < sent.length) {
                assertTrue(++rounds < 1_000_000, "no progress: " + fabric.a.flow + " / " + fabric.b.flow
                        + ", " + pendingBytes + " bytes pending, " + received.size() + " received");
                if (source.hasRemaining()) {
                    fabric.a.flow.write(source);
                    fabric.a.flow.flush();
                }
                fabric.deliver();
                while (!pending.isEmpty()) {
                    ByteBuffer next = pending.peek();
                    pendingBytes -= fabric.b.flow.write(next);
                    if (next.hasRemaining()) {
                        break;
                    }
                    pending.poll();
                }
                fabric.b.flow.flush();
                if (pendingBytes < 65536) {
                    ByteBuffer read = ByteBuffer.allocate(16384);
                    fabric.b.flow.read(read);
                    fabric.b.flow.afterCompletions();
                    if (read.flip().hasRemaining()) {
                        pending.add(read);
                        pendingBytes += read.remaining();
                    }
                }
                fabric.deliver();
                ByteBuffer echoed = ByteBuffer.allocate(65536);
                fabric.a.flow.read(echoed);
                fabric.a.flow.afterCompletions();
                received.write(echoed.array(), 0, echoed.position());
            }
            assertArrayEquals(sent, received.toByteArray());
        }
    }
}
