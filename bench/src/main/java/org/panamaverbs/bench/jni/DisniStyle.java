package org.panamaverbs.bench.jni;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import org.panamaverbs.bench.stub.StubProvider.Layout;


/**
 * The legacy JNI baseline: DiSNI's way of posting and polling, reduced to what the benchmark needs and
 * written from its documented behaviour (/work/shared/reference/disni-2.1.md, c.4 and b.4), not its code.
 *
 * <ul>
 *   <li>Work requests are Java objects ({@link SendWr}, {@link RecvWr}, {@link Sge}). A stateful verb
 *       call ({@link PostSend}, {@link PostRecv}) serializes a list of them once into a direct, native-order
 *       {@link ByteBuffer} (DiSNI's {@code MemBuf}): requests back to back with absolute {@code next} and
 *       {@code sg_list} pointers, then the SGEs. {@code execute()} passes the buffer's address to a JNI
 *       native; the mods ({@link WrMod}) patch single fields in place between executions, which is how
 *       DiSNI users (Crail, DaRPC, the benchmarks) avoid garbage per post.</li>
 *   <li>{@link PollCq} polls into a scratch buffer of {@code ne * sizeof(ibv_wc)} and decodes each
 *       completion into the caller's preallocated {@link Wc} objects ({@code wr_id}, {@code status},
 *       {@code opcode} always; the rest only on success, as DiSNI does).</li>
 * </ul>
 * Struct sizes and offsets come from native {@code sizeof}/{@code offsetof} ({@link Layout}, the stand-in
 * libibverbs'), as DiSNI takes them from its JNI library at start-up.
 */
public final class DisniStyle {
    private static final int SEND_WR_SIZE = (int) Layout.SEND_WR_SIZE;
    private static final int RECV_WR_SIZE = (int) Layout.RECV_WR_SIZE;
    private static final int SGE_SIZE = (int) Layout.SGE_SIZE;
    private static final int WC_SIZE = (int) Layout.WC_SIZE;
    private static final int SEND_FLAGS_OFFSET = (int) Layout.SEND_WR_SEND_FLAGS;
    private static final int REMOTE_ADDR_OFFSET = (int) Layout.SEND_WR_REMOTE_ADDR;
    private static final int RKEY_OFFSET = (int) Layout.SEND_WR_RKEY;

    private DisniStyle() {
    }

    /** {@code IbvSge}. */
    public static final class Sge {
        long addr;
        int length;
        int lkey;

        public Sge(long addr, int length, int lkey) {
            this.addr = addr;
            this.length = length;
            this.lkey = lkey;
        }
    }

    /** {@code IbvSendWR} with its RDMA part. */
    public static final class SendWr {
        long wrId;
        int opcode;
        int sendFlags;
        int immData;
        long remoteAddr;
        int rkey;
        final List<Sge> sgList = new ArrayList<>();

        public SendWr(long wrId, int opcode, int sendFlags, long remoteAddr, int rkey, Sge... sges) {
            this.wrId = wrId;
            this.opcode = opcode;
            this.sendFlags = sendFlags;
            this.remoteAddr = remoteAddr;
            this.rkey = rkey;
            sgList.addAll(List.of(sges));
        }
    }

    /** {@code IbvRecvWR}. */
    public static final class RecvWr {
        long wrId;
        final List<Sge> sgList = new ArrayList<>();

        public RecvWr(long wrId, Sge... sges) {
            this.wrId = wrId;
            sgList.addAll(List.of(sges));
        }
    }

    /** {@code IbvWC}: a Java mirror of {@code struct ibv_wc}, refreshed in place by each poll. */
    public static final class Wc {
        long wrId;
        int status;
        int opcode;
        int vendorErr;
        int byteLen;
        int immData;
        int qpNum;
        int srcQp;
        int wcFlags;
        short pkeyIndex;
        short slid;
        byte sl;
        byte dlidPathBits;

        public long getWr_id() {
            return wrId;
        }

        public int getStatus() {
            return status;
        }
    }

    /** {@code SendWRMod}: patches one serialized request in place. */
    public static final class WrMod {
        private final ByteBuffer buffer;
        private final int position;

        WrMod(ByteBuffer buffer, int position) {
            this.buffer = buffer;
            this.position = position;
        }

        public void setWr_id(long wrId) {
            buffer.putLong(position, wrId);
        }

        public void setSend_flags(int flags) {
            buffer.putInt(position + SEND_FLAGS_OFFSET, flags);
        }
    }

    /** {@code SVCPostSend} ({@code NatPostSendCall}). */
    public static final class PostSend {
        private final DisniDispatcher dispatcher;
        private final long qp;
        private final ByteBuffer cmd;
        private final long address;
        private final WrMod[] mods;
        private boolean valid = true;

        public PostSend(DisniDispatcher dispatcher, long qp, List<SendWr> wrs) {
            this.dispatcher = dispatcher;
            this.qp = qp;
            int sges = wrs.stream().mapToInt(wr -> wr.sgList.size()).sum();
            cmd = ByteBuffer.allocateDirect(wrs.size() * SEND_WR_SIZE + sges * SGE_SIZE).order(ByteOrder.nativeOrder());
            address = MemorySegment.ofBuffer(cmd).address();
            mods = new WrMod[wrs.size()];
            int sgeAt = wrs.size() * SEND_WR_SIZE;
            for (int i = 0; i < wrs.size(); i++) {
                SendWr wr = wrs.get(i);
                int at = i * SEND_WR_SIZE;
                mods[i] = new WrMod(cmd, at);
                cmd.putLong(at + (int) Layout.SEND_WR_WR_ID, wr.wrId);
                cmd.putLong(at + (int) Layout.SEND_WR_NEXT, i + 1 < wrs.size() ? address + at + SEND_WR_SIZE : 0);
                cmd.putLong(at + (int) Layout.SEND_WR_SG_LIST, address + sgeAt);
                cmd.putInt(at + (int) Layout.SEND_WR_NUM_SGE, wr.sgList.size());
                cmd.putInt(at + (int) Layout.SEND_WR_OPCODE, wr.opcode);
                cmd.putInt(at + SEND_FLAGS_OFFSET, wr.sendFlags);
                cmd.putInt(at + (int) Layout.SEND_WR_IMM_DATA, wr.immData);
                cmd.putLong(at + REMOTE_ADDR_OFFSET, wr.remoteAddr);
                cmd.putInt(at + RKEY_OFFSET, wr.rkey);
                for (Sge sge : wr.sgList) {
                    sgeAt = putSge(cmd, sgeAt, sge);
                }
            }
        }

        public WrMod getWrMod(int index) {
            return mods[index];
        }

        public PostSend execute() throws IOException {
            if (!valid) {
                throw new IOException("Trying to execute an invalid SVC");
            }
            dispatcher._postSend(qp, address);
            return this;
        }

        public boolean isValid() {
            return valid;
        }

        public PostSend free() {
            valid = false;
            return this;
        }
    }

    /** {@code SVCPostRecv} ({@code NatPostRecvCall}). */
    public static final class PostRecv {
        private final DisniDispatcher dispatcher;
        private final long qp;
        private final ByteBuffer cmd;
        private final long address;
        private boolean valid = true;

        public PostRecv(DisniDispatcher dispatcher, long qp, List<RecvWr> wrs) {
            this.dispatcher = dispatcher;
            this.qp = qp;
            int sges = wrs.stream().mapToInt(wr -> wr.sgList.size()).sum();
            cmd = ByteBuffer.allocateDirect(wrs.size() * RECV_WR_SIZE + sges * SGE_SIZE).order(ByteOrder.nativeOrder());
            address = MemorySegment.ofBuffer(cmd).address();
            int sgeAt = wrs.size() * RECV_WR_SIZE;
            for (int i = 0; i < wrs.size(); i++) {
                RecvWr wr = wrs.get(i);
                int at = i * RECV_WR_SIZE;
                cmd.putLong(at + (int) Layout.RECV_WR_WR_ID, wr.wrId);
                cmd.putLong(at + (int) Layout.RECV_WR_NEXT, i + 1 < wrs.size() ? address + at + RECV_WR_SIZE : 0);
                cmd.putLong(at + (int) Layout.RECV_WR_SG_LIST, wr.sgList.isEmpty() ? 0 : address + sgeAt);
                cmd.putInt(at + (int) Layout.RECV_WR_NUM_SGE, wr.sgList.size());
                for (Sge sge : wr.sgList) {
                    sgeAt = putSge(cmd, sgeAt, sge);
                }
            }
        }

        /** {@code RecvWRMod.setWr_id}. */
        public void setWrId(int index, long wrId) {
            cmd.putLong(index * RECV_WR_SIZE + (int) Layout.RECV_WR_WR_ID, wrId);
        }

        public PostRecv execute() throws IOException {
            if (!valid) {
                throw new IOException("Trying to execute an invalid SVC");
            }
            dispatcher._postRecv(qp, address);
            return this;
        }
    }

    /** {@code SVCPollCq} ({@code NatPollCqCall}). */
    public static final class PollCq {
        private final DisniDispatcher dispatcher;
        private final long cq;
        private final Wc[] wcList;
        private final int ne;
        private final ByteBuffer cmd;
        private final long address;
        private int result;

        public PollCq(DisniDispatcher dispatcher, long cq, Wc[] wcList, int ne) {
            this.dispatcher = dispatcher;
            this.cq = cq;
            this.wcList = wcList;
            this.ne = ne;
            cmd = ByteBuffer.allocateDirect(wcList.length * WC_SIZE).order(ByteOrder.nativeOrder());
            address = MemorySegment.ofBuffer(cmd).address();
        }

        public PollCq execute() throws IOException {
            result = dispatcher._pollCQ(cq, ne, address);
            if (result < 0) {
                throw new IOException("Polling CQ failed");
            }
            for (int i = 0; i < result; i++) {
                Wc wc = wcList[i];
                cmd.position(i * WC_SIZE);
                wc.wrId = cmd.getLong();
                wc.status = cmd.getInt();
                wc.opcode = cmd.getInt();
                if (wc.status == 0) {
                    wc.vendorErr = cmd.getInt();
                    wc.byteLen = cmd.getInt();
                    wc.immData = cmd.getInt();
                    wc.qpNum = cmd.getInt();
                    wc.srcQp = cmd.getInt();
                    wc.wcFlags = cmd.getInt();
                    wc.pkeyIndex = cmd.getShort();
                    wc.slid = cmd.getShort();
                    wc.sl = cmd.get();
                    wc.dlidPathBits = cmd.get();
                }
            }
            return this;
        }

        public int getPolls() {
            return result;
        }
    }

    private static int putSge(ByteBuffer cmd, int at, Sge sge) {
        cmd.putLong(at + (int) Layout.SGE_ADDR, sge.addr);
        cmd.putInt(at + (int) Layout.SGE_LENGTH, sge.length);
        cmd.putInt(at + (int) Layout.SGE_LKEY, sge.lkey);
        return at + SGE_SIZE;
    }
}
