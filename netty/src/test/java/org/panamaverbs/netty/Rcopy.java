package org.panamaverbs.netty;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * rdmacm-utils' {@code rcopy} protocol (librdmacm/examples/rcopy.c), for the interop tests: the client sends OPEN
 * (the destination path), WRITE (the size, then the file's bytes) and CLOSE, each answered by a 16-byte response
 * carrying a status (0, or an errno). Every message starts with {@code struct msg_hdr}: version (u8, 0), command
 * (u8), len (u16: the whole message), data (u32: OPEN's file mode, a response's status), id (u64, echoed by the
 * response), all in the host's byte order (rcopy does not swap: little-endian between x86 hosts). OPEN's path
 * follows its header, NUL-terminated and padded to a multiple of 8 bytes; WRITE is 24 bytes, its size (u64) after
 * the header, and the file's bytes follow it on the stream without waiting for a response.
 */
final class Rcopy {
    static final int HEADER = 16;
    static final int OPEN = 1;
    static final int CLOSE = 2;
    static final int WRITE = 3;
    static final int RESPONSE = 0x80;
    private static final int EINVAL = 22;

    private Rcopy() {
    }

    static ByteBuf header(int command, int length, int data, long id) {
        return Unpooled.buffer(HEADER).writeByte(0).writeByte(command).writeShortLE(length).writeIntLE(data)
                .writeLongLE(id);
    }

    /** The client's OPEN: {@code path} created with {@code mode} at the server. */
    static ByteBuf open(String path, int mode) {
        byte[] name = path.getBytes(StandardCharsets.UTF_8);
        int padded = (name.length + 8) & ~7; // rcopy.c: room for the NUL, a multiple of 8
        ByteBuf message = header(OPEN, HEADER + padded, mode, 0);
        return message.writeBytes(name).writeZero(padded - name.length);
    }

    /** The client's WRITE: {@code size} bytes of the file follow. */
    static ByteBuf write(long size) {
        return header(WRITE, HEADER + 8, 0, 0).writeLongLE(size);
    }

    static ByteBuf close() {
        return header(CLOSE, HEADER, 0, 0);
    }

    /**
     * Checks a response: its command, its length and a status of 0.
     *
     * @throws AssertionError naming what was wrong
     */
    static void checkResponse(byte[] bytes, int offset, int command) {
        ByteBuf response = Unpooled.wrappedBuffer(bytes, offset, HEADER);
        int version = response.readUnsignedByte();
        int answered = response.readUnsignedByte();
        int length = response.readUnsignedShortLE();
        int status = response.readIntLE();
        if (version != 0 || answered != (command | RESPONSE) || length != HEADER || status != 0) {
            throw new AssertionError("rcopy response to command " + command + ": version " + version + ", command 0x"
                    + Integer.toHexString(answered) + ", length " + length + ", status " + status);
        }
    }

    /**
     * rcopy's server side ({@code server_process}): writes the file a client sends to the path it names (a file of its
     * own, replaced), answers each message, completes {@link #copied} with the path at CLOSE; a message it does not
     * understand is answered with EINVAL and ends the connection, as rcopy's server does.
     */
    static final class Server extends ByteToMessageDecoder {
        final CompletableFuture<Path> copied = new CompletableFuture<>();
        private FileChannel file;
        private Path path;
        private long left = -1;
        private long writeId;

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws IOException {
            while (true) {
                if (left >= 0) {
                    int chunk = (int) Math.min(left, in.readableBytes());
                    for (int n = chunk; n > 0; ) {
                        n -= in.readBytes(file, n);
                    }
                    left -= chunk;
                    if (left > 0) {
                        return;
                    }
                    left = -1;
                    respond(ctx, WRITE, 0, writeId);
                }
                if (in.readableBytes() < HEADER) {
                    return;
                }
                int at = in.readerIndex();
                int version = in.getUnsignedByte(at);
                int command = in.getUnsignedByte(at + 1);
                int length = in.getUnsignedShortLE(at + 2);
                int data = in.getIntLE(at + 4);
                long id = in.getLongLE(at + 8);
                if (version != 0 || length < HEADER) {
                    fail(ctx, "invalid version " + version + " or length " + length);
                    return;
                }
                if (in.readableBytes() < length) {
                    return;
                }
                switch (command) {
                    case OPEN -> {
                        byte[] name = new byte[length - HEADER];
                        in.skipBytes(HEADER).readBytes(name);
                        int end = 0;
                        while (end < name.length && name[end] != 0) {
                            end++;
                        }
                        path = Path.of(new String(name, 0, end, StandardCharsets.UTF_8));
                        file = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                                StandardOpenOption.TRUNCATE_EXISTING);
                        respond(ctx, OPEN, 0, id);
                    }
                    case WRITE -> {
                        if (length != HEADER + 8 || file == null) {
                            fail(ctx, "WRITE of length " + length + (file == null ? " before OPEN" : ""));
                            return;
                        }
                        left = in.skipBytes(HEADER).readLongLE();
                        writeId = id;
                    }
                    case CLOSE -> {
                        in.skipBytes(HEADER);
                        if (file != null) {
                            file.close();
                            file = null;
                        }
                        respond(ctx, CLOSE, 0, id);
                        copied.complete(path);
                    }
                    default -> {
                        in.skipBytes(length);
                        respond(ctx, command, EINVAL, id);
                        fail(ctx, "unknown command " + command + " (data " + data + ")");
                        return;
                    }
                }
            }
        }

        private static void respond(ChannelHandlerContext ctx, int command, int status, long id) {
            ctx.writeAndFlush(header(command | RESPONSE, HEADER, status, id));
        }

        private void fail(ChannelHandlerContext ctx, String why) {
            copied.completeExceptionally(new AssertionError("rcopy client: " + why));
            ctx.close();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            copied.completeExceptionally(cause);
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            copied.completeExceptionally(new AssertionError("the rcopy client closed before CLOSE"));
            if (file != null) {
                file.close();
            }
            super.channelInactive(ctx);
        }
    }
}
