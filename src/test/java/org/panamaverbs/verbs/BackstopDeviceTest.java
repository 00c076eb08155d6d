package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * A resource tree that is never closed: once its context is unreachable, the {@link Backstop} frees every
 * native object left open (children first) and logs a warning; this process's objects on the device
 * ({@code rdma resource show}) are back where they were.
 */
class BackstopDeviceTest extends DeviceTest {

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

    /**
     * Misuse round 3 (docs/misuse.md): {@code handle()} views kept past the context's loss must end with the tree,
     * as a close ends them. Before, the backstop freed the provider's structs under them and reading a kept view
     * returned freed memory, with no exception.
     */
    @Test
    void handlesKeptFromALostContextThrowOnceTheBackstopFreedIt() throws Exception {
        int freedBefore = Backstop.TREES_FREED.get();
        List<MemorySegment> handles = openAndForgetKeepingHandles();
        for (MemorySegment handle : handles) {
            assertTrue(handle.byteSize() >= Long.BYTES, handle + " is a view of its struct");
            handle.get(ValueLayout.JAVA_LONG, 0); // readable while the tree lives
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (Backstop.TREES_FREED.get() == freedBefore && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(100);
        }
        assertEquals(freedBefore + 1, Backstop.TREES_FREED.get(), "the backstop freed the lost tree");
        for (MemorySegment handle : handles) {
            assertFalse(handle.scope().isAlive(), "a kept handle's scope ended with the tree");
            IllegalStateException read = assertThrows(IllegalStateException.class,
                    () -> handle.get(ValueLayout.JAVA_LONG, 0), "reading a handle of a freed object");
            assertTrue(read.getMessage().contains("closed"), read.getMessage());
        }
    }

    /** A context, domain, queue and queue pair, of which only the {@code handle()} views are kept. */
    private static List<MemorySegment> openAndForgetKeepingHandles() {
        Context ctx = Rdma.open(context.name());
        ProtectionDomain domain = ctx.allocateProtectionDomain();
        CompletionQueue cq = ctx.createCompletionQueue(16);
        QueuePair qp = domain.createQueuePair(QpConfig.builder(cq).build());
        return List.of(ctx.handle(), domain.handle(), cq.handle(), qp.handle());
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
