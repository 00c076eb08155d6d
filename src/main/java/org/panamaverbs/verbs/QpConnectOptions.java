package org.panamaverbs.verbs;

import java.util.Objects;

/**
 * How {@link QueuePair#connect(QpEndpoint, QpConnectOptions)} moves a queue pair through INIT, RTR and RTS
 * ({@code ibv_modify_qp} attributes). Immutable; {@link #defaults()} are perftest's, and
 * {@link #builder()} / {@link #toBuilder()} change single attributes. What is not set explicitly is
 * derived from the port and device when connecting (path MTU, access flags, read/atomic depths).
 * Named after the queue pair it connects, apart from {@code org.panamaverbs.cm.ConnectionOptions} (what an
 * rdma_cm connection sets up).
 */
public final class QpConnectOptions {
    private static final QpConnectOptions DEFAULTS = new Builder().build();

    private final Mtu pathMtu;
    private final Integer access;
    private final int minRnrTimer;
    private final int timeout;
    private final int retryCount;
    private final int rnrRetry;
    private final Integer maxReadAtomic;
    private final Integer maxDestReadAtomic;
    private final int hopLimit;
    private final int trafficClass;
    private final int serviceLevel;
    private final int flowLabel;

    private QpConnectOptions(Builder b) {
        pathMtu = b.pathMtu;
        access = b.access;
        minRnrTimer = b.minRnrTimer;
        timeout = b.timeout;
        retryCount = b.retryCount;
        rnrRetry = b.rnrRetry;
        maxReadAtomic = b.maxReadAtomic;
        maxDestReadAtomic = b.maxDestReadAtomic;
        hopLimit = b.hopLimit;
        trafficClass = b.trafficClass;
        serviceLevel = b.serviceLevel;
        flowLabel = b.flowLabel;
    }

    /**
     * perftest's defaults: the port's active MTU; local write, remote write and read access (plus remote
     * atomic where the device has atomics); min RNR timer 12; timeout 14 (4.096 µs × 2^14 ≈ 67 ms);
     * retry 7; RNR retry 7 (forever); read/atomic depths from the device, capped at 16; hop limit 255.
     *
     * @return the shared default options (traffic class, service level and flow label 0)
     */
    public static QpConnectOptions defaults() {
        return DEFAULTS;
    }

    /** {@return a new builder starting from {@link #defaults()}} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return a new builder starting from these options; building it does not change this object} */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /**
     * The requested path MTU, or null for the port's active MTU.
     *
     * @return the MTU asked for RTR's {@code path_mtu}, which the port's active MTU caps when connecting;
     *         null for the active MTU itself
     */
    public Mtu pathMtu() {
        return pathMtu;
    }

    /**
     * INIT {@code qp_access_flags} (C bits), or null for the default described at {@link #defaults()}.
     *
     * @return the {@code IBV_ACCESS_*} bits ({@link Access#bits}) the queue pair grants remote requests, or null
     */
    public Integer access() {
        return access;
    }

    /**
     * RTR {@code min_rnr_timer}.
     *
     * @return the encoded delay, 0..31, this side asks a sender to wait after an RNR NAK (it has no receive
     *         posted): 12 is 0.64 ms, 31 is 491.52 ms, 0 is the longest, 655.36 ms
     */
    public int minRnrTimer() {
        return minRnrTimer;
    }

    /**
     * RTS {@code timeout} (4.096 µs × 2^timeout per attempt; 0 waits forever).
     *
     * @return the exponent, 0..31, of the local ACK timeout
     */
    public int timeout() {
        return timeout;
    }

    /**
     * RTS {@code retry_cnt}.
     *
     * @return how many times, 0..7, a request is resent after an ACK timeout before it completes with
     *         {@link WcStatus#RETRY_EXC_ERR}
     */
    public int retryCount() {
        return retryCount;
    }

    /**
     * RTS {@code rnr_retry} (7 = retry forever).
     *
     * @return how many times, 0..7, a request is resent after an RNR NAK before it completes with
     *         {@link WcStatus#RNR_RETRY_EXC_ERR}
     */
    public int rnrRetry() {
        return rnrRetry;
    }

    /**
     * RTS {@code max_rd_atomic}, or null for the device's {@code max_qp_init_rd_atom} capped at 16.
     *
     * @return how many RDMA READ and atomic requests this side may have outstanding as initiator, or null
     */
    public Integer maxReadAtomic() {
        return maxReadAtomic;
    }

    /**
     * RTR {@code max_dest_rd_atomic}, or null for the device's {@code max_qp_rd_atom} capped at 16.
     *
     * @return how many incoming RDMA READ and atomic requests this side handles at once as responder, or null
     */
    public Integer maxDestReadAtomic() {
        return maxDestReadAtomic;
    }

    /** {@return the GRH hop limit, 0..255 (on RoCE v2 the IP TTL or hop limit)} */
    public int hopLimit() {
        return hopLimit;
    }

    /** {@return the GRH traffic class, 0..255 (on RoCE v2 the IP DSCP and ECN bits)} */
    public int trafficClass() {
        return trafficClass;
    }

    /** {@return the service level of the address vector, 0..15} */
    public int serviceLevel() {
        return serviceLevel;
    }

    /**
     * {@return the GRH flow label, 0..0xFFFFF (0: none; on RoCE v2 the kernel derives the UDP source port from a
     * non-zero label, so flows with different labels may take different paths)}
     */
    public int flowLabel() {
        return flowLabel;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof QpConnectOptions c && Objects.equals(pathMtu, c.pathMtu) && Objects.equals(access, c.access)
                && minRnrTimer == c.minRnrTimer && timeout == c.timeout && retryCount == c.retryCount
                && rnrRetry == c.rnrRetry && Objects.equals(maxReadAtomic, c.maxReadAtomic)
                && Objects.equals(maxDestReadAtomic, c.maxDestReadAtomic) && hopLimit == c.hopLimit
                && trafficClass == c.trafficClass && serviceLevel == c.serviceLevel && flowLabel == c.flowLabel;
    }

    @Override
    public int hashCode() {
        return Objects.hash(pathMtu, access, minRnrTimer, timeout, retryCount, rnrRetry, maxReadAtomic,
                maxDestReadAtomic, hopLimit, trafficClass, serviceLevel, flowLabel);
    }

    @Override
    public String toString() {
        return "QpConnectOptions[pathMtu=" + (pathMtu == null ? "port" : pathMtu.bytes()) + ", access="
                + (access == null ? "default" : "0x" + Integer.toHexString(access)) + ", minRnrTimer=" + minRnrTimer
                + ", timeout=" + timeout + ", retryCount=" + retryCount + ", rnrRetry=" + rnrRetry
                + ", maxReadAtomic=" + (maxReadAtomic == null ? "device" : maxReadAtomic) + ", maxDestReadAtomic="
                + (maxDestReadAtomic == null ? "device" : maxDestReadAtomic) + ", hopLimit=" + hopLimit
                + ", trafficClass=" + trafficClass + ", serviceLevel=" + serviceLevel + ", flowLabel=" + flowLabel + "]";
    }

    /** Builds {@link QpConnectOptions}; each value is range-checked when set. */
    public static final class Builder {
        private Mtu pathMtu;
        private Integer access;
        private int minRnrTimer = 12;
        private int timeout = 14;
        private int retryCount = 7;
        private int rnrRetry = 7;
        private Integer maxReadAtomic;
        private Integer maxDestReadAtomic;
        private int hopLimit = 255;
        private int trafficClass;
        private int serviceLevel;
        private int flowLabel;

        private Builder() {
        }

        private Builder(QpConnectOptions o) {
            pathMtu = o.pathMtu;
            access = o.access;
            minRnrTimer = o.minRnrTimer;
            timeout = o.timeout;
            retryCount = o.retryCount;
            rnrRetry = o.rnrRetry;
            maxReadAtomic = o.maxReadAtomic;
            maxDestReadAtomic = o.maxDestReadAtomic;
            hopLimit = o.hopLimit;
            trafficClass = o.trafficClass;
            serviceLevel = o.serviceLevel;
            flowLabel = o.flowLabel;
        }

        /**
         * The path MTU; the port's active MTU caps it. Null: the port's active MTU.
         *
         * @param value {@link Mtu#MTU_256} to {@link Mtu#MTU_4096}, or null
         * @return this builder
         * @throws IllegalArgumentException for {@link Mtu#UNKNOWN}, which has no C value to send
         */
        public Builder pathMtu(Mtu value) {
            if (value == Mtu.UNKNOWN) {
                throw new IllegalArgumentException("Mtu.UNKNOWN is not a path MTU: pass MTU_256 to MTU_4096,"
                        + " or null for the port's active MTU");
            }
            pathMtu = value;
            return this;
        }

        /**
         * INIT access flags as C bits ({@link Access#bits}).
         *
         * @param accessBits the {@code IBV_ACCESS_*} bits the queue pair grants remote requests; not checked
         *                   here, passed to {@code ibv_modify_qp} as they are
         * @return this builder
         */
        public Builder access(int accessBits) {
            access = accessBits;
            return this;
        }

        /**
         * INIT access flags.
         *
         * @param flags what the queue pair grants remote requests, for example {@link Access#REMOTE_WRITE} and
         *              {@link Access#REMOTE_READ}; none grants nothing
         * @return this builder
         */
        public Builder access(Access... flags) {
            access = Access.bits(flags);
            return this;
        }

        /**
         * RTR {@code min_rnr_timer}, 0..31.
         *
         * @param value the encoded delay, 0..31 (see {@link QpConnectOptions#minRnrTimer()})
         * @return this builder
         * @throws IllegalArgumentException outside 0..31
         */
        public Builder minRnrTimer(int value) {
            minRnrTimer = range("minRnrTimer", value, 31);
            return this;
        }

        /**
         * RTS {@code timeout}, 0..31.
         *
         * @param value the exponent: each attempt waits 4.096 µs × 2^value; 0 waits forever
         * @return this builder
         * @throws IllegalArgumentException outside 0..31
         */
        public Builder timeout(int value) {
            timeout = range("timeout", value, 31);
            return this;
        }

        /**
         * RTS {@code retry_cnt}, 0..7.
         *
         * @param value resends after an ACK timeout, 0..7
         * @return this builder
         * @throws IllegalArgumentException outside 0..7
         */
        public Builder retryCount(int value) {
            retryCount = range("retryCount", value, 7);
            return this;
        }

        /**
         * RTS {@code rnr_retry}, 0..7 (7 = forever).
         *
         * @param value resends after an RNR NAK, 0..6, or 7 for no limit
         * @return this builder
         * @throws IllegalArgumentException outside 0..7
         */
        public Builder rnrRetry(int value) {
            rnrRetry = range("rnrRetry", value, 7);
            return this;
        }

        /**
         * RTS {@code max_rd_atomic}, 0..255.
         *
         * @param value outstanding RDMA READ and atomic requests as initiator; the device may refuse more
         *              than its {@code max_qp_init_rd_atom}
         * @return this builder
         * @throws IllegalArgumentException outside 0..255
         */
        public Builder maxReadAtomic(int value) {
            maxReadAtomic = range("maxReadAtomic", value, 255);
            return this;
        }

        /**
         * RTR {@code max_dest_rd_atomic}, 0..255.
         *
         * @param value incoming RDMA READ and atomic requests handled at once as responder; the device may
         *              refuse more than its {@code max_qp_rd_atom}
         * @return this builder
         * @throws IllegalArgumentException outside 0..255
         */
        public Builder maxDestReadAtomic(int value) {
            maxDestReadAtomic = range("maxDestReadAtomic", value, 255);
            return this;
        }

        /**
         * GRH hop limit, 0..255.
         *
         * @param value the hop limit (IP TTL on RoCE v2), 0..255
         * @return this builder
         * @throws IllegalArgumentException outside 0..255
         */
        public Builder hopLimit(int value) {
            hopLimit = range("hopLimit", value, 255);
            return this;
        }

        /**
         * GRH traffic class, 0..255.
         *
         * @param value the traffic class (IP DSCP and ECN bits on RoCE v2), 0..255
         * @return this builder
         * @throws IllegalArgumentException outside 0..255
         */
        public Builder trafficClass(int value) {
            trafficClass = range("trafficClass", value, 255);
            return this;
        }

        /**
         * Service level, 0..15.
         *
         * @param value the service level, 0..15
         * @return this builder
         * @throws IllegalArgumentException outside 0..15
         */
        public Builder serviceLevel(int value) {
            serviceLevel = range("serviceLevel", value, 15);
            return this;
        }

        /**
         * GRH flow label, 0..0xFFFFF (20 bits); used where the queue pair sends a GRH (always on RoCE).
         *
         * @param value the flow label, 0 (the default: none) to 0xFFFFF
         * @return this builder
         * @throws IllegalArgumentException outside 0..0xFFFFF
         */
        public Builder flowLabel(int value) {
            flowLabel = range("flowLabel", value, 0xFFFFF);
            return this;
        }

        /** {@return immutable options with the values set so far; the builder may go on being used} */
        public QpConnectOptions build() {
            return new QpConnectOptions(this);
        }

        private static int range(String name, int value, int max) {
            if (value < 0 || value > max) {
                throw new IllegalArgumentException(name + " must be in 0.." + max + ", not " + value);
            }
            return value;
        }
    }
}
