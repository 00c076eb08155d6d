package org.panamaverbs.examples;

// The first program of README.md: an RDMA WRITE with immediate data between two connected queue pairs of one
// device. FirstProgram [DEVICE]; prints what expected/first-program.txt holds.
// snippet:program
import java.util.List;

import org.panamaverbs.verbs.*;

public final class FirstProgram {
    public static void main(String[] args) {
        try (Context ctx = args.length > 0 ? Rdma.open(args[0]) : Rdma.openFirst();  // ibv_open_device
             ProtectionDomain pd = ctx.allocateProtectionDomain();
             CompletionQueue sendCq = ctx.createCompletionQueue(16);
             CompletionQueue recvCq = ctx.createCompletionQueue(16);
             SendChain sends = SendChain.allocate(1, 1);  // 1 request, 1 scatter/gather entry
             RecvChain recvs = RecvChain.allocate(1, 1);
             CompletionArray wcs = CompletionArray.allocate(1)) {
            QueuePair a = pd.createQueuePair(QpConfig.builder(sendCq).build());      // RC
            QueuePair b = pd.createQueuePair(QpConfig.builder(recvCq).build());
            QueuePair.connectLoopback(a, b);         // RESET -> INIT -> RTR -> RTS; across machines: a.connect(peer)
            MemoryRegion src = pd.allocateAndRegister(4096, Access.LOCAL_WRITE);     // owns its memory
            MemoryRegion dst = pd.allocateAndRegister(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            src.segment().setString(0, "hello, RDMA");
            System.out.println(ctx.name() + ": RDMA WRITE with immediate between two RC queue pairs");
            recvs.get(0).wrId(2).numSge(0);            // the immediate consumes a receive at b
            b.postRecvOrThrow(recvs, 1);
            sends.get(0).wrId(1).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).flags(SendFlags.SIGNALED)
                    .immediateData(42).sge(src, 0, 12).remote(dst.address(), dst.rkey());
            a.postSendOrThrow(sends, 1);             // postSend(...) returns the provider's errno instead
            for (CompletionQueue cq : List.of(sendCq, recvCq)) {
                long deadline = System.nanoTime() + 10_000_000_000L;                 // every wait has a bound
                while (cq.poll(wcs) == 0) {                                          // allocates nothing
                    if (System.nanoTime() > deadline) throw new IllegalStateException("no completion within 10 s");
                }
                WorkCompletion wc = wcs.get(0);      // a flyweight over the native ibv_wc, reused by the next poll
                boolean immediate = wc.opcode() == WcOpcode.RECV_RDMA_WITH_IMM;     // it arrives at the receiver
                System.out.println("wr_id " + wc.wrId() + ": " + wc.status() + " " + wc.opcode()
                        + (immediate ? ", immediate " + wc.immediateData() : ""));
            }
            System.out.println("destination holds \"" + dst.segment().getString(0) + "\"");
        }   // closes the queue pairs and regions with their protection domain, then the device
    }
}
// end-snippet
