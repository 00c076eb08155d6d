package org.panamaverbs.verbs;

/**
 * The former name of {@link QpConnectOptions}: how {@link QueuePair#connect(QpEndpoint, ConnectOptions)} moves a
 * queue pair through INIT, RTR and RTS ({@code ibv_modify_qp} attributes). Every value is held by, and means what
 * it means in, the {@link QpConnectOptions} that {@link #toQpConnectOptions()} returns.
 *
 * @deprecated use {@link QpConnectOptions}, which has the same builder and accessors; the name was too close to
 *             {@code org.panamaverbs.cm.ConnectionOptions}, which configures an rdma_cm connection
 */
@Deprecated(since = "0.2.0")
public final class ConnectOptions {
    private static final ConnectOptions DEFAULTS = new ConnectOptions(QpConnectOptions.defaults());

    private final QpConnectOptions options;

    private ConnectOptions(QpConnectOptions options) {
        this.options = options;
    }

    /** {@return the options {@code options} holds, or null for null (which the methods taking them reject)} */
    static QpConnectOptions unwrap(ConnectOptions options) {
        return options == null ? null : options.options;
    }

    /**
     * perftest's defaults, as {@link QpConnectOptions#defaults()}.
     *
     * @return the shared default options
     * @deprecated use {@link QpConnectOptions#defaults()}
     */
    @Deprecated(since = "0.2.0")
    public static ConnectOptions defaults() {
        return DEFAULTS;
    }

    /**
     * A builder starting from {@link #defaults()}.
     *
     * @return a new builder
     * @deprecated use {@link QpConnectOptions#builder()}
     */
    @Deprecated(since = "0.2.0")
    public static Builder builder() {
        return new Builder(QpConnectOptions.builder());
    }

    /**
     * A builder starting from these options.
     *
     * @return a new builder; building it does not change this object
     * @deprecated use {@link QpConnectOptions#toBuilder()}
     */
    @Deprecated(since = "0.2.0")
    public Builder toBuilder() {
        return new Builder(options.toBuilder());
    }

    /** {@return these options under their current name, for code moving to {@link QpConnectOptions}} */
    public QpConnectOptions toQpConnectOptions() {
        return options;
    }

    /**
     * {@return {@link QpConnectOptions#pathMtu()}}
     *
     * @deprecated use {@link QpConnectOptions#pathMtu()}
     */
    @Deprecated(since = "0.2.0")
    public Mtu pathMtu() {
        return options.pathMtu();
    }

    /**
     * {@return {@link QpConnectOptions#access()}}
     *
     * @deprecated use {@link QpConnectOptions#access()}
     */
    @Deprecated(since = "0.2.0")
    public Integer access() {
        return options.access();
    }

    /**
     * {@return {@link QpConnectOptions#minRnrTimer()}}
     *
     * @deprecated use {@link QpConnectOptions#minRnrTimer()}
     */
    @Deprecated(since = "0.2.0")
    public int minRnrTimer() {
        return options.minRnrTimer();
    }

    /**
     * {@return {@link QpConnectOptions#timeout()}}
     *
     * @deprecated use {@link QpConnectOptions#timeout()}
     */
    @Deprecated(since = "0.2.0")
    public int timeout() {
        return options.timeout();
    }

    /**
     * {@return {@link QpConnectOptions#retryCount()}}
     *
     * @deprecated use {@link QpConnectOptions#retryCount()}
     */
    @Deprecated(since = "0.2.0")
    public int retryCount() {
        return options.retryCount();
    }

    /**
     * {@return {@link QpConnectOptions#rnrRetry()}}
     *
     * @deprecated use {@link QpConnectOptions#rnrRetry()}
     */
    @Deprecated(since = "0.2.0")
    public int rnrRetry() {
        return options.rnrRetry();
    }

    /**
     * {@return {@link QpConnectOptions#maxReadAtomic()}}
     *
     * @deprecated use {@link QpConnectOptions#maxReadAtomic()}
     */
    @Deprecated(since = "0.2.0")
    public Integer maxReadAtomic() {
        return options.maxReadAtomic();
    }

    /**
     * {@return {@link QpConnectOptions#maxDestReadAtomic()}}
     *
     * @deprecated use {@link QpConnectOptions#maxDestReadAtomic()}
     */
    @Deprecated(since = "0.2.0")
    public Integer maxDestReadAtomic() {
        return options.maxDestReadAtomic();
    }

    /**
     * {@return {@link QpConnectOptions#hopLimit()}}
     *
     * @deprecated use {@link QpConnectOptions#hopLimit()}
     */
    @Deprecated(since = "0.2.0")
    public int hopLimit() {
        return options.hopLimit();
    }

    /**
     * {@return {@link QpConnectOptions#trafficClass()}}
     *
     * @deprecated use {@link QpConnectOptions#trafficClass()}
     */
    @Deprecated(since = "0.2.0")
    public int trafficClass() {
        return options.trafficClass();
    }

    /**
     * {@return {@link QpConnectOptions#serviceLevel()}}
     *
     * @deprecated use {@link QpConnectOptions#serviceLevel()}
     */
    @Deprecated(since = "0.2.0")
    public int serviceLevel() {
        return options.serviceLevel();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnectOptions c && options.equals(c.options);
    }

    @Override
    public int hashCode() {
        return options.hashCode();
    }

    @Override
    public String toString() {
        return options.toString();
    }

    /**
     * Builds {@link ConnectOptions}: {@link QpConnectOptions.Builder} under the former name; each value is
     * range-checked when set, as there.
     *
     * @deprecated use {@link QpConnectOptions.Builder}
     */
    @Deprecated(since = "0.2.0")
    public static final class Builder {
        private final QpConnectOptions.Builder builder;

        private Builder(QpConnectOptions.Builder builder) {
            this.builder = builder;
        }

        /**
         * As {@link QpConnectOptions.Builder#pathMtu(Mtu)}.
         *
         * @param value {@link Mtu#MTU_256} to {@link Mtu#MTU_4096}, or null for the port's active MTU
         * @return this builder
         * @throws IllegalArgumentException for {@link Mtu#UNKNOWN}
         */
        public Builder pathMtu(Mtu value) {
            builder.pathMtu(value);
            return this;
        }

        /**
         * As {@link QpConnectOptions.Builder#access(int)}.
         *
         * @param accessBits the {@code IBV_ACCESS_*} bits the queue pair grants remote requests
         * @return this builder
         */
        public Builder access(int accessBits) {
            builder.access(accessBits);
            return this;
        }

        /**
         * As {@link QpConnectOptions.Builder#access(Access...)}.
         *
         * @param flags what the queue pair grants remote requests; none grants nothing
         * @return this builder
         */
        public Builder access(Access... flags) {
            builder.access(flags);
            return this;
        }

        /**
         * As {@link QpConnectOptions.Builder#minRnrTimer(int)}.
         *
         * @param value the encoded delay, 0..31
         * @return this builder
         * @throws IllegalArgumentException outside 0..31
         */
        public Builder minRnrTimer(int value) {
            builder.minRnrTimer(value);
            return this;
        }

        /**
         * As {@link QpConnectOptions.Builder#timeout(int)}.
         *
         * @param value the exponent of the local ACK timeout, 0..31
         * @return this builder
         * @throws IllegalArgumentException outside 0..31
         */
        public Builder timeout(int value) {
            builder.timeout(value);
            return this;
        }

        /**
         * As {@link QpConnectOptions.Builder#retryCount(int)}.
         *
         * @param value resends after an ACK timeout, 0..7
         * @return this builder
         * @throws IllegalArgumentException outside 0..7
         */
        public Builder retryCount(int value) {
            builder.retryCount(value);
            return this;
        }

        /**
         * As {@link QpConnectOptions.Builder#rnrRetry(int)}.
         *
         * @param value resends after an RNR NAK, 0..6, or 7 for no limit
         * @return this builder
         * @throws IllegalArgumentException outside 0..7
         */
        public Builder rnrRetry(int value) {
            builder.rnrRetry(value);
            return this;
        }

        /**
         * As {@link QpConnectOptions.Builder#maxReadAtomic(int)}.
         *
         * @param value outstanding RDMA READ and atomic requests as initiator, 0..255
         * @return this builder
         * @throws IllegalArgumentException outside 0..255
         */
        public Builder maxReadAtomic(int value) {
            builder.maxReadAtomic(value);
            return this;
        }

        /**
         * As {@link QpConnectOptions.Builder#maxDestReadAtomic(int)}.
         *
         * @param value incoming RDMA READ and atomic requests handled at once as responder, 0..255
         * @return this builder
         * @throws IllegalArgumentException outside 0..255
         */
        public Builder maxDestReadAtomic(int value) {
            builder.maxDestReadAtomic(value);
            return this;
        }

        /**
         * As {@link QpConnectOptions.Builder#hopLimit(int)}.
         *
         * @param value the hop limit, 0..255
         * @return this builder
         * @throws IllegalArgumentException outside 0..255
         */
        public Builder hopLimit(int value) {
            builder.hopLimit(value);
            return this;
        }

        /**
         * As {@link QpConnectOptions.Builder#trafficClass(int)}.
         *
         * @param value the traffic class, 0..255
         * @return this builder
         * @throws IllegalArgumentException outside 0..255
         */
        public Builder trafficClass(int value) {
            builder.trafficClass(value);
            return this;
        }

        /**
         * As {@link QpConnectOptions.Builder#serviceLevel(int)}.
         *
         * @param value the service level, 0..15
         * @return this builder
         * @throws IllegalArgumentException outside 0..15
         */
        public Builder serviceLevel(int value) {
            builder.serviceLevel(value);
            return this;
        }

        /** {@return immutable options with the values set so far; the builder may go on being used} */
        public ConnectOptions build() {
            return new ConnectOptions(builder.build());
        }
    }
}
