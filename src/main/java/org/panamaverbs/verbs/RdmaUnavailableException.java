package org.panamaverbs.verbs;

/**
 * RDMA cannot be used on this machine: libibverbs is not installed, the kernel has no RDMA support, or
 * there is no RDMA device. The message names what is missing and how to get it. Thrown by
 * {@link Rdma#ensureAvailable()} and by every entry point that would otherwise touch the native library.
 */
public final class RdmaUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why RDMA is unavailable. */
    public enum Reason {
        /** {@code libibverbs.so.1} could not be loaded. */
        LIBRARY_MISSING,
        /** {@code ibv_get_device_list} returned NULL: the kernel has no RDMA (uverbs) support. */
        NO_KERNEL_SUPPORT,
        /** The kernel has RDMA support but no device (or not the one asked for). */
        NO_DEVICE
    }

    /** What is missing; part of the serialized form. */
    private final Reason reason;

    /**
     * Makes the exception; the library throws it, applications rarely need to.
     *
     * @param reason  what is missing; not null
     * @param message what is missing and how to get it (install the package, load the driver...)
     * @param cause   the underlying failure, for example the loader's error, or null
     */
    public RdmaUnavailableException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    /**
     * What is missing.
     *
     * @return the reason given at construction
     */
    public Reason reason() {
        return reason;
    }
}
