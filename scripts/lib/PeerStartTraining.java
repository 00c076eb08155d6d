import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.Connection;
import org.panamaverbs.cm.ConnectionOptions;
import org.panamaverbs.cm.PortSpace;
import org.panamaverbs.cm.RdmaServer;
import org.panamaverbs.verbs.*;

/**
 * The training run of the device tests' peer JVMs' AOT cache (scripts/lib/aot-cache.sh, pv_peer_aot_train): what a
 * peer's first seconds do, on the stand-in provider's stub0 at native speed. The verbs steps run; the rdma_cm steps
 * the stand-in lacks fail, each on its own, after loading what their success would need up to the call.
 * Test infrastructure only: not part of the library.
 */
public final class PeerStartTraining {
    public static void main(String[] args) throws Exception {
        step("verbs", PeerStartTraining::verbs);
        step("rdma_cm ids", () -> {
            try (CmEventChannel channel = CmEventChannel.create(); CmId id = CmId.create(channel, PortSpace.TCP)) {
                id.resolveAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1), Duration.ofMillis(100));
            }
        });
        step("rdma_cm server", () -> {
            try (RdmaServer server = RdmaServer.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                    ConnectionOptions.defaults(), 1)) {
                server.localAddress();
            }
        });
        step("rdma_cm client", () -> Connection.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1),
                ConnectionOptions.defaults(), Duration.ofMillis(100)).close());
    }

    private static void step(String name, Runnable step) {
        try {
            step.run();
            System.out.println(name + ": ran");
        } catch (RuntimeException e) {
            System.out.println(name + ": " + e);
        }
    }

    private static void verbs() {
        Rdma.devices();
        try (Context ctx = Rdma.openFirst();
             ProtectionDomain pd = ctx.allocateProtectionDomain();
             CompletionQueue sendCq = ctx.createCompletionQueue(16);
             CompletionQueue recvCq = ctx.createCompletionQueue(16);
             SendChain sends = SendChain.allocate(1, 1);
             RecvChain recvs = RecvChain.allocate(1, 1);
             CompletionArray wcs = CompletionArray.allocate(1)) {
            ctx.attributes();
            ctx.queryPort(1);
            QueuePair a = pd.createQueuePair(QpConfig.builder(sendCq).build());
            QueuePair b = pd.createQueuePair(QpConfig.builder(recvCq).build());
            QueuePair.connectLoopback(a, b);
            MemoryRegion src = pd.allocateAndRegister(4096, Access.LOCAL_WRITE);
            MemoryRegion dst = pd.allocateAndRegister(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            src.segment().setString(0, "training");
            recvs.get(0).wrId(2).numSge(0);
            b.postRecvOrThrow(recvs, 1);
            sends.get(0).wrId(1).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).flags(SendFlags.SIGNALED)
                    .immediateData(42).sge(src, 0, 9).remote(dst.address(), dst.rkey());
            a.postSendOrThrow(sends, 1);
            for (CompletionQueue cq : List.of(sendCq, recvCq)) {
                long deadline = System.nanoTime() + 1_000_000_000L;
                while (cq.poll(wcs) == 0 && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
            }
        }
    }
}
