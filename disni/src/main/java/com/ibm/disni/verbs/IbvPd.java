package com.ibm.disni.verbs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import org.panamaverbs.verbs.ProtectionDomain;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.IbvPd}: a protection domain ({@code struct ibv_pd},
 * {@code ibv_alloc_pd} / {@code ibv_dealloc_pd}) over a Panama Verbs {@link ProtectionDomain}.
 *
 * <p>{@link #getHandle()} is a number unique per protection domain in this JVM (programs such as Crail key
 * caches on it); it is not the kernel's {@code pd->handle}, which Panama Verbs' public API does not
 * expose. {@link #deallocPd()} frees the domain after closing what was made in it (regions, queue pairs);
 * {@link #close()} only marks this object closed.
 */
public class IbvPd {

    private static final AtomicInteger HANDLES = new AtomicInteger();

    private RdmaVerbs verbs;
    /**
     * A number unique to this protection domain in the JVM, counted from 1; not the kernel's {@code pd->handle}.
     */
    protected int handle;
    /** The device the domain was allocated on. */
    protected IbvContext context;
    /** False once {@link #close()} or {@link #deallocPd()} has been called. */
    protected volatile boolean isOpen;

    /** The Panama Verbs protection domain behind this object. */
    final ProtectionDomain pv;

    /**
     * Allocates a protection domain on {@code context}'s device ({@code ibv_alloc_pd}), as
     * {@code context.allocPd()} does.
     *
     * @param context the device
     * @throws IOException if the call fails or the context has no device behind it
     */
    public IbvPd(IbvContext context) throws IOException {
        this(context, PanamaVerbs.allocate(context));
    }

    IbvPd(IbvContext context, ProtectionDomain pv) {
        this.verbs = PanamaVerbs.INSTANCE;
        this.context = context;
        this.pv = pv;
        this.handle = HANDLES.incrementAndGet();
        this.isOpen = true;
    }

    /**
     * Returns a number unique to this protection domain in the JVM (see the class comment).
     *
     * @return the number
     * @throws IOException never
     */
    public int getHandle() throws IOException {
        return handle;
    }

    /**
     * Returns the device this domain belongs to.
     *
     * @return the context
     */
    public IbvContext getContext() {
        return context;
    }

    /**
     * Tells whether neither {@link #close()} nor {@link #deallocPd()} has been called.
     *
     * @return false once closed
     */
    public boolean isOpen() {
        return isOpen;
    }

    /** Marks this object closed; the domain itself is freed by {@link #deallocPd()}. */
    public void close() {
        isOpen = false;
    }

    /**
     * Prepares the registration of {@code buffer}'s whole capacity (position and limit are ignored, as in
     * DiSNI). The region keeps the buffer reachable until it is deregistered (DiSNI did not), so the JVM cannot
     * free a direct buffer's memory while the device may still use it. A buffer of an arena
     * ({@code MemorySegment.asByteBuffer()}) is refused: DiSNI's API gives the library no arena to deregister the
     * region before that arena's close frees the memory. Trusted, as in DiSNI: memory a pool frees explicitly
     * behind the buffer (outside the Java API); deregister the region first.
     *
     * @param buffer a direct buffer that no arena owns
     * @param access {@code IbvMr.IBV_ACCESS_*} bits
     * @return the call; {@code execute()} runs {@code ibv_reg_mr}
     * @throws IOException if the buffer is not direct; {@code execute()} throws it for a buffer of an arena
     */
    public SVCRegMr regMr(ByteBuffer buffer, int access) throws IOException {
        return verbs.regMr(this, buffer, access);
    }

    /**
     * Prepares the registration of {@code length} bytes at {@code address}.
     *
     * <p>What is checked: if the address lies in a region registered through this module from a buffer
     * ({@link #regMr(ByteBuffer, int)}), the bytes must lie wholly inside that buffer, and the new region is
     * registered over the buffer's memory, which it keeps reachable. Any other address is trusted:
     * {@code ibv_reg_mr} refuses memory that is not mapped when it runs, but nothing can see the memory freed
     * later, and an inline send ({@code IBV_SEND_INLINE}) from a region whose memory was unmapped crashes the
     * process in the provider's copy. Keep such memory alive and mapped until the region is deregistered and
     * every request naming it has completed; the safe alternative is {@link #regMr(ByteBuffer, int)} (or an
     * address inside a buffer registered that way).
     *
     * @param address the native address of the first byte
     * @param length bytes
     * @param access {@code IbvMr.IBV_ACCESS_*} bits
     * @return the call; {@code execute()} runs {@code ibv_reg_mr}
     * @throws IOException if the arguments are refused, or the bytes start inside a registered buffer and run past
     *                     its end
     */
    public SVCRegMr regMr(long address, int length, int access) throws IOException {
        return verbs.regMr(this, address, length, access);
    }

    /**
     * {@code ibv_dealloc_pd}, after closing the regions and queue pairs made in this domain.
     *
     * @return 0
     * @throws Exception an {@code IOException} if the call fails
     */
    public int deallocPd() throws Exception {
        return verbs.deallocPd(this);
    }
}
