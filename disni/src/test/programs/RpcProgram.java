import com.ibm.disni.RdmaActiveEndpoint;
import com.ibm.disni.RdmaActiveEndpointGroup;
import com.ibm.disni.RdmaServerEndpoint;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A DaRPC-style program: active endpoints whose completions arrive through {@code dispatchCqEvent} on the group's
 * CQ thread, and the server answering requests inside that callback. Every verb call is a stateful verb call
 * created once and executed again after being modified in place through its {@code *Mod} interfaces (wr_id,
 * length, remote address), as DiSNI applications do.
 *
 * <p>{@code server ADDRESS PORT} serves one client; {@code client ADDRESS PORT ROUNDS}:
 * <ol>
 *   <li>receives the server's region descriptor (address, length, rkey: 16 B, big-endian) by SEND;
 *   <li>ROUNDS request/response round trips by SEND/RECV, lengths varying with the round;
 *   <li>RDMA READs of the server's region at three offsets and lengths, compared with the pattern the server wrote;
 *   <li>an RDMA WRITE with immediate of its own pattern into the upper half of the server's region: the server
 *       checks the immediate and every byte and answers with what it found;
 *   <li>"bye", answered by "bye", then both close.
 * </ol>
 * Every completion's status, opcode and wr_id, and every received length and byte, is checked; any mismatch ends
 * the program with exit code 1. Compiled against the published disni-2.1.jar and run unchanged on this module
 * and on DiSNI itself.
 */
public class RpcProgram {
    static final int MESSAGE = 256;
    static final int REGION = 4096;
    static final int WRITE_OFFSET = REGION / 2;
    static final int WRITE_IMMEDIATE = 0x5ca1ab1e;
    static final long RECV_ID = 7, SEND_ID = 1000, READ_ID = 2000, WRITE_ID = 3000;
    static final int WC_SEND = 0, WC_RDMA_WRITE = 1, WC_RDMA_READ = 2, WC_RECV = 128, WC_RECV_RDMA_WITH_IMM = 129;
    static final long WAIT_SECONDS = 60;

    /** The fields of a completion, copied in the callback: DiSNI reuses the IbvWC it hands over. */
    record Completion(long wrId, int opcode, int status, int byteLen, int immediate) { }

    static byte serverPattern(int i) {
        return (byte) (i * 31 + 7);
    }

    static byte clientPattern(int i) {
        return (byte) (i * 17 + 3);
    }

    static final class Endpoint extends RdmaActiveEndpoint {
        final ByteBuffer sendBuf = ByteBuffer.allocateDirect(MESSAGE);
        final ByteBuffer recvBuf = ByteBuffer.allocateDirect(MESSAGE);
        final ByteBuffer region = ByteBuffer.allocateDirect(REGION);
        final ArrayBlockingQueue<Completion> completions = new ArrayBlockingQueue<>(64);
        IbvMr sendMr, recvMr, regionMr;
        SVCPostRecv recv;
        SVCPostSend send, read, write;
        // server side: requests answered in the callback
        int served;
        String failure;
        final CountDownLatch finished = new CountDownLatch(1);

        Endpoint(RdmaActiveEndpointGroup<Endpoint> group, RdmaCmId id, boolean serverSide) throws IOException {
            super(group, id, serverSide);
        }

        @Override
        protected synchronized void init() throws IOException {
            sendMr = registerMemory(sendBuf).execute().free().getMr();
            recvMr = registerMemory(recvBuf).execute().free().getMr();
            regionMr = registerMemory(region).execute().free().getMr();
            IbvRecvWR recvWr = new IbvRecvWR();
            recvWr.setWr_id(RECV_ID);
            recvWr.setSg_list(ProgramSupport.sges(recvMr, MESSAGE));
            recv = postRecv(ProgramSupport.list(recvWr));
            send = postSend(ProgramSupport.list(ProgramSupport.signaled(IbvSendWR.IBV_WR_SEND, SEND_ID, sendMr, MESSAGE)));
            read = postSend(ProgramSupport.list(ProgramSupport.signaled(IbvSendWR.IBV_WR_RDMA_READ, READ_ID, regionMr, 32)));
            IbvSendWR writeWr = ProgramSupport.signaled(IbvSendWR.IBV_WR_RDMA_WRITE_WITH_IMM, WRITE_ID, regionMr,
                    REGION / 2);
            writeWr.setImm_data(WRITE_IMMEDIATE);
            write = postSend(ProgramSupport.list(writeWr));
            recv.execute(); // posted before rdma_connect/rdma_accept: init() runs first
        }

        @Override
        public void dispatchCqEvent(IbvWC wc) throws IOException {
            Completion c = new Completion(wc.getWr_id(), wc.getOpcode(), wc.getStatus(), wc.getByte_len(),
                    wc.getImm_data());
            if (isServerSide()) {
                serve(c);
            } else if (!completions.offer(c)) {
                throw new IOException("more than 64 completions not taken");
            }
        }

        /** The server's request handling, on the CQ thread as in DaRPC. */
        private void serve(Completion c) {
            try {
                ProgramSupport.check(c.status == 0, "server completion " + c.wrId + " status " + c.status);
                if (c.opcode == WC_SEND) {
                    ProgramSupport.check(c.wrId >= SEND_ID && c.wrId < READ_ID, "server send wr_id " + c.wrId);
                    return;
                }
                ProgramSupport.check(c.wrId == RECV_ID, "server receive wr_id " + c.wrId);
                String answer;
                if (c.opcode == WC_RECV_RDMA_WITH_IMM) {
                    ProgramSupport.check(c.immediate == WRITE_IMMEDIATE, "immediate " + Integer.toHexString(c.immediate));
                    answer = "written " + verifyWrite();
                } else {
                    ProgramSupport.check(c.opcode == WC_RECV, "server receive opcode " + c.opcode);
                    String request = ProgramSupport.text(recvBuf, c.byteLen);
                    answer = request.equals("bye") ? "bye" : "response to " + request;
                }
                recv.execute();
                reply(answer, SEND_ID + served++);
                if (answer.equals("bye")) {
                    finished.countDown();
                }
            } catch (IOException | RuntimeException e) {
                failure = e.toString();
                finished.countDown();
            }
        }

        private String verifyWrite() {
            for (int i = 0; i < REGION / 2; i++) {
                if (region.get(WRITE_OFFSET + i) != clientPattern(i)) {
                    return "mismatch at " + i;
                }
            }
            for (int i = 0; i < WRITE_OFFSET; i++) {
                if (region.get(i) != serverPattern(i)) {
                    return "lower half changed at " + i;
                }
            }
            return (REGION / 2) + " bytes as sent";
        }

        void reply(String text, long wrId) throws IOException {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            sendBuf.clear();
            sendBuf.put(bytes);
            send.getWrMod(0).setWr_id(wrId);
            send.getWrMod(0).getSgeMod(0).setLength(bytes.length);
            send.execute();
        }

        Completion take(String what) throws IOException, InterruptedException {
            Completion c = completions.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            ProgramSupport.check(c != null, "no completion for " + what + " within " + WAIT_SECONDS + " s");
            ProgramSupport.check(c.status == 0, what + ": status " + c.status);
            return c;
        }

        /** Takes the completion of the request just posted and the receive of the answer, in either order. */
        String roundTrip(String what, long wrId, int opcode) throws IOException, InterruptedException {
            String answer = null;
            boolean done = false;
            while (answer == null || !done) {
                Completion c = take(what);
                if (c.opcode == WC_RECV) {
                    ProgramSupport.check(c.wrId == RECV_ID && answer == null, what + ": receive wr_id " + c.wrId);
                    answer = ProgramSupport.text(recvBuf, c.byteLen);
                    recv.execute();
                } else {
                    ProgramSupport.check(c.opcode == opcode && c.wrId == wrId && !done, what + ": opcode " + c.opcode + " wr_id " + c.wrId);
                    done = true;
                }
            }
            return answer;
        }

        /** Waits for the one outstanding completion of a READ, which has no answer. */
        void awaitOwn(String what, long wrId, int opcode) throws IOException, InterruptedException {
            Completion c = take(what);
            ProgramSupport.check(c.opcode == opcode && c.wrId == wrId, what + ": opcode " + c.opcode + " wr_id " + c.wrId);
        }
    }

    static void runServer(RdmaActiveEndpointGroup<Endpoint> group, InetSocketAddress address) throws Exception {
        RdmaServerEndpoint<Endpoint> server = group.createServerEndpoint();
        server.bind(address, 10);
        System.out.println("listening on " + address);
        Endpoint endpoint = server.accept();
        for (int i = 0; i < REGION; i++) {
            endpoint.region.put(i, serverPattern(i));
        }
        ByteBuffer descriptor = endpoint.sendBuf.duplicate();
        descriptor.clear();
        descriptor.putLong(endpoint.regionMr.getAddr()).putInt(endpoint.regionMr.getLength())
                .putInt(endpoint.regionMr.getRkey());
        endpoint.send.getWrMod(0).getSgeMod(0).setLength(16);
        endpoint.send.execute();
        ProgramSupport.check(endpoint.finished.await(10 * WAIT_SECONDS, TimeUnit.SECONDS), "end of the session within "
                + 10 * WAIT_SECONDS + " s");
        ProgramSupport.check(endpoint.failure == null, "server failure: " + endpoint.failure);
        System.out.println("server answered " + endpoint.served + " messages");
        endpoint.close();
        server.close();
    }

    static void runClient(RdmaActiveEndpointGroup<Endpoint> group, InetSocketAddress address, int rounds)
            throws Exception {
        Endpoint endpoint = group.createEndpoint();
        endpoint.connect(address, ProgramSupport.CONNECT_TIMEOUT_MS);
        Completion first = endpoint.take("descriptor");
        ProgramSupport.check(first.opcode == WC_RECV && first.byteLen == 16, "descriptor opcode " + first.opcode + " length "
                + first.byteLen);
        ByteBuffer descriptor = endpoint.recvBuf.duplicate();
        descriptor.clear();
        long remoteAddress = descriptor.getLong();
        int remoteLength = descriptor.getInt();
        int rkey = descriptor.getInt();
        ProgramSupport.check(remoteLength == REGION, "remote length " + remoteLength);
        endpoint.recv.execute();

        for (int round = 0; round < rounds; round++) {
            String request = "request " + round + " " + "x".repeat(round * 7 % 200);
            endpoint.reply(request, SEND_ID + round);
            String answer = endpoint.roundTrip("round " + round, SEND_ID + round, WC_SEND);
            ProgramSupport.check(answer.equals("response to " + request), "answer to round " + round + ": " + answer);
        }
        System.out.println("client: " + rounds + " round trips answered");

        int[][] reads = {{0, 32}, {100, 1000}, {0, REGION}};
        for (int[] r : reads) {
            int offset = r[0], length = r[1];
            endpoint.region.clear();
            for (int i = 0; i < REGION; i++) {
                endpoint.region.put(i, (byte) 0);
            }
            SVCPostSend.SendWRMod wr = endpoint.read.getWrMod(0);
            wr.setWr_id(READ_ID + offset);
            wr.getSgeMod(0).setLength(length);
            wr.getRdmaMod().setRemote_addr(remoteAddress + offset);
            wr.getRdmaMod().setRkey(rkey);
            endpoint.read.execute();
            endpoint.awaitOwn("read " + offset + "+" + length, READ_ID + offset, WC_RDMA_READ);
            for (int i = 0; i < length; i++) {
                ProgramSupport.check(endpoint.region.get(i) == serverPattern(offset + i), "byte " + i + " of read " + offset + "+"
                        + length);
            }
            ProgramSupport.check(length == REGION || endpoint.region.get(length) == 0, "byte after read " + offset + "+" + length);
        }
        System.out.println("client: " + reads.length + " RDMA READs match the server's bytes");

        for (int i = 0; i < REGION / 2; i++) {
            endpoint.region.put(i, clientPattern(i));
        }
        SVCPostSend.SendWRMod wr = endpoint.write.getWrMod(0);
        wr.getRdmaMod().setRemote_addr(remoteAddress + WRITE_OFFSET);
        wr.getRdmaMod().setRkey(rkey);
        endpoint.write.execute();
        String verdict = endpoint.roundTrip("write with immediate", WRITE_ID, WC_RDMA_WRITE);
        ProgramSupport.check(verdict.equals("written " + (REGION / 2) + " bytes as sent"), "server's check of the write: " + verdict);
        System.out.println("client: RDMA WRITE with immediate checked by the server: " + verdict);

        endpoint.reply("bye", SEND_ID + rounds);
        ProgramSupport.check(endpoint.roundTrip("bye", SEND_ID + rounds, WC_SEND).equals("bye"), "answer to bye");
        endpoint.close();
    }

    public static void main(String[] args) throws Exception {
        InetSocketAddress address = new InetSocketAddress(args[1], Integer.parseInt(args[2]));
        RdmaActiveEndpointGroup<Endpoint> group = new RdmaActiveEndpointGroup<>(1000, false, 16, 1, 64);
        // DiSNI connects with retry_count 0, so one late ACK ends the connection (seen under emulation with
        // LatencyProgram and PipelineProgram). 7 is what perftest uses.
        group.getConnParam().setRetry_count((byte) 7);
        group.init((id, serverSide) -> new Endpoint(group, id, serverSide));
        try {
            if (args[0].equals("server")) {
                runServer(group, address);
            } else {
                runClient(group, address, Integer.parseInt(args[3]));
            }
        } catch (Exception e) {
            System.out.println("failed: " + e);
            e.printStackTrace(System.out);
            System.exit(1);
        }
        group.close();
        System.out.println("done");
        System.exit(0); // the active group's CQ thread is not a daemon in DiSNI
    }
}
