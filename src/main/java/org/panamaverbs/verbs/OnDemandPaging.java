package org.panamaverbs.verbs;

/**
 * What on-demand paging (ODP) a device offers: {@code struct ibv_odp_caps}, as {@code ibv_query_device_ex} reports it
 * ({@link Context#onDemandPaging()}). Memory registered with {@link Access#ON_DEMAND} is not pinned: the device faults
 * its pages in when it touches them, for the operations the transport's mask names. A device whose provider or
 * libibverbs has no {@code query_device_ex} reports none, as C's {@code ibv_query_device_ex} then does.
 *
 * @param generalCaps {@code general_caps}: {@link #SUPPORT} and {@link #SUPPORT_IMPLICIT}
 * @param rcCaps      {@code per_transport_caps.rc_odp_caps}: the operations ({@link #SEND}, {@link #RECV},
 *                    {@link #WRITE}, {@link #READ}, {@link #ATOMIC}, {@link #SRQ_RECV}) RC queue pairs may use on
 *                    ODP memory
 * @param ucCaps      {@code per_transport_caps.uc_odp_caps}, the same for UC
 * @param udCaps      {@code per_transport_caps.ud_odp_caps}, the same for UD
 */
public record OnDemandPaging(long generalCaps, int rcCaps, int ucCaps, int udCaps) {
    /** {@code IBV_ODP_SUPPORT}: the device supports on-demand paging. */
    public static final long SUPPORT = 1;
    /** {@code IBV_ODP_SUPPORT_IMPLICIT}: an implicit ODP region may cover the whole address space. */
    public static final long SUPPORT_IMPLICIT = 1 << 1;
    /** {@code IBV_ODP_SUPPORT_SEND}. */
    public static final int SEND = 1;
    /** {@code IBV_ODP_SUPPORT_RECV}. */
    public static final int RECV = 1 << 1;
    /** {@code IBV_ODP_SUPPORT_WRITE}. */
    public static final int WRITE = 1 << 2;
    /** {@code IBV_ODP_SUPPORT_READ}. */
    public static final int READ = 1 << 3;
    /** {@code IBV_ODP_SUPPORT_ATOMIC}. */
    public static final int ATOMIC = 1 << 4;
    /** {@code IBV_ODP_SUPPORT_SRQ_RECV}. */
    public static final int SRQ_RECV = 1 << 5;

    /** What a device without on-demand paging, or a query without {@code query_device_ex}, reports. */
    static final OnDemandPaging NONE = new OnDemandPaging(0, 0, 0, 0);

    /** {@return whether {@code general_caps} has {@link #SUPPORT}} */
    public boolean supported() {
        return (generalCaps & SUPPORT) != 0;
    }

    /** {@return whether {@code general_caps} has {@link #SUPPORT_IMPLICIT}} */
    public boolean implicitSupported() {
        return (generalCaps & SUPPORT_IMPLICIT) != 0;
    }

    /**
     * The operations a transport may use on ODP memory.
     *
     * @param type RC, UC or UD (the transports {@code struct ibv_odp_caps} has a mask for)
     * @return that transport's mask of {@link #SEND}, {@link #RECV}, {@link #WRITE}, {@link #READ}, {@link #ATOMIC}
     *         and {@link #SRQ_RECV}
     * @throws IllegalArgumentException for another queue pair type
     */
    public int operations(QpType type) {
        return switch (type) {
            case RC -> rcCaps;
            case UC -> ucCaps;
            case UD -> udCaps;
            default -> throw new IllegalArgumentException("ibv_odp_caps has no mask for " + type + "; ask for RC, UC or UD");
        };
    }
}
