package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/pvrdma-mad-mux.c, the MAD multiplexer QEMU's pvrdma device needs in the PVRDMA tiers, speaks
 * QEMU's rdmacm-mux protocol: every 360-byte request comes back as a response with error code OK, byte for
 * byte otherwise, and the multiplexer serves the next client after one leaves.
 */
class MadMultiplexerTest {
    private static final int MESSAGE_SIZE = 360;
    private static final int REQ = 0;
    private static final int RESP = 1;
    private static final int OP_REG = 0;
    private static final int OP_MAD = 2;

    /** Surefire runs at the repository root, where the multiplexer's source lives with the scripts. */
    private static final Path SOURCE = Path.of("scripts/pvrdma-mad-mux.c");

    @TempDir
    Path dir;

    @Test
    void answersEveryRequestWithSuccessAndServesClientsOneAfterAnother() throws Exception {
        RequiredTools.tool("gcc", "gcc");
        Path binary = dir.resolve("pvrdma-mad-mux");
        Gcc.compile(SOURCE, binary, 60, "-O2", "-Wall", "-Wextra", "-Werror");

        Path socket = dir.resolve("mux.sock");
        Process mux = new ProcessBuilder(binary.toString(), socket.toString()).redirectErrorStream(true).start();
        try {
            for (int i = 0; i < 100 && !Files.exists(socket); i++) {
                Thread.sleep(20);
            }
            assertTrue(Files.exists(socket), "the multiplexer listens on " + socket);
            for (int client = 0; client < 2; client++) {
                try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                    channel.connect(UnixDomainSocketAddress.of(socket));
                    for (int op : new int[] {OP_REG, OP_MAD}) {
                        ByteBuffer request = message(op, 7 + client);
                        byte[] sent = request.array().clone();
                        while (request.hasRemaining()) {
                            channel.write(request);
                        }
                        ByteBuffer response = ByteBuffer.allocate(MESSAGE_SIZE).order(ByteOrder.nativeOrder());
                        while (response.hasRemaining()) {
                            assertTrue(channel.read(response) >= 0, "the multiplexer answered before closing");
                        }
                        assertEquals(RESP, response.getInt(0), "msg_type RESP");
                        assertEquals(op, response.getInt(4), "op_code unchanged");
                        assertEquals(0, response.getInt(24), "err_code OK");
                        byte[] expected = sent.clone();
                        ByteBuffer.wrap(expected).order(ByteOrder.nativeOrder()).putInt(0, RESP).putInt(24, 0);
                        assertArrayEquals(expected, response.array(), "everything else echoed");
                    }
                }
            }
            assertTrue(mux.isAlive(), "still serving after two clients");
        } finally {
            mux.destroy();
            mux.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** A request: msg_type REQ, op_code, a GID, a nonzero err_code the answer must clear, and a MAD body. */
    private static ByteBuffer message(int opCode, int seed) throws IOException {
        ByteBuffer m = ByteBuffer.allocate(MESSAGE_SIZE).order(ByteOrder.nativeOrder());
        for (int i = 0; i < MESSAGE_SIZE; i++) {
            m.put(i, (byte) (seed * 13 + i));
        }
        m.putInt(0, REQ).putInt(4, opCode).putInt(24, 5);
        return m;
    }
}
