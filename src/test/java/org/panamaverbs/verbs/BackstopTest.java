package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * A resource tree that is never closed: once its context is unreachable, the {@link Backstop} frees every
 * native object left open (children first) and logs a warning; this process's objects on the device
 * ({@code rdma resource show}) are back where they were.
 */
class BackstopTest extends DeviceTest {

    @Test
    void aContextLostWithoutCloseIsFreedWithEverythingUnderIt() throws Exception {
        List<String> before = LeakCheck.resourceCounts();
        int freedBefore = Backstop.TREES_FREED.get();
        int objects = openAndForget();
        List<String> open = LeakCheck.resourceCounts();
        assertTrue(!open.equals(before), "the forgotten tree holds objects on the device: " + open);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (Backstop.TREES_FREED.get() == freedBefore && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(100);
        }
        assertEquals(freedBefore + 1, Backstop.TREES_FREED.get(), "the backstop freed the lost tree");
        assertEquals(before, LeakCheck.resourceCounts(), "all " + objects + " native objects of the lost tree were freed");
    }

    /** Opens a context with a connected pair, a region, a channel and an address handle; closes nothing. */
    private static int openAndForget() {
        Context ctx = Rdma.open(context.name());
        ProtectionDomain domain = ctx.allocateProtectionDomain();
        CompletionChannel channel = ctx.createCompletionChannel();
        CompletionQueue cq = ctx.createCompletionQueue(16, channel);
        QueuePair a = domain.createQueuePair(QpConfig.builder(cq).build());
        QueuePair b = domain.createQueuePair(QpConfig.builder(cq).build());
        QueuePair.connectLoopback(a, b);
        domain.allocateAndRegister(4096, Access.LOCAL_WRITE);
        GidEntry gid = ctx.gidTable(1).getFirst();
        domain.createAddressHandle(AddressHandle.Target.of(gid.gid(), gid.index(), 1));
        return 8;
    }
}
