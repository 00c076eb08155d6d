package com.ibm.disni.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Without a device: the kernel copy of bytes at a trusted raw address ({@link KnownMemory}), and the release of
 * the per-thread chains of ended threads ({@link PerThreadChains}).
 */
class RawAddressTest {

    @Test
    void bytesAtATrustedAddressAreCopiedOrRefusedNeverFaulted() throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            byte[] hello = "hello, private data".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            MemorySegment data = arena.allocateFrom(ValueLayout.JAVA_BYTE, hello);
            assertArrayEquals(hello, KnownMemory.copy(data.address(), hello.length, "test"));
        }
        for (long unmapped : new long[] {8, 1L << 47, -4096}) {
            IOException e = assertThrows(IOException.class, () -> KnownMemory.copy(unmapped, 16, "rdma_connect: private data"));
            assertTrue(e.getMessage().contains("not readable memory (EFAULT"), e.getMessage());
        }
    }

    @Test
    void theChainsOfEndedThreadsAreReleasedWhenANewThreadComesAndTheFirstAliveIsRemembered() throws Exception {
        AtomicInteger open = new AtomicInteger();
        List<Throwable> failures = new ArrayList<>();
        AtomicInteger remembered = new AtomicInteger();
        AtomicInteger forgotten = new AtomicInteger();
        List<Thread> rememberedThreads = new ArrayList<>();
        PerThreadChains<PerThreadChains.Chain> chains = new PerThreadChains<>(() -> {
            open.incrementAndGet();
            return open::decrementAndGet;
        }, new PerThreadChains.FirstThread<>() {
            @Override
            public void remember(PerThreadChains.Chain part) {
                remembered.incrementAndGet();
                rememberedThreads.add(Thread.currentThread());
            }

            @Override
            public void forget() {
                forgotten.incrementAndGet();
            }
        });
        for (int i = 0; i < 100; i++) {
            Thread request = Thread.ofVirtual().start(() -> {
                try {
                    chains.get();
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            request.join();
        }
        chains.get(); // this thread is new to the chains too: the ended threads' chains go first
        assertEquals(List.of(), failures);
        assertEquals(1, chains.held(), "only this thread's chain is held after 100 ended threads");
        assertEquals(1, open.get());
        // each thread in turn was the first one alive, and was forgotten once it had ended
        assertEquals(101, remembered.get());
        assertEquals(100, forgotten.get());
        assertEquals(Thread.currentThread(), rememberedThreads.get(100));
        chains.closeAll();
        assertEquals(0, open.get());
        assertEquals(101, forgotten.get(), "a freed call forgets its first thread");
        assertEquals(null, chains.get(), "a freed call has no chain for anyone");
        assertEquals(0, open.get());
    }
}
