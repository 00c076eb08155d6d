package com.ibm.disni.verbs;

import java.io.IOException;
import org.panamaverbs.verbs.MemoryRegion;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.IbvMr}: a memory region ({@code struct ibv_mr}),
 * made by executing {@code IbvPd.regMr(...)} ({@code ibv_reg_mr}) over a Panama Verbs {@link MemoryRegion},
 * freed by executing {@link #deregMr()} ({@code ibv_dereg_mr}).
 *
 * <p>{@link #getAddr()} is the address of the registered memory's first byte (for a buffer, its element 0)
 * and {@link #getLength()} its length; {@link #getLkey()} and {@link #getRkey()} come from the registration.
 * The setters change only this Java object. Memory lifetime: a region registered from a {@code ByteBuffer}
 * keeps the buffer reachable until it is deregistered; memory registered by address must be kept alive by
 * the caller until then. Work requests find their region by lkey among the regions this module registered
 * on the device.
 *
 * <p>{@link #getHandle()} is a number unique per region in the JVM, not the kernel's {@code mr->handle};
 * {@link #getContext()} returns the device's context (DiSNI 2.1 returned null).
 */
public class IbvMr {

    /** {@code IBV_ACCESS_LOCAL_WRITE} (1). */
    public static int IBV_ACCESS_LOCAL_WRITE;
    /** {@code IBV_ACCESS_REMOTE_WRITE} (2). */
    public static int IBV_ACCESS_REMOTE_WRITE;
    /** {@code IBV_ACCESS_REMOTE_READ} (4). */
    public static int IBV_ACCESS_REMOTE_READ;
    /** {@code IBV_ACCESS_REMOTE_ATOMIC} (8). */
    public static int IBV_ACCESS_REMOTE_ATOMIC;
    /** {@code IBV_ACCESS_MW_BIND} (16). */
    public static int IBV_ACCESS_MW_BIND;
    /** {@code IBV_ACCESS_ON_DEMAND} (64). */
    public static int IBV_ACCESS_ON_DEMAND;

    static {
        IBV_ACCESS_LOCAL_WRITE = 1;
        IBV_ACCESS_REMOTE_WRITE = 2;
        IBV_ACCESS_REMOTE_READ = 4;
        IBV_ACCESS_REMOTE_ATOMIC = 8;
        IBV_ACCESS_MW_BIND = 16;
        IBV_ACCESS_ON_DEMAND = 64;
    }

    private RdmaVerbs verbs;
    /** The device the region is registered on (for the public constructor, the context given). */
    protected IbvContext context;
    /** Address of the region's first byte ({@code ibv_mr.addr}); {@link #setAddr(long)} changes only this field. */
    protected long addr;
    /**
     * Length of the region in bytes ({@code ibv_mr.length}), capped at {@code Integer.MAX_VALUE} for a larger
     * registration; {@link #setLength(int)} changes only this field.
     */
    protected int length;
    /** The {@code IBV_ACCESS_*} bits the region was registered with. */
    protected int access;
    /**
     * Local key ({@code ibv_mr.lkey}): scatter-gather entries name the region by it, and posts look the region up
     * by it.
     */
    protected int lkey;
    /**
     * Remote key ({@code ibv_mr.rkey}): the peer puts it in its RDMA READ, WRITE and atomic requests that target
     * this region.
     */
    protected int rkey;
    /**
     * A number unique to this region in the JVM, counted from 1 (for the public constructor, the number given); not
     * the kernel's {@code mr->handle}.
     */
    protected int handle;
    /** False once {@link #close()} or an executed {@link #deregMr()} has closed this object. */
    protected volatile boolean isOpen;

    /** The Panama Verbs region behind this object; null for one made with the public constructor. */
    final MemoryRegion pv;
    /**
     * Whether the region's memory has a lifetime Java sees: registered from a buffer (or by an address inside such a
     * region), not by a trusted raw address. Raw addresses are checked against these regions ({@link KnownMemory}).
     */
    final boolean memoryKnown;

    /**
     * A description of a region with no registration behind it ({@link #deregMr()} then fails); kept because
     * DiSNI 2.1 has this constructor.
     *
     * @param context the device
     * @param addr the first byte
     * @param length bytes
     * @param access the access bits
     * @param lkey the local key
     * @param rkey the remote key
     * @param handle the handle
     * @throws IOException never
     */
    public IbvMr(IbvContext context, long addr, int length, int access, int lkey, int rkey, int handle)
            throws IOException {
        this.verbs = RdmaVerbs.open();
        this.context = context;
        this.addr = addr;
        this.length = length;
        this.access = access;
        this.lkey = lkey;
        this.rkey = rkey;
        this.handle = handle;
        this.isOpen = true;
        this.pv = null;
        this.memoryKnown = false;
    }

    IbvMr(IbvContext context, MemoryRegion pv, int access, int handle, boolean memoryKnown) {
        this.verbs = PanamaVerbs.INSTANCE;
        this.context = context;
        this.pv = pv;
        this.addr = pv.address();
        this.length = (int) Math.min(Integer.MAX_VALUE, pv.length());
        this.access = access;
        this.lkey = pv.lkey();
        this.rkey = pv.rkey();
        this.handle = handle;
        this.isOpen = true;
        this.memoryKnown = memoryKnown;
    }

    /**
     * Returns the address of the region's first byte.
     *
     * @return the address
     */
    public long getAddr() {
        return addr;
    }

    /**
     * Changes the address this object reports (not the registration).
     *
     * @param addr the address
     */
    public void setAddr(long addr) {
        this.addr = addr;
    }

    /**
     * Returns the region's length.
     *
     * @return bytes (at most 2^31 - 1, an {@code int} as in DiSNI)
     */
    public int getLength() {
        return length;
    }

    /**
     * Changes the length this object reports (not the registration).
     *
     * @param length bytes
     */
    public void setLength(int length) {
        this.length = length;
    }

    /**
     * Returns the local key, for scatter-gather entries.
     *
     * @return {@code mr->lkey}
     */
    public int getLkey() {
        return lkey;
    }

    /**
     * Changes the local key this object reports (not the registration).
     *
     * @param lkey the key
     */
    public void setLkey(int lkey) {
        this.lkey = lkey;
    }

    /**
     * Returns the remote key, for the peer's RDMA requests.
     *
     * @return {@code mr->rkey}
     */
    public int getRkey() {
        return rkey;
    }

    /**
     * Changes the remote key this object reports (not the registration).
     *
     * @param rkey the key
     */
    public void setRkey(int rkey) {
        this.rkey = rkey;
    }

    /**
     * Returns a number unique to this region in the JVM (see the class comment).
     *
     * @return the number
     */
    public int getHandle() {
        return handle;
    }

    @Override
    public String toString() {
        return "IbvMr[addr 0x" + Long.toHexString(addr) + ", length " + length + ", access " + access + ", lkey "
                + lkey + ", rkey " + rkey + ", handle " + handle + "]";
    }

    /**
     * Returns the device the region belongs to.
     *
     * @return the context
     */
    public IbvContext getContext() {
        return context;
    }

    /**
     * Tells whether neither {@link #close()} nor an executed {@link #deregMr()} has closed this object.
     *
     * @return false once closed
     */
    public boolean isOpen() {
        return isOpen;
    }

    /** Marks this object closed; the registration is freed by executing {@link #deregMr()}. */
    public void close() {
        isOpen = false;
    }

    /**
     * Prepares {@code ibv_dereg_mr}.
     *
     * @return the call; {@code execute()} deregisters (waiting for posts in flight that name the region)
     * @throws IOException if the region was not registered by this module
     */
    public SVCDeregMr deregMr() throws IOException {
        return verbs.deregMr(this);
    }

    /**
     * Prefetches on-demand-paging memory.
     *
     * @param address the first byte
     * @param length bytes
     * @return -1: not supported here (see {@link RdmaVerbs#expPrefetchMr(IbvMr, long, int)})
     * @throws IOException never
     */
    public int expPrefetchMr(long address, int length) throws IOException {
        return verbs.expPrefetchMr(this, address, length);
    }
}
