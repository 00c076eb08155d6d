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
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Latency the way DiSNI's benchmarks measure it (benchmarks.ReadClient and SendRecv): passive endpoints spinning
 * on their own completion queue, one reused stateful verb call per operation, nothing allocated in the timed
 * loop. Compiled against the published disni-2.1.jar and run unchanged on this module and on DiSNI, so the two
 * implementations are compared on the same program.
 *
 * <p>{@code server ADDRESS PORT} serves one client: it sends the descriptor of a 4 KiB region, then reads a
 * text command ("read SIZE COUNT" or "sendrecv SIZE COUNT"), answers "go" once its receive is posted, echoes
 * COUNT messages for sendrecv, and ends on "bye". {@code client ADDRESS PORT read|sendrecv SIZE ITERATIONS [WARMUP]}:
 * WARMUP untimed operations (default a tenth of ITERATIONS, at least 100) as
 * warm-up, then ITERATIONS timed operations, each an RDMA READ of SIZE bytes (completion polled) or a SEND of
 * SIZE bytes answered by the server's SEND of the same bytes (round trip). Prints one line:
 * {@code RESULT mode=read size=32 iterations=100000 avg_us=... median_us=... p99_us=... p999_us=... max_us=...
 * first_half_avg_us=... second_half_avg_us=... alloc_bytes_per_op=... gcs=... gc_ms=... jit_ms=... timed_jit_ms=...
 * user_us_per_op=... sys_us_per_op=...}
 * (allocation, collections and compilation counted over warm-up and timed operations, timed_jit_ms and the
 * calling thread's CPU time in user space and in the kernel over the timed ones only; the server prints the
 * same for its loop on a
 * {@code server usage:} line). Statuses, opcodes and
 * ids of every completion and the echoed bytes are checked; exit code 1 on any mismatch.
 */
public class LatencyProgram {
    static final int REGION = 4096, CONTROL = 64;
    static final int WC_SEND = 0, WC_RDMA_READ = 2, WC_RECV = 128;
    static final long RECV_ID = 1, SEND_ID = 2, READ_ID = 3;
    static final long WAIT_NANOS = 60_000_000_000L;

    /**
     * What the timed loop cost besides time: bytes this thread allocated, collections (all collectors) and
     * their accumulated milliseconds, which under emulation are pauses of milliseconds each, and milliseconds
     * the JIT compilers worked (on the pinned vCPU the loop runs on, so they delay it).
     */
    record Usage(long bytes, long collections, long collectionMillis, long compileMillis, long cpuNanos, long userNanos) {
        static Usage now() {
            long count = 0, millis = 0;
            for (java.lang.management.GarbageCollectorMXBean gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
                count += Math.max(0, gc.getCollectionCount());
                millis += Math.max(0, gc.getCollectionTime());
            }
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            // no compilation bean when the JVM runs interpreted (-Xint): no JIT time then
            java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
            return new Usage(threads.getCurrentThreadAllocatedBytes(), count, millis,
                    jit == null ? 0 : jit.getTotalCompilationTime(),
                    threads.getCurrentThreadCpuTime(), threads.getCurrentThreadUserTime());
        }

        /**
         * CPU time of this thread per operation since {@code start}, split into user space and the kernel
         * (rxe sends packets inside the system call of a post), in microseconds.
         */
        String cpuSince(Usage start, long operations) {
            long user = userNanos - start.userNanos, all = cpuNanos - start.cpuNanos;
            return String.format("user_us_per_op=%.2f sys_us_per_op=%.2f", user / 1000.0 / operations,
                    (all - user) / 1000.0 / operations);
        }

        String since(Usage start, long operations) {
            return String.format("alloc_bytes_per_op=%.2f gcs=%d gc_ms=%d jit_ms=%d", (bytes - start.bytes) / (double) operations,
                    collections - start.collections, collectionMillis - start.collectionMillis, compileMillis - start.compileMillis);
        }
    }

    static final class Endpoint extends RdmaEndpoint {
        final ByteBuffer region = ByteBuffer.allocateDirect(REGION);
        final ByteBuffer sendBuf = ByteBuffer.allocateDirect(REGION);
        final ByteBuffer recvBuf = ByteBuffer.allocateDirect(REGION);
        IbvMr regionMr, sendMr, recvMr;
        IbvWC[] wcs;
        SVCPollCq poll;
        SVCPostRecv recv;
        SVCPostSend send, read;
        int outstandingSends;

        Endpoint(RdmaEndpointGroup<? extends RdmaEndpoint> group, RdmaCmId id, boolean serverSide) throws IOException {
            super(group, id, serverSide);
        }

        @Override
        protected synchronized void init() throws IOException {
            regionMr = registerMemory(region).execute().free().getMr();
            sendMr = registerMemory(sendBuf).execute().free().getMr();
            recvMr = registerMemory(recvBuf).execute().free().getMr();
            IbvRecvWR recvWr = new IbvRecvWR();
            recvWr.setWr_id(RECV_ID);
            recvWr.setSg_list(ProgramSupport.sges(recvMr, REGION));
            recv = postRecv(ProgramSupport.list(recvWr));
            send = postSend(ProgramSupport.list(ProgramSupport.signaled(IbvSendWR.IBV_WR_SEND, SEND_ID, sendMr, REGION)));
            read = postSend(ProgramSupport.list(ProgramSupport.signaled(IbvSendWR.IBV_WR_RDMA_READ, READ_ID, regionMr,
                    REGION)));
            wcs = new IbvWC[16];
            for (int i = 0; i < wcs.length; i++) {
                wcs[i] = new IbvWC();
            }
            poll = getCqProvider().getCQ().poll(wcs, wcs.length);
            recv.execute();
        }

        void postSend(int length) throws IOException {
            if (outstandingSends >= 8) {
                awaitSends(0);
            }
            send.getWrMod(0).getSgeMod(0).setLength(length);
            send.execute();
            outstandingSends++;
        }

        /** Spins on the CQ until a receive completes; send completions seen on the way are counted. */
        int awaitReceive() throws IOException {
            long deadline = System.nanoTime() + WAIT_NANOS;
            while (true) {
                int n = poll.execute().getPolls();
                int length = -1;
                for (int i = 0; i < n; i++) {
                    IbvWC wc = wcs[i];
                    // checks in the timed loops build their message only when they fail: nothing is allocated
                    if (wc.getStatus() != 0) {
                        throw ProgramSupport.unexpected("completion " + wc.getWr_id() + " status " + wc.getStatus());
                    }
                    if (wc.getOpcode() == WC_RECV) {
                        if (wc.getWr_id() != RECV_ID || length >= 0) {
                            throw ProgramSupport.unexpected("receive wr_id " + wc.getWr_id());
                        }
                        length = wc.getByte_len();
                    } else {
                        if (wc.getOpcode() != WC_SEND || wc.getWr_id() != SEND_ID) {
                            throw ProgramSupport.unexpected("opcode " + wc.getOpcode());
                        }
                        outstandingSends--;
                    }
                }
                if (length >= 0) {
                    return length;
                }
                ProgramSupport.check(n > 0 || System.nanoTime() < deadline, "no receive within 60 s");
            }
        }

        void awaitSends(int left) throws IOException {
            long deadline = System.nanoTime() + WAIT_NANOS;
            while (outstandingSends > left) {
                int n = poll.execute().getPolls();
                for (int i = 0; i < n; i++) {
                    IbvWC wc = wcs[i];
                    if (wc.getStatus() != 0 || wc.getOpcode() != WC_SEND || wc.getWr_id() != SEND_ID) {
                        throw ProgramSupport.unexpected("send completion: status " + wc.getStatus() + " opcode " + wc.getOpcode());
                    }
                    outstandingSends--;
                }
                ProgramSupport.check(n > 0 || System.nanoTime() < deadline, "no send completion within 60 s");
            }
        }

        void awaitRead() throws IOException {
            long deadline = System.nanoTime() + WAIT_NANOS;
            int n;
            while ((n = poll.execute().getPolls()) == 0) {
                ProgramSupport.check(System.nanoTime() < deadline, "no read completion within 60 s");
            }
            IbvWC wc = wcs[0];
            if (n != 1 || wc.getStatus() != 0 || wc.getOpcode() != WC_RDMA_READ || wc.getWr_id() != READ_ID) {
                throw ProgramSupport.unexpected("read completion: " + n + " status " + wc.getStatus() + " opcode " + wc.getOpcode());
            }
        }

        void sendText(String text) throws IOException {
            byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
            sendBuf.clear();
            sendBuf.put(bytes);
            postSend(bytes.length);
        }

        String receiveText() throws IOException {
            int length = awaitReceive();
            ProgramSupport.check(length <= CONTROL, "control message of " + length + " bytes");
            byte[] bytes = new byte[length];
            recvBuf.clear();
            recvBuf.get(bytes);
            recv.execute();
            return new String(bytes, StandardCharsets.US_ASCII);
        }
    }

    static void server(RdmaPassiveEndpointGroup<Endpoint> group, InetSocketAddress address) throws Exception {
        RdmaServerEndpoint<Endpoint> server = group.createServerEndpoint();
        server.bind(address, 10);
        System.out.println("listening on " + address);
        Endpoint ep = server.accept();
        for (int i = 0; i < REGION; i++) {
            ep.region.put(i, (byte) (i * 7 + 1));
        }
        ep.sendText(ep.regionMr.getAddr() + " " + ep.regionMr.getRkey());
        String[] command = ep.receiveText().split(" ");
        // the receive for the first timed message is posted now: only after "go" may the client send it (a SEND
        // that finds no receive is an RNR NAK, fatal where rnr_retry is 0, as on DiSNI's connections)
        ep.sendText("go");
        if (command[0].equals("sendrecv")) {
            int size = Integer.parseInt(command[1]);
            long count = Long.parseLong(command[2]);
            Usage start = Usage.now();
            for (long i = 0; i < count; i++) {
                int length = ep.awaitReceive();
                if (length != size) {
                    throw ProgramSupport.unexpected("message of " + length + " bytes");
                }
                ep.sendBuf.put(0, ep.recvBuf, 0, size);
                ep.recv.execute();
                ep.postSend(size);
            }
            Usage end = Usage.now();
            System.out.println("server usage: " + end.since(start, count) + " " + end.cpuSince(start, count));
        }
        ProgramSupport.check(ep.receiveText().equals("bye"), "bye");
        ep.awaitSends(0);
        System.out.println("server: " + String.join(" ", command) + " served");
        ep.close();
        server.close();
    }

    static void client(RdmaPassiveEndpointGroup<Endpoint> group, InetSocketAddress address, String mode, int size,
            int iterations, int warmup) throws Exception {
        ProgramSupport.check(size > 0 && size <= REGION, "size " + size);
        Endpoint ep = group.createEndpoint();
        ep.connect(address, ProgramSupport.CONNECT_TIMEOUT_MS);
        String[] descriptor = ep.receiveText().split(" ");
        long remoteAddress = Long.parseLong(descriptor[0]);
        int rkey = Integer.parseInt(descriptor[1]);
        long[] samples = new long[iterations];
        ep.sendText(mode + " " + size + " " + (warmup + iterations));
        ProgramSupport.check(ep.receiveText().equals("go"), "go");
        ep.awaitSends(0); // so that the timed loop's polls see only its own completions
        Usage before = Usage.now();
        Usage timedStart = null;
        if (mode.equals("read")) {
            SVCPostSend.SendWRMod wr = ep.read.getWrMod(0);
            wr.getSgeMod(0).setLength(size);
            wr.getRdmaMod().setRemote_addr(remoteAddress);
            wr.getRdmaMod().setRkey(rkey);
            for (int i = -warmup; i < iterations; i++) {
                if (i == 0) {
                    timedStart = Usage.now();
                }
                long start = System.nanoTime();
                ep.read.execute();
                ep.awaitRead();
                if (i >= 0) {
                    samples[i] = System.nanoTime() - start;
                }
            }
            for (int i = 0; i < size; i++) {
                ProgramSupport.check(ep.region.get(i) == (byte) (i * 7 + 1), "read byte " + i);
            }
        } else {
            ProgramSupport.check(mode.equals("sendrecv"), "mode " + mode + " (read or sendrecv)");
            for (int i = -warmup; i < iterations; i++) {
                if (i == 0) {
                    timedStart = Usage.now();
                }
                ep.sendBuf.put(0, (byte) i);
                ep.sendBuf.put(size - 1, (byte) ~i);
                long start = System.nanoTime();
                ep.postSend(size);
                int length = ep.awaitReceive();
                if (i >= 0) {
                    samples[i] = System.nanoTime() - start;
                }
                if (length != size || ep.recvBuf.get(0) != (byte) i || ep.recvBuf.get(size - 1) != (byte) ~i) {
                    throw ProgramSupport.unexpected("echo " + i);
                }
                ep.recv.execute();
            }
        }
        Usage after = Usage.now();
        String usage = after.since(before, warmup + iterations) + " timed_jit_ms=" + (after.compileMillis() - timedStart.compileMillis())
                + " " + after.cpuSince(timedStart, iterations);
        String samplesFile = System.getProperty("latency.samples");
        if (samplesFile != null) { // every timed operation in order, in nanoseconds, for looking at when the slow ones happen
            java.nio.file.Files.write(java.nio.file.Path.of(samplesFile),
                    (Iterable<String>) Arrays.stream(samples).mapToObj(Long::toString)::iterator);
        }
        ep.sendText("bye");
        ep.awaitSends(0);
        // averages of the first and the second half of the timed operations: a difference is warm-up not done
        double firstHalf = Arrays.stream(samples, 0, iterations / 2).average().orElse(0) / 1000.0;
        double secondHalf = Arrays.stream(samples, iterations / 2, iterations).average().orElse(0) / 1000.0;
        Arrays.sort(samples);
        double avg = Arrays.stream(samples).average().orElse(0) / 1000.0;
        System.out.printf("RESULT mode=%s size=%d iterations=%d avg_us=%.2f median_us=%.2f p99_us=%.2f p999_us=%.2f"
                        + " max_us=%.2f first_half_avg_us=%.2f second_half_avg_us=%.2f %s%n", mode, size, iterations, avg,
                samples[iterations / 2] / 1000.0, samples[(int) (iterations * 0.99)] / 1000.0,
                samples[(int) (iterations * 0.999)] / 1000.0, samples[iterations - 1] / 1000.0, firstHalf, secondHalf, usage);
        ep.close();
    }

    public static void main(String[] args) throws Exception {
        InetSocketAddress address = new InetSocketAddress(args[1], Integer.parseInt(args[2]));
        RdmaPassiveEndpointGroup<Endpoint> group = new RdmaPassiveEndpointGroup<>(1000, 16, 1, 32);
        // DiSNI connects with retry_count 0, so one late response ends the connection; a run of 100 000 READs
        // under emulation met one (IBV_WC_RETRY_EXC_ERR). 7 is what perftest uses.
        group.getConnParam().setRetry_count((byte) 7);
        group.init((id, serverSide) -> new Endpoint(group, id, serverSide));
        try {
            if (args[0].equals("server")) {
                server(group, address);
            } else {
                int iterations = Integer.parseInt(args[5]);
                client(group, address, args[3], Integer.parseInt(args[4]), iterations,
                        args.length > 6 ? Integer.parseInt(args[6]) : Math.max(100, iterations / 10));
            }
        } catch (Exception e) {
            System.out.println("failed: " + e);
            e.printStackTrace(System.out);
            System.exit(1);
        }
        group.close();
        System.out.println("done");
    }
}
