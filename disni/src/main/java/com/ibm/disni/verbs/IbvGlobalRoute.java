package com.ibm.disni.verbs;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.IbvGlobalRoute}: the global routing header fields of
 * an address vector, mirroring C's {@code struct ibv_global_route}. Its constructor is protected, as in
 * DiSNI 2.1 (where no public API made one); a plain value holder that wraps no C call.
 */
public class IbvGlobalRoute {

    /**
     * Destination GID ({@code ibv_global_route.dgid}): 16 bytes in network order, kept by reference; all zero after
     * construction.
     */
    protected byte[] dgid;
    /** Flow label ({@code ibv_global_route.flow_label}), 20 bits; 0 when flows are not told apart. */
    protected int flow_label;
    /**
     * Index of the source GID in the local port's GID table ({@code ibv_global_route.sgid_index}); on RoCE it also
     * picks the RoCE version and IP address.
     */
    protected byte sgid_index;
    /** Hop limit ({@code ibv_global_route.hop_limit}): how many routers a packet may cross, as IPv6's hop limit. */
    protected byte hop_limit;
    /** Traffic class ({@code ibv_global_route.traffic_class}), as IPv6's: on RoCE v2 it carries DSCP and ECN. */
    protected byte traffic_class;

    /** A route with a zero 16-byte destination GID and all other fields 0. */
    protected IbvGlobalRoute() {
        this.dgid = new byte[16];
    }

    /**
     * Returns the flow label ({@code ibv_global_route.flow_label}).
     *
     * @return the value
     */
    public int getFlow_label() {
        return flow_label;
    }

    /**
     * Sets the flow label ({@code ibv_global_route.flow_label}).
     *
     * @param flow_label the value
     */
    public void setFlow_label(int flow_label) {
        this.flow_label = flow_label;
    }

    /**
     * Returns the source GID index ({@code ibv_global_route.sgid_index}).
     *
     * @return the value
     */
    public byte getSgid_index() {
        return sgid_index;
    }

    /**
     * Sets the source GID index ({@code ibv_global_route.sgid_index}).
     *
     * @param sgid_index the value
     */
    public void setSgid_index(byte sgid_index) {
        this.sgid_index = sgid_index;
    }

    /**
     * Returns the hop limit ({@code ibv_global_route.hop_limit}).
     *
     * @return the value
     */
    public byte getHop_limit() {
        return hop_limit;
    }

    /**
     * Sets the hop limit ({@code ibv_global_route.hop_limit}).
     *
     * @param hop_limit the value
     */
    public void setHop_limit(byte hop_limit) {
        this.hop_limit = hop_limit;
    }

    /**
     * Returns the traffic class ({@code ibv_global_route.traffic_class}).
     *
     * @return the value
     */
    public byte getTraffic_class() {
        return traffic_class;
    }

    /**
     * Sets the traffic class ({@code ibv_global_route.traffic_class}).
     *
     * @param traffic_class the value
     */
    public void setTraffic_class(byte traffic_class) {
        this.traffic_class = traffic_class;
    }

    /**
     * Returns the 16-byte destination GID ({@code ibv_global_route.dgid}), kept by reference.
     *
     * @return the value
     */
    public byte[] getDgid() {
        return dgid;
    }

    /**
     * Sets the 16-byte destination GID ({@code ibv_global_route.dgid}), kept by reference.
     *
     * @param dgid the value
     */
    public void setDgid(byte[] dgid) {
        this.dgid = dgid;
    }
}
