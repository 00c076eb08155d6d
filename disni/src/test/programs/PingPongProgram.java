import com.ibm.disni.RdmaEndpoint;
import com.ibm.disni.RdmaEndpointGroup;
import com.ibm.disni.RdmaPassiveEndpointGroup;
import com.ibm.disni.RdmaServerEndpoint;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCPollCq;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedList;

/**
 * A program written the way DiSNI 2.1 applications are (passive endpoints polling their own completion queue,
 * SEND/RECV), compiled by ProgramsDeviceTest against the published disni-2.1.jar and run against this module:
 * {@code server ADDRESS PORT} answers one message with "pong: " + message; {@code client ADDRESS PORT TEXT}
 * sends TEXT and prints the answer. Every completion's status, opcode, id and length is checked.
 */
public class PingPongProgram {
    static final int SIZE = 256;

    static final class Endpoint extends RdmaEndpoint {
        final ByteBuffer sendBuf = ByteBuffer.allocateDirect(SIZE);
        final ByteBuffer recvBuf = ByteBuffer.allocateDirect(SIZE);
        IbvMr sendMr;
        IbvMr recvMr;
        IbvWC[] wcs;
        SVCPollCq poll;

        Endpoint(RdmaEndpointGroup<? extends RdmaEndpoint> group, RdmaCmId id, boolean serverSide) throws IOException {
            super(group, id, serverSide);
        }

        @Override
        protected synchronized void init() throws IOException {
            sendMr = registerMemory(sendBuf).execute().free().getMr();
            recvMr = registerMemory(recvBuf).execute().free().getMr();
            IbvRecvWR recv = new IbvRecvWR();
            recv.setWr_id(7);
            recv.setSg_list(ProgramSupport.sges(recvMr, SIZE));
            LinkedList<IbvRecvWR> recvs = new LinkedList<>();
            recvs.add(recv);
            postRecv(recvs).execute().free(); // before the connection is established, as DiSNI programs do
            wcs = new IbvWC[4];
            for (int i = 0; i < wcs.length; i++) {
                wcs[i] = new IbvWC();
            }
            poll = getCqProvider().getCQ().poll(wcs, 1);
        }

        void send(String text) throws IOException {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            sendBuf.clear();
            sendBuf.put(bytes);
            IbvSendWR wr = new IbvSendWR();
            wr.setWr_id(9);
            wr.setOpcode(IbvSendWR.IBV_WR_SEND);
            wr.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
            wr.setSg_list(ProgramSupport.sges(sendMr, bytes.length));
            LinkedList<IbvSendWR> wrs = new LinkedList<>();
            wrs.add(wr);
            postSend(wrs).execute().free();
        }

        /** Waits (30 s at most) for the send and the receive completion; returns the received text. */
        String sendAndReceive(String text, boolean sendFirst) throws IOException {
            if (sendFirst) {
                send(text);
            }
            String received = null;
            boolean sent = false;
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (received == null || !sent) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("no completion within 30 s");
                }
                if (poll.execute().getPolls() == 0) {
                    continue;
                }
                IbvWC wc = wcs[0];
                if (wc.getStatus() != 0) {
                    throw new IOException("completion " + wc.getWr_id() + " failed with status " + wc.getStatus());
                }
                if (wc.getOpcode() == IbvWC.IbvWcOpcode.IBV_WC_RECV.getOpcode()) {
                    ProgramSupport.check(wc.getWr_id() == 7, "receive wr_id " + wc.getWr_id());
                    byte[] bytes = new byte[wc.getByte_len()];
                    recvBuf.clear();
                    recvBuf.get(bytes);
                    received = new String(bytes, StandardCharsets.UTF_8);
                    if (!sendFirst) {
                        send(reply(received));
                    }
                } else {
                    ProgramSupport.check(wc.getOpcode() == IbvWC.IbvWcOpcode.IBV_WC_SEND.getOpcode(), "opcode " + wc.getOpcode());
                    ProgramSupport.check(wc.getWr_id() == 9, "send wr_id " + wc.getWr_id());
                    sent = true;
                }
            }
            return received;
        }
    }

    static String reply(String message) {
        return "pong: " + message;
    }

    public static void main(String[] args) throws Exception {
        InetSocketAddress address = new InetSocketAddress(args[1], Integer.parseInt(args[2]));
        RdmaPassiveEndpointGroup<Endpoint> group = new RdmaPassiveEndpointGroup<>(1000, 16, 1, 16);
        // DiSNI connects with retry_count 0, so one late ACK ends the connection (seen under emulation with
        // LatencyProgram and PipelineProgram). 7 is what perftest uses.
        group.getConnParam().setRetry_count((byte) 7);
        group.init((id, serverSide) -> new Endpoint(group, id, serverSide));
        if (args[0].equals("server")) {
            RdmaServerEndpoint<Endpoint> server = group.createServerEndpoint();
            server.bind(address, 10);
            System.out.println("listening on " + address);
            Endpoint endpoint = server.accept();
            String received = endpoint.sendAndReceive(null, false);
            System.out.println("server received: " + received);
            endpoint.close();
            server.close();
        } else {
            Endpoint endpoint = group.createEndpoint();
            endpoint.connect(address, ProgramSupport.CONNECT_TIMEOUT_MS);
            String received = endpoint.sendAndReceive(args[3], true);
            System.out.println("client received: " + received);
            endpoint.close();
        }
        group.close();
        System.out.println("done");
    }
}
