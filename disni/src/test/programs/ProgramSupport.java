import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedList;

/**
 * What the programs of this directory share, on DiSNI 2.1's API only: the lists DiSNI's post calls take,
 * signaled work requests, and the check that ends a program with a message. Compiled with them against the
 * published disni-2.1.jar.
 */
final class ProgramSupport {
    /**
     * The timeout the endpoint programs pass to {@code RdmaEndpoint.connect}: DiSNI's own example and benchmark
     * clients pass 1000 ms. It bounds the kernel's address and route resolution, not the delivery of its event
     * to a cold JVM (which in the emulated guest alone took longer than that).
     */
    static final int CONNECT_TIMEOUT_MS = 1000;
    /** The timeout the raw-API program passes to {@code resolveAddr} and {@code resolveRoute}: DiSNI's VerbsClient passes 2000 ms. */
    static final int RESOLVE_TIMEOUT_MS = 2000;

    private ProgramSupport() {
    }

    /** One scatter/gather entry, in the list type {@code IbvSendWR.setSg_list} and {@code IbvRecvWR} take. */
    static LinkedList<IbvSge> sges(long address, int length, int lkey) {
        IbvSge sge = new IbvSge();
        sge.setAddr(address);
        sge.setLength(length);
        sge.setLkey(lkey);
        return list(sge);
    }

    /** The first {@code length} bytes of a registered buffer. */
    static LinkedList<IbvSge> sges(IbvMr mr, int length) {
        return sges(mr.getAddr(), length, mr.getLkey());
    }

    static <T> LinkedList<T> list(T element) {
        LinkedList<T> list = new LinkedList<>();
        list.add(element);
        return list;
    }

    /** A signaled request of {@code opcode} on the first {@code length} bytes of {@code mr}. */
    static IbvSendWR signaled(int opcode, long id, IbvMr mr, int length) {
        IbvSendWR wr = new IbvSendWR();
        wr.setWr_id(id);
        wr.setOpcode(opcode);
        wr.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        wr.setSg_list(sges(mr, length));
        return wr;
    }

    /** The first {@code length} bytes of {@code buffer} as UTF-8 text. */
    static String text(ByteBuffer buffer, int length) throws IOException {
        check(length >= 0 && length <= buffer.capacity(), "received length " + length);
        byte[] bytes = new byte[length];
        buffer.clear();
        buffer.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    static void check(boolean ok, String what) throws IOException {
        if (!ok) {
            throw unexpected(what);
        }
    }

    /** The exception {@link #check} throws; for checks whose message must not be built unless they fail. */
    static IOException unexpected(String what) {
        return new IOException("unexpected " + what);
    }
}
