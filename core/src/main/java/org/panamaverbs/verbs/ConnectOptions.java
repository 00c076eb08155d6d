package org.panamaverbs.verbs;

import java.util.Objects;

/**
 * How {@link QueuePair#connect(QpEndpoint, ConnectOptions)} moves a queue pair through INIT, RTR and RTS
 * ({@code ibv_modify_qp} attributes). Immutable; {@link #defaults()} are perftest's, and
 * {@link #builder()} / {@link #toBuilder()} change single attributes. What is not set explicitly is
 * derived from the port and device when connecting (path MTU, access flags, read/atomic depths).
 */
public final class ConnectOptions {
    private static final ConnectOptions DEFAULTS = new Builder().build();

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

    private ConnectOptions(Builder b) {
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
    }

    /**
     * perftest's defaults: the port's active MTU; local write, remote write and read access (plus remote
     * atomic where the device has atomics); min RNR timer 12; timeout 14 (4.096 µs × 2^14 ≈ 67 ms);
     * retry 7; RNR retry 7 (forever); read/atomic depths from the device, capped at 16; hop limit 255.
     */
    public static ConnectOptions defaults() {
        return DEFAULTS;
    }

    /** A builder starting from {@link #defaults()}. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these options. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** The requested path MTU, or null for the port's active MTU. */
    public Mtu pathMtu() {
        return pathMtu;
    }

    /** INIT {@code qp_access_flags} (C bits), or null for the default described at {@link #defaults()}. */
    public Integer access() {
        return access;
    }

    /** RTR {@code min_rnr_timer}. */
    public int minRnrTimer() {
        return minRnrTimer;
    }

    /** RTS {@code timeout} (4.096 µs × 2^timeout per attempt; 0 waits forever). */
    public int timeout() {
        return timeout;
    }

    /** RTS {@code retry_cnt}. */
    public int retryCount() {
        return retryCount;
    }

    /** RTS {@code rnr_retry} (7 = retry forever). */
    public int rnrRetry() {
        return rnrRetry;
    }

    /** RTS {@code max_rd_atomic}, or null for the device's {@code max_qp_init_rd_atom} capped at 16. */
    public Integer maxReadAtomic() {
        return maxReadAtomic;
    }

    /** RTR {@code max_dest_rd_atomic}, or null for the device's {@code max_qp_rd_atom} capped at 16. */
    public Integer maxDestReadAtomic() {
        return maxDestReadAtomic;
    }

    /** GRH hop limit. */
    public int hopLimit() {
        return hopLimit;
    }

    /** GRH traffic class. */
    public int trafficClass() {
        return trafficClass;
    }

    /** Service level. */
    public int serviceLevel() {
        return serviceLevel;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnectOptions c && Objects.equals(pathMtu, c.pathMtu) && Objects.equals(access, c.access)
                && minRnrTimer == c.minRnrTimer && timeout == c.timeout && retryCount == c.retryCount
                && rnrRetry == c.rnrRetry && Objects.equals(maxReadAtomic, c.maxReadAtomic)
                && Objects.equals(maxDestReadAtomic, c.maxDestReadAtomic) && hopLimit == c.hopLimit
                && trafficClass == c.trafficClass && serviceLevel == c.serviceLevel;
    }

    @Override
    public int hashCode() {
        return Objects.hash(pathMtu, access, minRnrTimer, timeout, retryCount, rnrRetry, maxReadAtomic,
                maxDestReadAtomic, hopLimit, trafficClass, serviceLevel);
    }

    @Override
    public String toString() {
        return "ConnectOptions[pathMtu=" + (pathMtu == null ? "port" : pathMtu.bytes()) + ", access="
                + (access == null ? "default" : "0x" + Integer.toHexString(access)) + ", minRnrTimer=" + minRnrTimer
                + ", timeout=" + timeout + ", retryCount=" + retryCount + ", rnrRetry=" + rnrRetry
                + ", maxReadAtomic=" + (maxReadAtomic == null ? "device" : maxReadAtomic) + ", maxDestReadAtomic="
                + (maxDestReadAtomic == null ? "device" : maxDestReadAtomic) + ", hopLimit=" + hopLimit
                + ", trafficClass=" + trafficClass + ", serviceLevel=" + serviceLevel + "]";
    }

    /** Builds {@link ConnectOptions}; each value is range-checked when set. */
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

        private Builder() {
        }

        private Builder(ConnectOptions o) {
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
        }

        /**
         * The path MTU; the port's active MTU caps it. Null: the port's active MTU.
         *
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

        /** INIT access flags as C bits ({@link Access#bits}). */
        public Builder access(int accessBits) {
            access = accessBits;
            return this;
        }

        /** INIT access flags. */
        public Builder access(Access... flags) {
            access = Access.bits(flags);
            return this;
        }

        /** RTR {@code min_rnr_timer}, 0..31. */
        public Builder minRnrTimer(int value) {
            minRnrTimer = range("minRnrTimer", value, 31);
            return this;
        }

        /** RTS {@code timeout}, 0..31. */
        public Builder timeout(int value) {
            timeout = range("timeout", value, 31);
            return this;
        }

        /** RTS {@code retry_cnt}, 0..7. */
        public Builder retryCount(int value) {
            retryCount = range("retryCount", value, 7);
            return this;
        }

        /** RTS {@code rnr_retry}, 0..7 (7 = forever). */
        public Builder rnrRetry(int value) {
            rnrRetry = range("rnrRetry", value, 7);
            return this;
        }

        /** RTS {@code max_rd_atomic}, 0..255. */
        public Builder maxReadAtomic(int value) {
            maxReadAtomic = range("maxReadAtomic", value, 255);
            return this;
        }

        /** RTR {@code max_dest_rd_atomic}, 0..255. */
        public Builder maxDestReadAtomic(int value) {
            maxDestReadAtomic = range("maxDestReadAtomic", value, 255);
            return this;
        }

        /** GRH hop limit, 0..255. */
        public Builder hopLimit(int value) {
            hopLimit = range("hopLimit", value, 255);
            return this;
        }

        /** GRH traffic class, 0..255. */
        public Builder trafficClass(int value) {
            trafficClass = range("trafficClass", value, 255);
            return this;
        }

        /** Service level, 0..15. */
        public Builder serviceLevel(int value) {
            serviceLevel = range("serviceLevel", value, 15);
            return this;
        }

        public ConnectOptions build() {
            return new ConnectOptions(this);
        }

        private static int range(String name, int value, int max) {
            if (value < 0 || value > max) {
                throw new IllegalArgumentException(name + " must be in 0.." + max + ", not " + value);
            }
            return value;
        }
    }
}
