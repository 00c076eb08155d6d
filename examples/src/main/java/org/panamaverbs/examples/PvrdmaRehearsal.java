package org.panamaverbs.examples;

import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.HardwareClass;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QpType;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.Rdma;
import org.panamaverbs.verbs.SharedReceiveQueue;
import org.panamaverbs.verbs.UnsupportedVerbException;

/**
 * What an ESXi 6.5 (PVRDMA HWv13) guest would refuse, rehearsed on any device (docs/guide/pvrdma.md): the
 * device is opened under the emulated HWv13 profile, which allows only what both the device and that profile
 * allow. {@code PvrdmaRehearsal [DEVICE]}.
 */
public final class PvrdmaRehearsal {
    private PvrdmaRehearsal() {
    }

    public static void main(String[] args) {
        String device = args.length > 0 ? args[0] : Rdma.devices().getFirst().name();
        // snippet:rehearsal
        try (Context ctx = Rdma.open(device, HardwareClass.PVRDMA_HWV13);    // or -Dpanamaverbs.profile=pvrdma-hwv13
             ProtectionDomain pd = ctx.allocateProtectionDomain()) {
            System.out.println(ctx.name() + ": " + ctx.profile().describe());   // the lines to log
            try (SharedReceiveQueue srq = pd.createSharedReceiveQueue(64, 1)) {
                System.out.println("shared receive queue created: " + srq);
            } catch (UnsupportedVerbException e) {                              // refused before the provider is asked
                System.out.println("refused: " + e.getMessage());
            }
            var cq = ctx.createCompletionQueue(16);
            for (int i = 1; i <= 4; i++) {                                      // HWv13 allows 3 UD queue pairs
                try {
                    QueuePair ud = pd.createQueuePair(QpConfig.builder(cq).type(QpType.UD).build());
                    System.out.println("UD queue pair " + i + ": created, " + ud.state());
                } catch (UnsupportedVerbException e) {
                    System.out.println("UD queue pair " + i + ": refused: " + e.getMessage());
                }
            }
        }
        // end-snippet
    }
}
