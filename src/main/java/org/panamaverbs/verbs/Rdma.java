package org.panamaverbs.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import org.panamaverbs.ffi.ibv_device;
import org.panamaverbs.ffi.ibverbs_h;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.NativeFunction;
import org.panamaverbs.internal.NativeLayouts;
import org.panamaverbs.internal.NativeLibrary;
import org.panamaverbs.internal.Unchecked;
import org.panamaverbs.internal.VerbsSymbols;

/**
 * Entry point: is RDMA usable here, which devices are there, open one.
 *
 * <pre>{@code
 * try (Context ctx = Rdma.openFirst()) { ... }
 * }</pre>
 *
 * Wraps {@code ibv_get_device_list}, {@code ibv_get_device_name}, {@code ibv_get_device_guid},
 * {@code ibv_open_device} and {@code ibv_free_device_list}. When the library or the kernel support is
 * missing, every method here throws {@link RdmaUnavailableException} saying what is missing and how to
 * get it; nothing fails in a static initializer and nothing crashes the JVM (a NULL device list is
 * never passed to {@code ibv_free_device_list}).
 */
public final class Rdma {
    private Rdma() {
    }

    private static final class Native {
        static final MethodHandle GET_DEVICE_LIST = CallState.capturingErrno(NativeFunction.IBV_GET_DEVICE_LIST);
    }

    /**
     * Whether libibverbs loads and the kernel reports RDMA support (devices may still be absent).
     *
     * @return true if {@link #ensureAvailable()} would succeed; false instead of its
     *         {@link RdmaUnavailableException}, and on a CPU architecture this library has no layouts for
     *         (anything but x86_64 and aarch64), where {@link #ensureAvailable()} throws
     *         {@link UnsupportedOperationException}
     */
    public static boolean isAvailable() {
        try {
            ensureAvailable();
            return true;
        } catch (RdmaUnavailableException | UnsupportedOperationException e) {
            return false;
        }
    }

    /**
     * Checks that libibverbs loads and that the kernel has RDMA support.
     *
     * @throws RdmaUnavailableException with {@link RdmaUnavailableException.Reason#LIBRARY_MISSING} or
     *                                  {@link RdmaUnavailableException.Reason#NO_KERNEL_SUPPORT}
     * @throws UnsupportedOperationException on a CPU architecture other than x86_64 and aarch64
     */
    public static void ensureAvailable() {
        withDeviceList(list -> null);
    }

    /**
     * Throws {@link RdmaUnavailableException} if libibverbs cannot be loaded, and {@link UnsupportedOperationException}
     * (naming the architecture) on a CPU whose struct layouts this library does not know; needs no kernel support.
     * The first successful call resolves the library's newer functions ({@link VerbsSymbols#system()}) and logs
     * which rdma-core this is.
     */
    static void requireLibrary() {
        NativeLayouts.requireSupportedArchitecture();
        String problem = NativeLibrary.ibverbsProblem();
        if (problem != null) {
            throw new RdmaUnavailableException(RdmaUnavailableException.Reason.LIBRARY_MISSING,
                    NativeLibrary.missingMessage(NativeLibrary.IBVERBS, problem), null);
        }
        VerbsSymbols.system();
    }

    /**
     * Which rdma-core this process runs on: the libibverbs file the dynamic loader chose (by the soname
     * {@code libibverbs.so.1}, so {@code LD_LIBRARY_PATH} counts), rdma-core's version as that file's name gives it,
     * and what Panama Verbs does instead of each function the library lacks. Panama Verbs runs on rdma-core 17 and
     * later; before 32 some features take fallbacks, and a few are refused with a message naming the release that
     * has them (see {@link RdmaCore#fallbacks()}). Needs no kernel support and no device.
     *
     * @return the library's description, the same for the life of the process
     * @throws RdmaUnavailableException with {@link RdmaUnavailableException.Reason#LIBRARY_MISSING} if libibverbs
     *                                  cannot be loaded
     * @throws UnsupportedOperationException on a CPU architecture other than x86_64 and aarch64
     */
    public static RdmaCore rdmaCore() {
        requireLibrary();
        VerbsSymbols symbols = VerbsSymbols.system();
        return new RdmaCore(symbols.version(), symbols.libraryFile(), symbols.fallbacks());
    }

    /**
     * The RDMA devices of this machine ({@code ibv_get_device_list}); empty when the kernel supports RDMA
     * but has no device.
     *
     * @return an unmodifiable list, in the order libibverbs lists the devices; a snapshot taken now
     * @throws RdmaUnavailableException with {@link RdmaUnavailableException.Reason#LIBRARY_MISSING} or
     *                                  {@link RdmaUnavailableException.Reason#NO_KERNEL_SUPPORT}
     */
    public static List<RdmaDevice> devices() {
        return withDeviceList(list -> {
            List<RdmaDevice> devices = new ArrayList<>();
            for (MemorySegment device : list) {
                devices.add(describe(device));
            }
            return List.copyOf(devices);
        });
    }

    /**
     * Opens the device called {@code name} (as {@code ibv_devices} lists it). The device's hardware class is
     * detected, or taken from the {@code panamaverbs.profile} system property when it is set.
     *
     * @param name the device name, e.g. {@code "rxe0"} or {@code "mlx5_0"}; see {@link RdmaDevice#name()}
     * @return the open context, the root of the resources made on it; close it when done
     * @throws RdmaUnavailableException {@link RdmaUnavailableException.Reason#NO_DEVICE} if there is no
     *                                  such device, listing those present
     * @throws VerbsException           if {@code ibv_open_device} fails
     */
    public static Context open(String name) {
        return open(name, null);
    }

    /**
     * Opens the device called {@code name} under an emulated hardware class: its gates then allow only
     * what both the device and {@code emulate} allow (see {@link DeviceProfile}). Null means detected,
     * or the {@code panamaverbs.profile} system property when it is set.
     *
     * @param name    the device name, e.g. {@code "rxe0"} or {@code "mlx5_0"}; see {@link RdmaDevice#name()}
     * @param emulate the hardware class to restrict the device to, or null
     * @return the open context, the root of the resources made on it; close it when done
     * @throws RdmaUnavailableException {@link RdmaUnavailableException.Reason#NO_DEVICE} if there is no
     *                                  such device, listing those present
     * @throws VerbsException           if {@code ibv_open_device} fails
     */
    public static Context open(String name, HardwareClass emulate) {
        return open(name, emulate, null);
    }

    /**
     * {@link #open(String, HardwareClass)} calling the libibverbs functions of {@code symbols}, or the process's
     * ({@link VerbsSymbols#system()}) when null: the tests pass a table without the newer functions to run the
     * fallbacks an older rdma-core gets.
     */
    static Context open(String name, HardwareClass emulate, VerbsSymbols symbols) {
        return withDeviceList(list -> {
            List<String> present = new ArrayList<>();
            for (MemorySegment device : list) {
                RdmaDevice info = describe(device);
                if (info.name().equals(name)) {
                    return ContextOpener.open(device, info, emulate, symbols == null ? VerbsSymbols.system() : symbols);
                }
                present.add(info.name());
            }
            throw new RdmaUnavailableException(RdmaUnavailableException.Reason.NO_DEVICE,
                    "no RDMA device named " + name + "; present: " + present, null);
        });
    }

    /**
     * Opens the first device {@code ibv_get_device_list} returns, as {@link #open(String)} would.
     *
     * @return the open context, the root of the resources made on it; close it when done
     * @throws RdmaUnavailableException {@link RdmaUnavailableException.Reason#NO_DEVICE} if there is none
     */
    public static Context openFirst() {
        return withDeviceList(list -> {
            if (list.isEmpty()) {
                throw new RdmaUnavailableException(RdmaUnavailableException.Reason.NO_DEVICE,
                        "the kernel supports RDMA but has no RDMA device. Load a driver for your NIC, or create a"
                                + " Soft-RoCE device: modprobe rdma_rxe && rdma link add rxe0 type rxe netdev <eth>", null);
            }
            return ContextOpener.open(list.getFirst(), describe(list.getFirst()), null, VerbsSymbols.system());
        });
    }

    static RdmaDevice describe(MemorySegment device) {
        String name = ibverbs_h.ibv_get_device_name(device).reinterpret(Long.MAX_VALUE).getString(0);
        long guid = Long.reverseBytes(ibverbs_h.ibv_get_device_guid(device));
        int transport = ibv_device.transport_type(device.reinterpret(ibv_device.layout().byteSize()));
        return new RdmaDevice(name, guid, Transport.of(transport));
    }

    /**
     * Runs {@code action} on the live device array and frees it afterwards. Guards the two edges
     * that crash in C: a NULL list (no kernel support) is never freed, and the array is only read
     * up to the count the library returned.
     */
    private static <T> T withDeviceList(Function<List<MemorySegment>, T> action) {
        requireLibrary();
        MemorySegment list;
        int count;
        try (Arena arena = Arena.ofConfined(); CallState state = CallState.open()) {
            MemorySegment countOut = arena.allocate(JAVA_INT);
            list = (MemorySegment) Native.GET_DEVICE_LIST.invokeExact(state.segment(), countOut);
            if (list.equals(MemorySegment.NULL)) {
                throw noKernelSupport(state.errno());
            }
            count = countOut.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
        try {
            MemorySegment array = list.reinterpret(ADDRESS.byteSize() * count);
            List<MemorySegment> devices = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                devices.add(array.getAtIndex(ADDRESS, i));
            }
            return action.apply(devices);
        } finally {
            ibverbs_h.ibv_free_device_list(list);
        }
    }

    static RdmaUnavailableException noKernelSupport(int errno) {
        return new RdmaUnavailableException(RdmaUnavailableException.Reason.NO_KERNEL_SUPPORT,
                "ibv_get_device_list returned NULL (" + Errno.describe(errno) + "): this kernel has no RDMA (uverbs)"
                        + " support. Load ib_uverbs and a device driver (Soft-RoCE: modprobe rdma_rxe && rdma link add"
                        + " rxe0 type rxe netdev <eth>).", null);
    }
}
