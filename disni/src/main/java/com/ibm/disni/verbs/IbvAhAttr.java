package com.ibm.disni.verbs;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.IbvAhAttr}: an address vector, mirroring C's
 * {@code struct ibv_ah_attr}. Its constructor is protected, as in DiSNI 2.1 (where no public API made
 * one); a plain value holder that wraps no C call.
 */
public class IbvAhAttr {

    /**
     * Global routing header ({@code ibv_ah_attr.grh}), used when {@code is_global} is 1 (always on RoCE); the
     * object given to the constructor, kept by reference.
     */
    protected IbvGlobalRoute grh;
    /**
     * Destination LID ({@code ibv_ah_attr.dlid}): an unsigned 16-bit value in a {@code short}; InfiniBand only, 0
     * on RoCE.
     */
    protected short dlid;
    /** Service level ({@code ibv_ah_attr.sl}), 0 to 15. */
    protected byte sl;
    /**
     * Source path bits ({@code ibv_ah_attr.src_path_bits}): the low bits of the source LID, which choose among the
     * port's LIDs when its LMC is above 0.
     */
    protected byte src_path_bits;
    /**
     * Injection rate limit ({@code ibv_ah_attr.static_rate}), a value of C's {@code enum ibv_rate}; 0
     * ({@code IBV_RATE_MAX}) means the port's full rate.
     */
    protected byte static_rate;
    /** 1 if packets carry the global routing header {@code grh} ({@code ibv_ah_attr.is_global}), else 0. */
    protected byte is_global;
    /** Local port the packets leave from ({@code ibv_ah_attr.port_num}), 1-based. */
    protected byte port_num;

    /**
     * An address vector over the given routing header, kept by reference.
     *
     * @param grh the global routing header
     */
    protected IbvAhAttr(IbvGlobalRoute grh) {
        this.grh = grh;
    }

    /**
     * Returns the global routing header ({@code ibv_ah_attr.grh}).
     *
     * @return the value
     */
    public IbvGlobalRoute getGrh() {
        return grh;
    }

    /**
     * Sets the global routing header ({@code ibv_ah_attr.grh}).
     *
     * @param grh the value
     */
    public void setGrh(IbvGlobalRoute grh) {
        this.grh = grh;
    }

    /**
     * Returns the destination LID ({@code ibv_ah_attr.dlid}).
     *
     * @return the value
     */
    public short getDlid() {
        return dlid;
    }

    /**
     * Sets the destination LID ({@code ibv_ah_attr.dlid}).
     *
     * @param dlid the value
     */
    public void setDlid(short dlid) {
        this.dlid = dlid;
    }

    /**
     * Returns the service level ({@code ibv_ah_attr.sl}).
     *
     * @return the value
     */
    public byte getSl() {
        return sl;
    }

    /**
     * Sets the service level ({@code ibv_ah_attr.sl}).
     *
     * @param sl the value
     */
    public void setSl(byte sl) {
        this.sl = sl;
    }

    /**
     * Returns the source path bits ({@code ibv_ah_attr.src_path_bits}).
     *
     * @return the value
     */
    public byte getSrc_path_bits() {
        return src_path_bits;
    }

    /**
     * Sets the source path bits ({@code ibv_ah_attr.src_path_bits}).
     *
     * @param src_path_bits the value
     */
    public void setSrc_path_bits(byte src_path_bits) {
        this.src_path_bits = src_path_bits;
    }

    /**
     * Returns the static rate ({@code ibv_ah_attr.static_rate}).
     *
     * @return the value
     */
    public byte getStatic_rate() {
        return static_rate;
    }

    /**
     * Sets the static rate ({@code ibv_ah_attr.static_rate}).
     *
     * @param static_rate the value
     */
    public void setStatic_rate(byte static_rate) {
        this.static_rate = static_rate;
    }

    /**
     * Returns whether the GRH is used ({@code ibv_ah_attr.is_global}, 0 or 1).
     *
     * @return the value
     */
    public byte getIs_global() {
        return is_global;
    }

    /**
     * Sets whether the GRH is used ({@code ibv_ah_attr.is_global}, 0 or 1).
     *
     * @param is_global the value
     */
    public void setIs_global(byte is_global) {
        this.is_global = is_global;
    }

    /**
     * Returns the local port ({@code ibv_ah_attr.port_num}).
     *
     * @return the value
     */
    public byte getPort_num() {
        return port_num;
    }

    /**
     * Sets the local port ({@code ibv_ah_attr.port_num}).
     *
     * @param port_num the value
     */
    public void setPort_num(byte port_num) {
        this.port_num = port_num;
    }
}
