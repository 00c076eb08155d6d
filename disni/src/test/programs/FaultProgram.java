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
import com.ibm.disni.verbs.SVCPostSend;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.LinkedList;

/**
 * Connection faults from a DiSNI program's point of view, compiled against the published disni-2.1.jar.
 *
 * <ul>
 *   <li>{@code connect CYCLES HOST:PORT...}: for each target, CYCLES times, a passive group and an endpoint whose
 *       {@code connect()} must fail (nobody listens on PORT, or HOST cannot be reached), then close both. Prints
 *       how long each failure took and its message; after the last cycle compares the process's RDMA file
 *       descriptors and live threads with those after the first (the device context librdmacm keeps open is
 *       opened by the first) and fails if they grew.
 *   <li>{@code server ADDRESS PORT}: accepts one connection, prints "accepted", then waits to be killed.
 *   <li>{@code peer ADDRESS PORT [UNUSED_PORT]}: one failing connect cycle (to UNUSED_PORT) as a baseline, then
 *       connects to the server above, prints "connected" and sends a message every 100 ms until the connection breaks (the test kills the
 *       server); prints how the loss showed and after how long, closes, and compares descriptors and threads
 *       with the baseline (without UNUSED_PORT: no baseline, no leak check).
 * </ul>
 * Exit code 0 when every connect failed (or the peer's loss was detected) within its bound and nothing leaked;
 * 1 otherwise. DiSNI 2.1 itself waits forever in {@code connect()} on these errors, so on DiSNI the first two
 * cases end by the caller's timeout.
 */
public class FaultProgram {
    static final long LOSS_BOUND_MS = 90_000;

    static final class Endpoint extends RdmaEndpoint {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(64);
        IbvMr mr;
        IbvWC[] wcs = {new IbvWC(), new IbvWC(), new IbvWC(), new IbvWC()};
        SVCPollCq poll;
        SVCPostSend send;

        Endpoint(RdmaEndpointGroup<? extends RdmaEndpoint> group, RdmaCmId id, boolean serverSide) throws IOException {
            super(group, id, serverSide);
        }

        @Override
        protected synchronized void init() throws IOException {
            mr = registerMemory(buffer).execute().free().getMr();
            LinkedList<IbvRecvWR> recvs = new LinkedList<>();
            for (int i = 0; i < 8; i++) {
                IbvRecvWR wr = new IbvRecvWR();
                wr.setWr_id(i);
                wr.setSg_list(ProgramSupport.sges(mr, 8));
                recvs.add(wr);
            }
            postRecv(recvs).execute().free();
            send = postSend(ProgramSupport.list(ProgramSupport.signaled(IbvSendWR.IBV_WR_SEND, 100, mr, 8)));
            poll = getCqProvider().getCQ().poll(wcs, wcs.length);
        }

    }

    static RdmaPassiveEndpointGroup<Endpoint> group() throws IOException {
        RdmaPassiveEndpointGroup<Endpoint> group = new RdmaPassiveEndpointGroup<>(1000, 8, 1, 16);
        group.init((id, serverSide) -> new Endpoint(group, id, serverSide));
        return group;
    }

    /** File descriptors of the RDMA character devices and completion channels, and live threads. */
    static String resources() throws IOException {
        int rdma = 0;
        int all = 0;
        File[] fds = new File("/proc/self/fd").listFiles();
        for (File fd : fds == null ? new File[0] : fds) {
            try {
                String target = Files.readSymbolicLink(fd.toPath()).toString();
                all++;
                if (target.startsWith("/dev/infiniband/") || target.contains("infinibandevent")) {
                    rdma++;
                }
            } catch (IOException e) {
                // the directory's own descriptor, closed by now
            }
        }
        return "rdma_fds=" + rdma + " fds=" + all + " threads="
                + ManagementFactory.getThreadMXBean().getThreadCount();
    }

    static String failedConnect(InetSocketAddress address) throws Exception {
        RdmaPassiveEndpointGroup<Endpoint> group = group();
        Endpoint endpoint = group.createEndpoint();
        long start = System.nanoTime();
        String outcome;
        try {
            endpoint.connect(address, ProgramSupport.CONNECT_TIMEOUT_MS);
            outcome = null;
        } catch (IOException e) {
            outcome = "failed after " + (System.nanoTime() - start) / 1_000_000 + " ms: " + e.getMessage();
        }
        endpoint.close();
        group.close();
        if (outcome == null) {
            throw new IOException("connect to " + address + " succeeded");
        }
        return outcome;
    }

    static void settle() throws InterruptedException {
        // threads that closing ended leave the count once idle: Panama Verbs' rdma_destroy_id threads after 1 s
        Thread.sleep(1500);
        System.gc();
    }

    static boolean compare(String baseline, String now) {
        // fds and threads must not grow; "fds" counts every descriptor, so it is compared too
        String[] a = baseline.split(" "), b = now.split(" ");
        boolean ok = true;
        for (int i = 0; i < a.length; i++) {
            int before = Integer.parseInt(a[i].split("=")[1]), after = Integer.parseInt(b[i].split("=")[1]);
            ok &= after <= before;
        }
        System.out.println("leak check: after the first cycle " + baseline + ", at the end " + now + ": "
                + (ok ? "nothing leaked" : "LEAKED"));
        return ok;
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        boolean ok;
        switch (mode) {
            case "connect" -> {
                int cycles = Integer.parseInt(args[1]);
                String baseline = null;
                for (int t = 2; t < args.length; t++) {
                    int colon = args[t].lastIndexOf(':');
                    InetSocketAddress target = new InetSocketAddress(args[t].substring(0, colon),
                            Integer.parseInt(args[t].substring(colon + 1)));
                    for (int i = 0; i < cycles; i++) {
                        System.out.println(target + " cycle " + i + ": connect " + failedConnect(target));
                        if (baseline == null) {
                            settle();
                            baseline = resources();
                        }
                    }
                }
                settle();
                ok = compare(baseline, resources());
            }
            case "server" -> {
                InetSocketAddress address = new InetSocketAddress(args[1], Integer.parseInt(args[2]));
                RdmaPassiveEndpointGroup<Endpoint> group = group();
                RdmaServerEndpoint<Endpoint> server = group.createServerEndpoint();
                server.bind(address, 10);
                System.out.println("listening on " + address);
                server.accept();
                System.out.println("accepted");
                Thread.sleep(600_000);
                ok = false;
            }
            case "peer" -> {
                InetSocketAddress address = new InetSocketAddress(args[1], Integer.parseInt(args[2]));
                String baseline = null;
                if (args.length > 3) {
                    int unused = Integer.parseInt(args[3]);
                    System.out.println("baseline: connect to port " + unused + " "
                            + failedConnect(new InetSocketAddress(address.getAddress(), unused)));
                    settle();
                    baseline = resources();
                }
                ok = peerLoss(address);
                if (baseline != null) {
                    ok &= compare(baseline, resourcesAfterSettling());
                } else {
                    System.out.println("leak check: not run (no baseline connect)");
                }
            }
            default -> throw new IllegalArgumentException(mode);
        }
        System.out.println(ok ? "done" : "failed");
        System.exit(ok ? 0 : 1);
    }

    static String resourcesAfterSettling() throws Exception {
        settle();
        return resources();
    }

    static boolean peerLoss(InetSocketAddress address) throws Exception {
        RdmaPassiveEndpointGroup<Endpoint> group = group();
        Endpoint endpoint = group.createEndpoint();
        endpoint.connect(address, ProgramSupport.CONNECT_TIMEOUT_MS);
        System.out.println("connected");
        long start = System.nanoTime();
        String loss = null;
        int sent = 0;
        try {
            while (loss == null && (System.nanoTime() - start) / 1_000_000 < LOSS_BOUND_MS) {
                endpoint.send.execute();
                sent++;
                long deadline = System.nanoTime() + 60_000_000_000L;
                int n = 0;
                while (n == 0 && System.nanoTime() < deadline) {
                    n = endpoint.poll.execute().getPolls();
                }
                if (n == 0) {
                    loss = "no completion within 60 s";
                } else if (endpoint.wcs[0].getStatus() != 0) {
                    loss = "completion status " + endpoint.wcs[0].getStatus() + " ("
                            + IbvWC.IbvWcStatus.valueOf(endpoint.wcs[0].getStatus()) + ")";
                } else {
                    Thread.sleep(100);
                }
            }
        } catch (IOException e) {
            loss = "IOException: " + e.getMessage();
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        System.out.println("peer loss " + (loss == null ? "NOT detected" : "detected: " + loss) + " after " + ms
                + " ms and " + sent + " sends");
        long closeStart = System.nanoTime();
        endpoint.close();
        group.close();
        System.out.println("closed in " + (System.nanoTime() - closeStart) / 1_000_000 + " ms");
        return loss != null && !loss.startsWith("no completion");
    }
}
