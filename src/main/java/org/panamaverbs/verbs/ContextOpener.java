package org.panamaverbs.verbs;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import org.panamaverbs.ffi.ibv_context;
import org.panamaverbs.ffi.ibverbs_h;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.ControlEvents;
import org.panamaverbs.internal.NativeFunction;
import org.panamaverbs.internal.NativeLayouts;
import org.panamaverbs.internal.Unchecked;
import org.panamaverbs.internal.VerbsSymbols;

/**
 * The two ways a {@link Context} comes to be: opened here ({@code ibv_open_device}) or borrowed from an owner that
 * keeps the device open (rdma_cm). Each gives the context its profile and refuses a provider the data path cannot
 * call; a failed open leaves the device closed.
 */
final class ContextOpener {
    private ContextOpener() {
    }

    /** Linked on the first open only: borrowing a context must not need {@code ibv_open_device}. */
    private static final class Native {
        static final MethodHandle OPEN_DEVICE = CallState.capturingErrno(NativeFunction.IBV_OPEN_DEVICE);
    }

    /**
     * Opens {@code device} (an entry of a live {@code ibv_get_device_list} array) under {@code emulate}, or detected if
     * null, calling the functions of {@code symbols} (the process's, {@link VerbsSymbols#system()}, but for tests).
     */
    static Context open(MemorySegment device, RdmaDevice info, HardwareClass emulate, VerbsSymbols symbols) {
        Object event = ControlEvents.begin(ControlEvents.Kind.DEVICE_OPEN);
        MemorySegment context;
        try (CallState state = CallState.open()) {
            context = (MemorySegment) Native.OPEN_DEVICE.invokeExact(state.segment(), device);
            if (context.equals(MemorySegment.NULL)) {
                throw new VerbsException("ibv_open_device", state.errno(), "device " + info.name()
                        + ": check access to /dev/infiniband/uverbs* and that the provider for this device"
                        + " (package ibverbs-providers) is installed");
            }
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
        MemorySegment handle = context.reinterpret(NativeLayouts.selected().ibvContext().byteSize());
        Context opened = null;
        try {
            opened = new Context(handle, info, symbols);
            opened.applyProfile(profileFor(opened, emulate));
            requireDataPathOps(opened);
            reportOpened(opened, event, "opened");
            return opened;
        } catch (RuntimeException e) {
            if (!(e instanceof UnsupportedVerbException)) { // requireDataPathOps closed it already
                if (opened != null) {
                    opened.disown();
                }
                ibverbs_h.ibv_close_device(handle);
            }
            throw e;
        }
    }

    /**
     * Wraps an {@code ibv_context} another owner opened and will close (rdma_cm's {@code cm_id->verbs}, which
     * librdmacm keeps open for the life of the process): closing this object closes what was created on it,
     * never the device.
     */
    static Context borrow(MemorySegment verbs, String owner) {
        Object event = ControlEvents.begin(ControlEvents.Kind.DEVICE_OPEN);
        MemorySegment handle = verbs.reinterpret(NativeLayouts.selected().ibvContext().byteSize());
        RdmaDevice info = Rdma.describe(ibv_context.device(handle));
        Context borrowed = new Context(handle, info, VerbsSymbols.system());
        borrowed.heldBy(owner, () -> { });
        borrowed.applyProfile(profileFor(borrowed, null));
        requireDataPathOps(borrowed);
        reportOpened(borrowed, event, "borrowed");
        return borrowed;
    }

    /** The profile detected from the device's attributes and GID tables, or the one emulated (argument, else property). */
    private static DeviceProfile profileFor(Context context, HardwareClass emulate) {
        DeviceProfile detected = DeviceProfile.detect(context.attributes(), GidTableQuery.ofAllPorts(context));
        if (emulate == null) {
            String property = System.getProperty("panamaverbs.profile");
            emulate = property == null || property.isBlank() ? null : HardwareClass.ofPropertyValue(property);
        }
        return emulate == null ? detected : detected.emulate(emulate);
    }

    /** Logs the device and its profile (INFO when the profile gates anything, else DEBUG) and commits {@code event}. */
    private static void reportOpened(Context context, Object event, String how) {
        DeviceProfile profile = context.profile();
        DeviceAttributes attributes = context.attributes();
        ControlEvents.deviceOpened(event, context.name(), how, profile.hardwareClass().name(), profile.emulated(),
                profile.reasons(), profile.describe(), attributes.vendorId(), attributes.vendorPartId(),
                profile.hardwareClass().isPvrdma() || profile.emulated());
    }

    /**
     * Refuses a provider without the legacy {@code poll_cq}/{@code post_send}/{@code post_recv} operations, which
     * the data path calls through (closing the context first).
     */
    private static void requireDataPathOps(Context context) {
        if (context.pollCqFunction.equals(MemorySegment.NULL) || context.postSendFunction.equals(MemorySegment.NULL)
                || context.postRecvFunction.equals(MemorySegment.NULL)) {
            context.close();
            throw context.policy().refused(new UnsupportedVerbException("ibv_post_send", "the " + context.name()
                    + " provider has no legacy poll_cq/post_send/post_recv operations",
                    "use a device whose rdma-core provider implements them (all in-tree providers do)"));
        }
    }
}
