package org.panamaverbs.netty;

import static org.junit.jupiter.api.Assertions.*;
import java.io.ByteArrayOutputStream;
import java.util.ArrayDeque;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

class ScratchEchoTest {
    @Test
    void echo() throws Exception {
        try (SimulatedFabric fabric = new SimulatedFabric(128, 1 << 17, 1 << 17)) {
            fabric.connect();
            fabric.deliver();
            byte[] sent = Echo.pattern(3, 16 << 20);
            ByteBuf source = Unpooled.wrappedBuffer(sent);
            ArrayDeque<ByteBuf> pending = new ArrayDeque<>();
            int pendingBytes = 0;
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            int rounds = 0;
            while (received.size() < sent.length) {
                assertTrue(++rounds < 1_000_000, "no progress: " + fabric.a.flow + " / " + fabric.b.flow + " pending " + pendingBytes + " recv " + received.size());
                if (source.isReadable()) { fabric.a.flow.write(source); fabric.a.flow.flush(); }
                fabric.deliver();
                // b: write pending
                while (!pending.isEmpty()) {
                    ByteBuf p = pending.peek();
                    int n = fabric.b.flow.write(p);
                    pendingBytes -= n;
                    if (p.isReadable()) break;
                    pending.poll();
                }
                fabric.b.flow.flush();
                if (pendingBytes < 65536) {
                    ByteBuf t = Unpooled.buffer(16384);
                    fabric.b.flow.read(t, 16384);
                    fabric.b.flow.afterCompletions();
                    if (t.isReadable()) { pending.add(t); pendingBytes += t.readableBytes(); }
                }
                fabric.deliver();
                ByteBuf t = Unpooled.buffer(65536);
                fabric.a.flow.read(t, 65536);
                fabric.a.flow.afterCompletions();
                t.readBytes(received, t.readableBytes());
            }
            assertArrayEquals(sent, received.toByteArray());
        }
    }
}
