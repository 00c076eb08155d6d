package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.panamaverbs.internal.NativeLibrary;

/**
 * What a user sees when RDMA is missing. On the build machines libibverbs is installed but the kernel
 * has no RDMA, which is exactly the case where C programs that free a NULL device list crash.
 */
class AvailabilityTest {
    private static final boolean KERNEL_HAS_RDMA = Files.isDirectory(Path.of("/sys/class/infiniband_verbs"));

    @Test
    void installedLibraryLoadsBySoname() {
        RequiredTools.libibverbs();
        assertNull(NativeLibrary.probe(NativeLibrary.IBVERBS), "libibverbs.so.1 should load (scripts/setup installs it)");
    }

    @Test
    void missingLibraryIsReportedWithHowToInstallIt() {
        String problem = NativeLibrary.probe("libpanamaverbs-does-not-exist.so.1");
        assertNotNull(problem);
        String message = NativeLibrary.missingMessage(NativeLibrary.IBVERBS, problem);
        assertTrue(message.startsWith("libibverbs.so.1 could not be loaded ("), message);
        assertTrue(message.contains("apt-get install libibverbs1 ibverbs-providers"), message);
        assertTrue(message.contains("dnf install rdma-core libibverbs"), message);
        assertTrue(message.contains("zypper install rdma-core libibverbs1"), message);
        String rdmacm = NativeLibrary.missingMessage(NativeLibrary.RDMACM, problem);
        assertTrue(rdmacm.contains("apt-get install librdmacm1 (librdmacm1t64 on Debian 13"), rdmacm);
        assertTrue(rdmacm.contains("dnf install librdmacm"), rdmacm);
        assertTrue(rdmacm.contains("zypper install librdmacm1"), rdmacm);
        assertEquals(1, rdmacm.lines().count(), rdmacm);
    }

    @Test
    void kernelWithoutRdmaGivesOneClearExceptionAndNoCrash() {
        RequiredTools.libibverbs();
        assumeFalse(KERNEL_HAS_RDMA, "this kernel has RDMA support");
        RdmaUnavailableException e = assertThrows(RdmaUnavailableException.class, Rdma::ensureAvailable);
        assertEquals(RdmaUnavailableException.Reason.NO_KERNEL_SUPPORT, e.reason());
        assertTrue(e.getMessage().startsWith("ibv_get_device_list returned NULL ("), e.getMessage());
        assertTrue(e.getMessage().contains("rdma link add"), e.getMessage());
        assertFalse(Rdma.isAvailable());
        // Every entry point says the same, repeatedly, without touching the NULL list.
        for (int i = 0; i < 3; i++) {
            assertEquals(RdmaUnavailableException.Reason.NO_KERNEL_SUPPORT,
                    assertThrows(RdmaUnavailableException.class, Rdma::devices).reason());
            assertEquals(RdmaUnavailableException.Reason.NO_KERNEL_SUPPORT,
                    assertThrows(RdmaUnavailableException.class, Rdma::openFirst).reason());
            assertEquals(RdmaUnavailableException.Reason.NO_KERNEL_SUPPORT,
                    assertThrows(RdmaUnavailableException.class, () -> Rdma.open("rxe0")).reason());
        }
    }

    @Test
    void kernelWithRdmaIsAvailable() {
        RequiredTools.libibverbs();
        assumeTrue(KERNEL_HAS_RDMA, "this kernel has no RDMA support");
        assertTrue(Rdma.isAvailable());
        RdmaUnavailableException e = assertThrows(RdmaUnavailableException.class,
                () -> Rdma.open("no-such-device-0"));
        assertEquals(RdmaUnavailableException.Reason.NO_DEVICE, e.reason());
    }

    @Test
    void workRequestsNeedOnlyTheLibrary() {
        RequiredTools.libibverbs();
        try (SendChain s = SendChain.allocate(1, 1);
             RecvChain r = RecvChain.allocate(1, 1);
             CompletionArray w = CompletionArray.allocate(1)) {
            assertEquals(1, s.capacity() + r.capacity() + w.capacity() - 2);
        }
    }
}
