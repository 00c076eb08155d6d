package com.ibm.disni.verbs;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.IbvSge}: one scatter-gather entry of a work
 * request, a plain Java mirror of C's {@code struct ibv_sge} (address, length, local key). Wraps no C
 * call and holds no native memory.
 *
 * <p>An entry names memory by address: the buffer behind {@link #getAddr()} (for example a direct
 * {@code ByteBuffer} whose address came from {@code MemoryUtils.getAddress}) and its registration must
 * stay alive until every work request posted with this entry has completed. A stateful verb call copies the
 * entry when it is created; later changes to this object are not seen by it (use its {@code SgeMod}).
 */
public class IbvSge {

    /**
     * Address of the first byte ({@code ibv_sge.addr}); this byte and the {@code length} after it must lie in the
     * region that {@code lkey} names.
     */
    protected long addr;
    /** Number of bytes ({@code ibv_sge.length}); for a receive, the most bytes written into this entry. */
    protected int length;
    /**
     * Local key ({@code ibv_sge.lkey}, {@code IbvMr.getLkey()}) of a region registered through this module on the
     * queue pair's device; a post finds the region by it.
     */
    protected int lkey;

    /** An entry with address, length and key 0. */
    public IbvSge() {
    }

    /**
     * Returns the address of the first byte ({@code ibv_sge.addr}), inside a registered region.
     *
     * @return the value
     */
    public long getAddr() {
        return addr;
    }

    /**
     * Sets the address of the first byte ({@code ibv_sge.addr}), inside a registered region.
     *
     * @param addr the value
     */
    public void setAddr(long addr) {
        this.addr = addr;
    }

    /**
     * Returns the number of bytes ({@code ibv_sge.length}).
     *
     * @return the value
     */
    public int getLength() {
        return length;
    }

    /**
     * Sets the number of bytes ({@code ibv_sge.length}).
     *
     * @param length the value
     */
    public void setLength(int length) {
        this.length = length;
    }

    /**
     * Returns the local key of the region the bytes lie in ({@code ibv_sge.lkey}, {@code IbvMr.getLkey()}).
     *
     * @return the value
     */
    public int getLkey() {
        return lkey;
    }

    /**
     * Sets the local key of the region the bytes lie in ({@code ibv_sge.lkey}, {@code IbvMr.getLkey()}).
     *
     * @param lkey the value
     */
    public void setLkey(int lkey) {
        this.lkey = lkey;
    }

    /**
     * Returns this type's simple name, {@code "IbvSge"}.
     *
     * @return the name
     */
    public String getClassName() {
        return "IbvSge";
    }
}
