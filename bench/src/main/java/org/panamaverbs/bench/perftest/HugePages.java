package org.panamaverbs.bench.perftest;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * {@code --use_hugepages}: buffers of hugepage-backed memory, taken as perftest's {@code alloc_hugepage_region} takes
 * them: a private System V shared memory segment with {@code SHM_HUGETLB}, its size rounded up to whole 2 MiB pages,
 * attached and at once marked for removal (so it goes when the process does). A machine without hugepages configured
 * ({@code vm.nr_hugepages} 0) has none to give, and the tool stops with perftest's words.
 */
final class HugePages {
    /** perftest's {@code HUGEPAGE_ALIGN}: the 2 MiB page its sizes are rounded up to. */
    static final long PAGE = 2L << 20;
    private static final int IPC_PRIVATE = 0;
    private static final int IPC_CREAT = 01000;
    private static final int IPC_RMID = 0;
    private static final int SHM_HUGETLB = 04000;
    private static final int SHM_R_W = 0600;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle SHMGET = function("shmget", true,
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    private static final MethodHandle SHMAT = function("shmat", true,
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    private static final MethodHandle SHMCTL = function("shmctl", false,
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    private static final MethodHandle SHMDT = function("shmdt", false,
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));

    private HugePages() {
    }

    private static MethodHandle function(String name, boolean errno, FunctionDescriptor descriptor) {
        MemorySegment symbol = LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new IllegalStateException("libc has no " + name));
        return errno ? LINKER.downcallHandle(symbol, descriptor, Linker.Option.captureCallState("errno"))
                : LINKER.downcallHandle(symbol, descriptor);
    }

    /** {@code size} rounded up to whole hugepages, as perftest rounds it. */
    static long rounded(long size) {
        return (size + PAGE - 1) / PAGE * PAGE;
    }

    /**
     * Zeroed hugepage-backed memory of at least {@code size} bytes (whole 2 MiB pages), which stays mapped until
     * {@link #free}: register it with {@code ProtectionDomain.register(MemorySegment)}.
     *
     * @throws PerftestException in perftest's words when the machine has no hugepages to give
     */
    static MemorySegment allocate(long size) {
        long bytes = rounded(size);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int id = (int) SHMGET.invokeExact(state, IPC_PRIVATE, bytes, SHM_HUGETLB | IPC_CREAT | SHM_R_W);
            if (id < 0) {
                throw new PerftestException("Failed to allocate hugepages. Please configure hugepages (--use_hugepages:"
                        + " shmget of " + bytes + " bytes with SHM_HUGETLB failed, errno " + (int) ERRNO.get(state, 0L)
                        + "; as perftest)");
            }
            MemorySegment address = (MemorySegment) SHMAT.invokeExact(state, id, MemorySegment.NULL, 0);
            int attachErrno = (int) ERRNO.get(state, 0L);
            int removed = (int) SHMCTL.invokeExact(id, IPC_RMID, MemorySegment.NULL); // goes once detached
            if (address.address() == -1L) {
                throw new PerftestException("Failed to attach shared memory region (--use_hugepages: shmat failed,"
                        + " errno " + attachErrno + "; as perftest)");
            }
            if (removed != 0) {
                free(address);
                throw new PerftestException("Failed to mark shm for removal (--use_hugepages; as perftest)");
            }
            return address.reinterpret(bytes);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** Detaches memory of {@link #allocate} (once no memory region holds it): the kernel then frees it. */
    static void free(MemorySegment memory) {
        try {
            int rc = (int) SHMDT.invokeExact(memory);
            assert rc == 0 : "shmdt failed";
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }
}
