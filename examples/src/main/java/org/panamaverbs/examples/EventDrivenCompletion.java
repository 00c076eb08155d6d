package org.panamaverbs.examples;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.CompletionChannel;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.Rdma;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.WrOpcode;

/**
 * Event-driven completion on a virtual thread (docs/guide/data-path.md): a receiver waits on its completion
 * queue's channel instead of spinning, parked without pinning its carrier thread, while the main thread sends
 * a message every 200 ms. {@code EventDrivenCompletion [DEVICE]}.
 */
public final class EventDrivenCompletion {
    private static final int MESSAGES = 3;
    private static final int SLOT = 256;

    private EventDrivenCompletion() {
    }

    public static void main(String[] args) throws InterruptedException, ExecutionException, TimeoutException {
        try (Context ctx = args.length > 0 ? Rdma.open(args[0]) : Rdma.openFirst();
             ProtectionDomain pd = ctx.allocateProtectionDomain();
             ExecutorService virtualThreads = Executors.newVirtualThreadPerTaskExecutor();
             SendChain sends = SendChain.allocate(1, 1);
             RecvChain recvs = RecvChain.allocate(MESSAGES, 1)) {
            // snippet:events
            CompletionChannel channel = ctx.createCompletionChannel();          // the completion events' fd
            CompletionQueue recvCq = ctx.createCompletionQueue(16, channel);     // signals on that channel
            CompletionQueue sendCq = ctx.createCompletionQueue(16);
            QueuePair receiver = pd.createQueuePair(QpConfig.builder(recvCq).build());
            QueuePair sender = pd.createQueuePair(QpConfig.builder(sendCq).build());
            QueuePair.connectLoopback(sender, receiver);
            MemoryRegion buffers = pd.allocateAndRegister(2L * MESSAGES * SLOT, Access.LOCAL_WRITE);
            for (int i = 0; i < MESSAGES; i++) {
                recvs.get(i).wrId(100 + i).sge(buffers, (long) (MESSAGES + i) * SLOT, SLOT);
            }
            receiver.postRecvOrThrow(recvs, MESSAGES);

            Future<?> receiving = virtualThreads.submit(() -> {
                try (CompletionArray wcs = CompletionArray.allocate(4)) {   // this thread's own array
                    for (int got = 0; got < MESSAGES; ) {
                        // poll; if empty, arm the queue, poll again, then park until the channel's event
                        int n = recvCq.awaitCompletions(wcs, Duration.ofSeconds(10));
                        if (n == 0) {
                            throw new IllegalStateException("no message within 10 s");
                        }
                        for (int i = 0; i < n; i++, got++) {
                            WorkCompletion wc = wcs.get(i);
                            long offset = (wc.wrId() - 100 + MESSAGES) * SLOT;
                            System.out.println("receiver on a virtual thread: " + Thread.currentThread().isVirtual()
                                    + ", " + wc.status() + " " + wc.opcode() + " \"" + buffers.segment().getString(offset) + "\"");
                        }
                    }
                }
            });

            try (CompletionArray wcs = CompletionArray.allocate(1)) {
                for (int i = 0; i < MESSAGES; i++) {
                    Thread.sleep(200);                                   // the receiver is parked meanwhile
                    buffers.segment().setString((long) i * SLOT, "message " + (i + 1));
                    sends.get(0).wrId(i).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                            .sge(buffers, (long) i * SLOT, SLOT);
                    sender.postSendOrThrow(sends, 1);
                    Polling.awaitOne(sendCq, wcs, Duration.ofSeconds(10));
                }
            }
            receiving.get(30, TimeUnit.SECONDS);                         // rethrows what the receiver threw
            // end-snippet
            System.out.println("main: " + MESSAGES + " messages sent, receiver done");
        }
    }
}
