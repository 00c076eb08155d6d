import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A program on DiSNI's raw API, the way DiSNI's verbs examples are written: an {@code RdmaEventChannel} and
 * {@code RdmaCmId}s driven by hand, then {@code IbvContext}/{@code IbvPd}/{@code IbvCompChannel}/{@code IbvCQ}/
 * {@code IbvQP} and stateful verb calls, completions taken with notification requests and completion-channel
 * events (as DiSNI's VerbsTools does).
 *
 * <p>{@code server ADDRESS PORT}: accepts one connection, sends a 16-byte descriptor of a 4 KiB region it filled
 * with a pattern, echoes one message, waits for the client's disconnect, destroys everything. {@code client
 * ADDRESS PORT}: connects, RDMA READs 64 bytes at offset 96 of the region and checks them, sends a message and
 * checks the echo, disconnects, destroys everything. CM event types, completion statuses, opcodes,
 * ids, lengths and bytes are checked; exit code 1 on any mismatch.
 */
public class RawVerbsProgram {
    static final int REGION = 4096, MESSAGE = 128, READ_OFFSET = 96, READ_LENGTH = 64;
    static final int ACCESS = IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE
            | IbvMr.IBV_ACCESS_REMOTE_READ;
    static final int WAIT_MS = 60_000;
    static final int WC_SEND = 0, WC_RDMA_READ = 2, WC_RECV = 128;

    static byte pattern(int i) {
        return (byte) (i * 13 + 5);
    }

    /** The verbs resources of one connection. */
    static final class Connection {
        final RdmaCmId id;
        final IbvPd pd;
        final IbvCompChannel channel;
        final IbvCQ cq;
        final IbvQP qp;
        final ByteBuffer region = ByteBuffer.allocateDirect(REGION);
        final ByteBuffer sendBuf = ByteBuffer.allocateDirect(MESSAGE);
        final ByteBuffer recvBuf = ByteBuffer.allocateDirect(MESSAGE);
        final IbvMr regionMr, sendMr, recvMr;
        final IbvWC[] wcs = {new IbvWC()};
        final SVCPollCq poll;
        final SVCPostRecv recv;
        final SVCPostSend send;

        Connection(RdmaCmId id) throws IOException {
            this.id = id;
            IbvContext context = id.getVerbs();
            pd = context.allocPd();
            channel = context.createCompChannel();
            cq = context.createCQ(channel, 16, 0);
            cq.reqNotification(false).execute().free();
            IbvQPInitAttr attr = new IbvQPInitAttr();
            attr.cap().setMax_send_wr(8);
            attr.cap().setMax_recv_wr(8);
            attr.cap().setMax_send_sge(1);
            attr.cap().setMax_recv_sge(1);
            attr.setQp_type(IbvQP.IBV_QPT_RC);
            attr.setSend_cq(cq);
            attr.setRecv_cq(cq);
            qp = id.createQP(pd, attr);
            regionMr = pd.regMr(region, ACCESS).execute().free().getMr();
            sendMr = pd.regMr(sendBuf, ACCESS).execute().free().getMr();
            recvMr = pd.regMr(recvBuf, ACCESS).execute().free().getMr();
            poll = cq.poll(wcs, 1);
            IbvRecvWR recvWr = new IbvRecvWR();
            recvWr.setWr_id(11);
            recvWr.setSg_list(ProgramSupport.sges(recvMr.getAddr(), MESSAGE, recvMr.getLkey()));
            recv = qp.postRecv(ProgramSupport.list(recvWr), null);
            IbvSendWR sendWr = new IbvSendWR();
            sendWr.setWr_id(22);
            sendWr.setOpcode(IbvSendWR.IBV_WR_SEND);
            sendWr.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
            sendWr.setSg_list(ProgramSupport.sges(sendMr.getAddr(), MESSAGE, sendMr.getLkey()));
            send = qp.postSend(ProgramSupport.list(sendWr), null);
        }

        void send(ByteBuffer content) throws IOException {
            sendBuf.clear();
            sendBuf.put(content);
            send.getWrMod(0).getSgeMod(0).setLength(sendBuf.position());
            send.execute();
        }

        /** One completion, by polling and, when there is none, waiting for a completion event. */
        IbvWC next(String what) throws IOException {
            long deadline = System.currentTimeMillis() + WAIT_MS;
            while (poll.execute().getPolls() == 0) {
                long left = deadline - System.currentTimeMillis();
                ProgramSupport.check(left > 0, "no completion for " + what + " within " + WAIT_MS + " ms");
                if (channel.getCqEvent(cq, (int) Math.min(left, 1000))) {
                    cq.ackEvents(1);
                    cq.reqNotification(false).execute().free();
                }
            }
            IbvWC wc = wcs[0];
            ProgramSupport.check(wc.getStatus() == IbvWC.IbvWcStatus.IBV_WC_SUCCESS.ordinal(), what + ": status " + wc.getStatus());
            return wc;
        }

        IbvWC expect(String what, int opcode, long wrId) throws IOException {
            IbvWC wc = next(what);
            ProgramSupport.check(wc.getOpcode() == opcode && wc.getWr_id() == wrId, what + ": opcode " + wc.getOpcode() + " wr_id "
                    + wc.getWr_id());
            return wc;
        }

        void destroy() throws Exception {
            for (IbvMr mr : new IbvMr[] {regionMr, sendMr, recvMr}) {
                mr.deregMr().execute().free();
            }
            id.destroyQP();
            ProgramSupport.check(cq.destroyCQ() == 0, "destroyCQ");
            ProgramSupport.check(channel.destroyCompChannel() == 0, "destroyCompChannel");
            ProgramSupport.check(pd.deallocPd() == 0, "deallocPd");
            ProgramSupport.check(id.destroyId() == 0, "destroyId");
        }
    }

    static RdmaCmEvent event(RdmaEventChannel channel, RdmaCmEvent.EventType expected) throws IOException {
        RdmaCmEvent event = channel.getCmEvent(WAIT_MS);
        ProgramSupport.check(event != null, "no CM event within " + WAIT_MS + " ms, expected " + expected);
        // the type is the outcome: DiSNI 2.1's getStatus() is always -1, so programs written for it do not read it
        ProgramSupport.check(event.getEvent() == expected.ordinal(), "CM event " + event.getEvent() + ", expected "
                + expected);
        return event;
    }

    static void server(InetSocketAddress address) throws Exception {
        RdmaEventChannel cm = RdmaEventChannel.createEventChannel();
        RdmaCmId listener = cm.createId(RdmaCm.RDMA_PS_TCP);
        listener.bindAddr(address);
        listener.listen(10);
        System.out.println("listening on " + address);
        RdmaCmEvent request = event(cm, RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST);
        RdmaCmId id = request.getConnIdPriv();
        request.ackEvent();
        Connection c = new Connection(id);
        for (int i = 0; i < REGION; i++) {
            c.region.put(i, pattern(i));
        }
        c.recv.execute();
        RdmaConnParam param = new RdmaConnParam();
        param.setRetry_count((byte) 2);
        id.accept(param);
        event(cm, RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED).ackEvent();

        ByteBuffer descriptor = ByteBuffer.allocate(16);
        descriptor.putLong(c.regionMr.getAddr()).putInt(c.regionMr.getLength()).putInt(c.regionMr.getRkey()).flip();
        c.send(descriptor);
        c.expect("descriptor send", WC_SEND, 22);
        IbvWC received = c.expect("message", WC_RECV, 11);
        String message = ProgramSupport.text(c.recvBuf, received.getByte_len());
        c.send(ByteBuffer.wrap(("echo: " + message).getBytes(StandardCharsets.UTF_8)));
        c.expect("echo send", WC_SEND, 22);
        System.out.println("server echoed: " + message);
        event(cm, RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED).ackEvent();
        c.destroy();
        ProgramSupport.check(listener.destroyId() == 0, "destroyId of the listener");
        ProgramSupport.check(cm.destroyEventChannel() == 0, "destroyEventChannel");
    }

    static void client(InetSocketAddress address) throws Exception {
        RdmaEventChannel cm = RdmaEventChannel.createEventChannel();
        RdmaCmId id = cm.createId(RdmaCm.RDMA_PS_TCP);
        id.resolveAddr(null, address, ProgramSupport.RESOLVE_TIMEOUT_MS);
        event(cm, RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_RESOLVED).ackEvent();
        id.resolveRoute(ProgramSupport.RESOLVE_TIMEOUT_MS);
        event(cm, RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_RESOLVED).ackEvent();
        Connection c = new Connection(id);
        c.recv.execute(); // before connect, as DiSNI's VerbsClient does
        RdmaConnParam param = new RdmaConnParam();
        param.setRetry_count((byte) 2);
        id.connect(param);
        event(cm, RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED).ackEvent();

        IbvWC descriptorWc = c.expect("descriptor", WC_RECV, 11);
        ProgramSupport.check(descriptorWc.getByte_len() == 16, "descriptor length " + descriptorWc.getByte_len());
        ByteBuffer descriptor = c.recvBuf.duplicate();
        descriptor.clear();
        long remoteAddress = descriptor.getLong();
        ProgramSupport.check(descriptor.getInt() == REGION, "remote region length");
        int rkey = descriptor.getInt();
        c.recv.execute();

        IbvSendWR readWr = new IbvSendWR();
        readWr.setWr_id(33);
        readWr.setOpcode(IbvSendWR.IBV_WR_RDMA_READ);
        readWr.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        readWr.setSg_list(ProgramSupport.sges(c.regionMr.getAddr(), READ_LENGTH, c.regionMr.getLkey()));
        readWr.getRdma().setRemote_addr(remoteAddress + READ_OFFSET);
        readWr.getRdma().setRkey(rkey);
        SVCPostSend read = c.qp.postSend(ProgramSupport.list(readWr), null);
        read.execute();
        c.expect("RDMA READ", WC_RDMA_READ, 33);
        read.free();
        for (int i = 0; i < READ_LENGTH; i++) {
            ProgramSupport.check(c.region.get(i) == pattern(READ_OFFSET + i), "read byte " + i);
        }
        System.out.println("client: RDMA READ of " + READ_LENGTH + " bytes matches");

        String message = "raw verbs from pid " + ProcessHandle.current().pid();
        c.send(ByteBuffer.wrap(message.getBytes(StandardCharsets.UTF_8)));
        String echo = null;
        for (int i = 0; i < 2; i++) { // the send's completion and the echo's, in either order
            IbvWC wc = c.next("send or echo");
            if (wc.getOpcode() == WC_RECV) {
                ProgramSupport.check(wc.getWr_id() == 11, "echo wr_id " + wc.getWr_id());
                echo = ProgramSupport.text(c.recvBuf, wc.getByte_len());
            } else {
                ProgramSupport.check(wc.getOpcode() == WC_SEND && wc.getWr_id() == 22, "send completion " + wc.getOpcode());
            }
        }
        ProgramSupport.check(("echo: " + message).equals(echo), "echo " + echo);
        System.out.println("client received: " + echo);
        ProgramSupport.check(id.disconnect() == 0, "disconnect");
        event(cm, RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED).ackEvent();
        c.destroy();
        ProgramSupport.check(cm.destroyEventChannel() == 0, "destroyEventChannel");
    }

    public static void main(String[] args) throws Exception {
        InetSocketAddress address = new InetSocketAddress(args[1], Integer.parseInt(args[2]));
        try {
            if (args[0].equals("server")) {
                server(address);
            } else {
                client(address);
            }
        } catch (Exception e) {
            System.out.println("failed: " + e);
            e.printStackTrace(System.out);
            System.exit(1);
        }
        System.out.println("done");
    }
}
