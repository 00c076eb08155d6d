package org.panamaverbs.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Direct placement between two Java peers on the device ({@link RdmaSocketChannel#mapRegion},
 * {@link RdmaDirectWrite}): bytes written into a mapped region compared with what was sent, the stream ordered after
 * them, and the refusals: no table at the peer, offsets outside its regions, a write after the peer unmapped.
 */
@Tag(DeviceTest.CI)
class MappedRegionDeviceTest extends DeviceTest {
    private static final int MIB = 1 << 20;

    /** A client with a table of one entry, the server's child for it, and a region the child mapped at {@code offset}. */
    private record Mapped(RdmaSocketChannel client, Echo.Collector clientStream, CollectingServer.Child child,
            RdmaMappedRegion region) {
        static Mapped on(CollectingServer server, int size, long offset) throws Exception {
            Echo.Collector clientStream = new Echo.Collector(Long.MAX_VALUE);
            RdmaSocketChannel client = server.connect(1, clientStream);
            CollectingServer.Child child = server.take("the client");
            RdmaMappedRegion region = child.channel().mapRegion(size, offset).get(60, TimeUnit.SECONDS);
            child.channel().writeAndFlush(Unpooled.wrappedBuffer(new byte[] {'m'})).sync(); // after the entry
            awaitStream(clientStream, 1);
            return new Mapped(client, clientStream, child, region);
        }
    }

    private static void awaitStream(Echo.Collector stream, int bytes) throws InterruptedException {
        assertEquals(bytes, stream.awaitSize(bytes, 60), "stream bytes");
    }

    @Test
    void aPeersDirectWriteLandsInTheMappedRegionBeforeTheStreamDataAfterIt() throws Exception {
        try (CollectingServer server = CollectingServer.start(0)) {
            Mapped mapped = Mapped.on(server, MIB + 4096, 1 << 30);
            try (RdmaMappedRegion region = mapped.region()) {
                assertEquals(MIB + 4096, region.size());
                byte[] sent = new byte[MIB + 1];
                new Random(11).nextBytes(sent);
                // 1 MiB + 1 at offset 2^30 + 1000: 2 KiB doubling to 64 KiB transfers, an odd start and tail
                ChannelFuture direct = mapped.client().write(new RdmaDirectWrite((1 << 30) + 1000,
                        Unpooled.wrappedBuffer(sent)));
                mapped.client().writeAndFlush(Unpooled.wrappedBuffer(new byte[] {'d'}));
                awaitStream(mapped.child().stream(), 1); // 'd' comes after every byte of the direct write is in place
                assertTrue(direct.isSuccess(), "the direct write completed before the byte after it: " + direct.cause());
                assertArrayEquals(sent, region.segment().asSlice(1000, sent.length).toArray(ValueLayout.JAVA_BYTE));
                assertEquals(0, region.segment().get(ValueLayout.JAVA_BYTE, 999), "nothing before the offset");
            }
            mapped.client().close().sync();
        }
    }

    @Test
    void aWriteOutsideThePeersRegionsFailsAloneAndTheChannelGoesOn() throws Exception {
        try (CollectingServer server = CollectingServer.start(0)) {
            Mapped mapped = Mapped.on(server, 4096, 0);
            RdmaSocketChannel client = mapped.client();
            try (RdmaMappedRegion region = mapped.region()) {
                ChannelFuture beyond = client.writeAndFlush(new RdmaDirectWrite(4000, Unpooled.wrappedBuffer(new byte[100])))
                        .await();
                assertInstanceOf(IllegalArgumentException.class, beyond.cause());
                assertTrue(beyond.cause().getMessage().contains("[4000, 4100)")
                        && beyond.cause().getMessage().contains("[0, 4096)"), beyond.cause().getMessage());
                client.writeAndFlush(new RdmaDirectWrite(4000, Unpooled.wrappedBuffer(new byte[] {7}))).sync();
                client.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {'d'})).sync();
                awaitStream(mapped.child().stream(), 1);
                assertEquals(7, region.segment().get(ValueLayout.JAVA_BYTE, 4000));
                assertTrue(client.isActive() && mapped.child().channel().isActive());
            }
            client.close().sync();
        }
    }

    @Test
    void mappingFailsWhenThePeerHasNoTableAndAfterTheClose() throws Exception {
        try (CollectingServer server = CollectingServer.start(0)) {
            RdmaSocketChannel client = server.connect(0, new Echo.Collector(Long.MAX_VALUE));
            RdmaSocketChannel child = server.take("the client").channel();
            var noTable = assertThrows(ExecutionException.class, () -> child.mapRegion(4096, 0).get(60, TimeUnit.SECONDS));
            assertInstanceOf(IllegalStateException.class, noTable.getCause());
            assertTrue(noTable.getCause().getMessage().contains("RdmaChannelOption.IOMAP_SIZE"), noTable.getMessage());
            assertThrows(IllegalArgumentException.class, () -> client.mapRegion(0, 0));
            client.close().sync();
            var closed = assertThrows(ExecutionException.class, () -> client.mapRegion(4096, 0).get(60, TimeUnit.SECONDS));
            assertInstanceOf(java.nio.channels.ClosedChannelException.class, closed.getCause());
        }
    }

    @Test
    void aWriteIntoAnUnmappedRegionEndsTheConnectionAndTheMemoryStaysReadable() throws Exception {
        try (CollectingServer server = CollectingServer.start(0)) {
            Mapped mapped = Mapped.on(server, 4096, 0);
            RdmaMappedRegion region = mapped.region();
            region.close(); // riounmap: the peer is not told
            region.close(); // idempotent
            assertEquals(0, region.segment().get(ValueLayout.JAVA_BYTE, 0), "the memory stays readable, as riomap's buf");
            mapped.client().writeAndFlush(new RdmaDirectWrite(0, Unpooled.wrappedBuffer(new byte[64])));
            // the write's completion fails (remote access error on the old key): the connection ends on both sides
            mapped.clientStream().inactive.get(60, TimeUnit.SECONDS);
            Throwable cause = mapped.clientStream().failure.getNow(null);
            assertInstanceOf(java.io.IOException.class, cause, "the writer's pipeline hears why: " + cause);
            assertTrue(cause.getMessage().contains("REM_ACCESS_ERR"), cause.getMessage());
            assertTrue(mapped.child().channel().closeFuture().await(60, TimeUnit.SECONDS), "the mapper's channel ends too");
            assertEquals(0, region.segment().get(ValueLayout.JAVA_BYTE, 0), "nothing was written into it");
        }
    }
}
