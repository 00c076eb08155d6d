import com.ibm.disni.RdmaEndpoint;
import com.ibm.disni.RdmaEndpointGroup;
import com.ibm.disni.RdmaPassiveEndpointGroup;
import com.ibm.disni.RdmaServerEndpoint;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * The pipelining pattern of DiSNI 2.1's own benchmarks ({@code benchmarks.SendRecvServer} / {@code SendRecvClient}),
 * written for ProgramsDeviceTest and compiled against the published disni-2.1.jar: passive endpoints, {@code QUEUE}
 * receive slots and twice as many send slots, each a stateful verb call made once and executed again, receives
 * posted ahead, a send and a receive budget refilled by the completions one {@code SVCPollCq} returns (receives told
 * apart by opcode 128), and the loop of the benchmark: poll until a receive completed, post as many receives as the
 * messages still to come allow, send as many as were posted and the send budget allows. Unlike the benchmark it
 * echoes each message (the client checks every reply's bytes), and no wait is endless: a side that makes no
 * progress for {@code STALL_SECONDS} says where it stopped and exits with status 3. The benchmark's send ring is as
 * long as its receive ring, so a send completion polled after the next receive would leave a message unanswered and
 * both sides waiting (not seen in its runs, but possible); the longer ring keeps this program's loop out of that.
 *
 * <p>{@code server|client ADDRESS PORT QUEUE LOOP}. The server posts all its receives at init, as the benchmark's;
 * after its loop it reports how many are still posted, which the benchmark's {@code awaitRecvs()} would wait for
 * forever: the client never sends that many more.
 */
public class PipelineProgram {
    static final int SIZE = 64;
    static final int STALL_SECONDS = 10;

    static final class Endpoint extends RdmaEndpoint {
        int queue;
        ByteBuffer[] recvBufs;
        ByteBuffer[] sendBufs;
        SVCPostRecv[] recvCalls;
        SVCPostSend[] sendCalls;
        IbvWC[] wcs;
        SVCPollCq poll;
        boolean serverSide;
        int recvIndex;
        int sendIndex;
        int recvBudget;
        int sendBudget;
        int recvPending;
        int sendPending;
        /** What arrived and is not echoed yet (server), copied: its receive slot is posted again before the echo. */
        final ArrayDeque<byte[]> received = new ArrayDeque<>();
        long repliesChecked;

        Endpoint(RdmaEndpointGroup<? extends RdmaEndpoint> group, RdmaCmId id, boolean serverSide) throws IOException {
            super(group, id, serverSide);
            this.serverSide = serverSide;
        }

        void slots(int queue) {
            this.queue = queue;
        }

        @Override
        protected synchronized void init() throws IOException {
            wcs = new IbvWC[getCqProvider().getCqSize()];
            for (int i = 0; i < wcs.length; i++) {
                wcs[i] = new IbvWC();
            }
            poll = getCqProvider().getCQ().poll(wcs, wcs.length);
            recvBufs = new ByteBuffer[queue];
            sendBufs = new ByteBuffer[2 * queue];
            recvCalls = new SVCPostRecv[queue];
            sendCalls = new SVCPostSend[2 * queue];
            for (int i = 0; i < queue; i++) {
                recvBufs[i] = ByteBuffer.allocateDirect(SIZE);
                IbvMr recvMr = registerMemory(recvBufs[i]).execute().free().getMr();
                IbvRecvWR recv = new IbvRecvWR();
                recv.setWr_id(i);
                recv.setSg_list(ProgramSupport.sges(recvMr, SIZE));
                recvCalls[i] = postRecv(ProgramSupport.list(recv));
            }
            for (int i = 0; i < 2 * queue; i++) {
                sendBufs[i] = ByteBuffer.allocateDirect(SIZE);
                IbvMr sendMr = registerMemory(sendBufs[i]).execute().free().getMr();
                sendCalls[i] = postSend(ProgramSupport.list(ProgramSupport.signaled(
                        com.ibm.disni.verbs.IbvSendWR.IBV_WR_SEND, queue + i, sendMr, SIZE)));
            }
            recvBudget = queue;
            sendBudget = 2 * queue;
            if (serverSide) {
                installRecvs(queue); // the benchmark's server posts every receive before the client connects
            }
        }

        int installRecvs(int wanted) throws IOException {
            int ready = Math.min(wanted, recvBudget);
            for (int i = 0; i < ready; i++) {
                recvCalls[recvIndex++ % queue].execute();
                recvBudget--;
                recvPending++;
            }
            return ready;
        }

        /** Sends up to {@code wanted} messages (the client's requests, or the server's echoes of what arrived). */
        int send(int wanted, long firstIndex) throws IOException {
            int ready = Math.min(wanted, sendBudget);
            for (int i = 0; i < ready; i++) {
                int slot = sendIndex % sendCalls.length;
                ByteBuffer out = sendBufs[slot];
                if (serverSide) {
                    byte[] message = received.poll();
                    out.put(0, message == null ? new byte[SIZE] : message);
                } else {
                    message(out, firstIndex + i);
                }
                sendCalls[slot].execute();
                sendIndex++;
                sendBudget--;
                sendPending++;
            }
            return ready;
        }

        /** Takes what one poll returns; returns the receives among it. */
        int takeCompletions() throws IOException {
            int n = poll.execute().getPolls();
            int receives = 0;
            for (int i = 0; i < n; i++) {
                IbvWC wc = wcs[i];
                if (wc.getStatus() != 0) {
                    throw new IOException("completion " + wc.getWr_id() + " failed with status " + wc.getStatus());
                }
                if (wc.getOpcode() == 128) { // IBV_WC_RECV, as the benchmark tells them apart
                    int slot = (int) wc.getWr_id();
                    if (serverSide) {
                        byte[] copy = new byte[SIZE];
                        recvBufs[slot].get(0, copy);
                        received.add(copy);
                    } else {
                        check(recvBufs[slot]);
                    }
                    receives++;
                    recvBudget++;
                    recvPending--;
                } else {
                    sendBudget++;
                    sendPending--;
                }
            }
            return receives;
        }

        /** The benchmark's pollRecvs: until at least one receive completed (0 at once if none is posted). */
        int pollRecvs(String where, long done) throws IOException {
            if (recvPending == 0) {
                return 0;
            }
            long deadline = System.nanoTime() + STALL_SECONDS * 1_000_000_000L;
            int receives;
            while ((receives = takeCompletions()) == 0) {
                if (System.nanoTime() > deadline) {
                    stalled(where, done);
                }
            }
            return receives;
        }

        /** The benchmark's awaitRecvs and awaitSends: until nothing is posted. */
        boolean awaitPosted() throws IOException {
            long deadline = System.nanoTime() + STALL_SECONDS * 1_000_000_000L;
            while (recvPending > 0 || sendPending > 0) {
                if (takeCompletions() == 0 && System.nanoTime() > deadline) {
                    return false;
                }
            }
            return true;
        }

        void stalled(String where, long done) {
            System.out.println((serverSide ? "server" : "client") + ": stalled in " + where + " after " + done
                    + " messages: no receive completed for " + STALL_SECONDS + " s; receives posted " + recvPending
                    + ", sends posted " + sendPending + ", receive budget " + recvBudget + ", send budget " + sendBudget);
            System.exit(3);
        }

        void check(ByteBuffer in) throws IOException {
            long index = in.getLong(0);
            ByteBuffer expected = ByteBuffer.allocate(SIZE);
            message(expected, index);
            ProgramSupport.check(index == repliesChecked && in.duplicate().clear().equals(expected.clear()),
                    "reply " + repliesChecked + " carried message " + index + "'s bytes or others");
            repliesChecked++;
        }
    }

    /** Message {@code index}: the index, then bytes derived from it. */
    static void message(ByteBuffer out, long index) {
        out.putLong(0, index);
        for (int i = 8; i < SIZE; i++) {
            out.put(i, (byte) (index * 31 + i));
        }
    }

    public static void main(String[] args) throws Exception {
        InetSocketAddress address = new InetSocketAddress(args[1], Integer.parseInt(args[2]));
        int queue = Integer.parseInt(args[3]);
        int loop = Integer.parseInt(args[4]);
        RdmaPassiveEndpointGroup<Endpoint> group = new RdmaPassiveEndpointGroup<>(1000, 2 * queue, 1, 4 * queue);
        // DiSNI connects with retry_count 0, so one late ACK ends the connection: under emulation the client's last
        // send once failed so (IBV_WC_RETRY_EXC_ERR) after the server had echoed it. 7 is what perftest uses.
        group.getConnParam().setRetry_count((byte) 7);
        group.init((id, serverSide) -> {
            Endpoint endpoint = new Endpoint(group, id, serverSide);
            endpoint.slots(queue);
            return endpoint;
        });
        if (args[0].equals("server")) {
            RdmaServerEndpoint<Endpoint> server = group.createServerEndpoint();
            server.bind(address, 10);
            System.out.println("listening on " + address);
            Endpoint endpoint = server.accept();
            int replies = 0;
            while (replies < loop) { // the benchmark server's loop
                endpoint.pollRecvs("the loop", replies);
                int posted = endpoint.installRecvs(loop - replies);
                replies += endpoint.send(posted, 0);
            }
            System.out.println("server: loop ended after " + replies + " echoes; " + endpoint.recvPending
                    + " receives still posted");
            if (!endpoint.awaitPosted()) {
                System.out.println("server: awaitRecvs: nothing completed for " + STALL_SECONDS + " s with "
                        + endpoint.recvPending + " receives posted (the benchmark's server waits here forever)");
            }
            endpoint.close();
            server.close();
        } else {
            Endpoint endpoint = group.createEndpoint();
            endpoint.connect(address, ProgramSupport.CONNECT_TIMEOUT_MS);
            long sent = 0;
            while (sent < loop) { // the benchmark client's loop
                endpoint.pollRecvs("the loop", sent);
                int posted = endpoint.installRecvs((int) (loop - sent));
                sent += endpoint.send(posted, sent);
            }
            if (!endpoint.awaitPosted()) {
                endpoint.stalled("awaitRecvs", sent);
            }
            System.out.println("client: " + sent + " messages, " + endpoint.repliesChecked + " replies with their bytes");
            endpoint.close();
        }
        group.close();
        System.out.println("done");
    }
}
