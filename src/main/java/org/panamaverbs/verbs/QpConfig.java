package org.panamaverbs.verbs;

import java.util.Objects;

/**
 * What to create a queue pair with ({@code struct ibv_qp_init_attr}): type, completion queues and
 * capacities, for {@link ProtectionDomain#createQueuePair(QpConfig)} ({@code ibv_create_qp}) and for
 * rdma_cm's {@code rdma_create_qp}. Build with {@link #builder}; the defaults are perftest's.
 *
 * @param type          {@link QpType#RC} (the default) or {@link QpType#UD}
 * @param sendCq        completion queue for send-side completions
 * @param recvCq        completion queue for receive completions (may be the same)
 * @param capabilities  the queue's depths, entries per request and inline size (default
 *                      {@link QpCapabilities#defaults()}: perftest's 128 sends and 512 receives)
 * @param signalAll     {@code sq_sig_all}: every send request completes with a completion
 * @param port          the port (default 1; a queue pair made by rdma_cm uses its id's port)
 * @param gidIndex      the source GID index, or -1 for {@link Context#defaultGidIndex(int)}
 * @param srq           the shared receive queue to draw receives from, or null for the queue pair's own
 * @param pkeyIndex     the entry of the port's P_Key table the queue pair's packets carry (INIT's {@code pkey_index},
 *                      default 0); rdma_cm takes it from the address it resolved, so there it must stay 0
 */
public record QpConfig(QpType type, CompletionQueue sendCq, CompletionQueue recvCq, QpCapabilities capabilities,
        boolean signalAll, int port, int gidIndex, SharedReceiveQueue srq, int pkeyIndex) {
    /**
     * Checks only that {@code type}, {@code sendCq}, {@code recvCq} and {@code capabilities} are given; the
     * capacities, port and GID index are checked against the device when the queue pair is created.
     *
     * @throws NullPointerException if {@code type}, {@code sendCq}, {@code recvCq} or {@code capabilities} is null
     */
    public QpConfig {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(sendCq, "sendCq");
        Objects.requireNonNull(recvCq, "recvCq");
        Objects.requireNonNull(capabilities, "capabilities");
    }

    /**
     * A builder with perftest's defaults, for a queue pair using {@code cq} for both directions.
     *
     * @param cq the completion queue for send and receive completions; not null
     * @return a new builder
     */
    public static Builder builder(CompletionQueue cq) {
        return new Builder(cq, cq);
    }

    /**
     * A builder with perftest's defaults and separate completion queues.
     *
     * @param sendCq the completion queue for send-side completions; not null
     * @param recvCq the completion queue for receive completions; not null, may be {@code sendCq}
     * @return a new builder
     */
    public static Builder builder(CompletionQueue sendCq, CompletionQueue recvCq) {
        return new Builder(sendCq, recvCq);
    }

    /**
     * Checks the P_Key index against the port's table, which the kernel would refuse with a bare EINVAL at INIT.
     *
     * @throws IllegalArgumentException if the index is outside the table
     */
    void checkPkeyIndex(Context context) {
        if (pkeyIndex == 0) {
            return; // every port has a P_Key 0; no query needed
        }
        int length = context.queryPort(port).pkeyTableLength();
        if (pkeyIndex < 0 || pkeyIndex >= length) {
            throw new IllegalArgumentException("P_Key index " + pkeyIndex + " is outside port " + port + "'s table of "
                    + context.name() + " (0.." + (length - 1) + ", pkey_tbl_len " + length + ")");
        }
    }

    /** This configuration on another port (rdma_cm decides the port from the address it resolved). */
    QpConfig onPort(int newPort) {
        return new QpConfig(type, sendCq, recvCq, capabilities, signalAll, newPort, gidIndex, srq, pkeyIndex);
    }

    /**
     * Checks the capacities against the device's limits before the provider sees them.
     *
     * @throws IllegalArgumentException naming every capacity outside what {@code context} allows
     */
    void checkCapacities(Context context) {
        DeviceAttributes device = context.attributes();
        QpCapabilities cap = capabilities;
        StringBuilder problems = new StringBuilder();
        limit(problems, "maxSendWr", cap.maxSendWr(), 1, device.maxQpWr(), "max_qp_wr");
        if (srq == null) {
            limit(problems, "maxRecvWr", cap.maxRecvWr(), 1, device.maxQpWr(), "max_qp_wr");
        }
        limit(problems, "maxSendSge", cap.maxSendSge(), 0, device.maxSge(), "max_sge");
        limit(problems, "maxRecvSge", cap.maxRecvSge(), 0, device.maxSge(), "max_sge");
        if (cap.maxInlineData() < 0) {
            problems.append("; maxInlineData ").append(cap.maxInlineData()).append(" is negative");
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("queue pair capacities exceed what " + context.name() + " allows: "
                    + problems.substring(2));
        }
    }

    private static void limit(StringBuilder problems, String name, int value, int min, int max, String deviceName) {
        if (value < min || value > max) {
            problems.append("; ").append(name).append(' ').append(value).append(" is outside ").append(min)
                    .append("..").append(max).append(" (").append(deviceName).append(')');
        }
    }

    /** The request in words, for the error of a refused {@code ibv_create_qp}. */
    String describe(Context context) {
        DeviceAttributes d = context.attributes();
        QpCapabilities cap = capabilities;
        return type + " queue pair with max_send_wr " + cap.maxSendWr() + ", max_recv_wr " + cap.maxRecvWr()
                + ", max_send_sge " + cap.maxSendSge() + ", max_recv_sge " + cap.maxRecvSge() + ", max_inline_data "
                + cap.maxInlineData() + " on "
                + context.name() + " (device max_qp " + d.maxQp() + ", max_qp_wr " + d.maxQpWr() + ", max_sge "
                + d.maxSge() + ")";
    }

    /** Builds a {@link QpConfig}; every setter has the default named on {@link QpConfig}. */
    public static final class Builder {
        private QpType type = QpType.RC;
        private final CompletionQueue sendCq;
        private final CompletionQueue recvCq;
        private QpCapabilities capabilities = QpCapabilities.defaults();
        private boolean signalAll;
        private int port = 1;
        private int gidIndex = -1;
        private SharedReceiveQueue srq;
        private int pkeyIndex;

        private Builder(CompletionQueue sendCq, CompletionQueue recvCq) {
            this.sendCq = sendCq;
            this.recvCq = recvCq;
        }

        /**
         * Sets the transport service.
         *
         * @param value {@link QpType#RC} (the default) or {@link QpType#UD}; the other types are refused when
         *              the queue pair is created
         * @return this builder
         */
        public Builder type(QpType value) {
            type = value;
            return this;
        }

        /**
         * Sets the capacities ({@code cap}): send and receive depths, entries per request, inline size.
         *
         * @param value the capacities, not null; default {@link QpCapabilities#defaults()}. The receive values are
         *              ignored with a shared receive queue; the device may grant more than asked
         *              ({@link QueuePair#capabilities()}) or refuse a value when the queue pair is created
         * @return this builder
         */
        public Builder capabilities(QpCapabilities value) {
            capabilities = Objects.requireNonNull(value, "capabilities");
            return this;
        }

        /**
         * Sets {@code sq_sig_all}.
         *
         * @param value true to have every send request complete with a completion, false (the default) to
         *              have only those with {@link SendFlags#SIGNALED} (and failed ones) complete
         * @return this builder
         */
        public Builder signalAll(boolean value) {
            signalAll = value;
            return this;
        }

        /**
         * Sets the port the queue pair uses.
         *
         * @param value the port number, 1-based, up to the device's port count; default 1
         * @return this builder
         */
        public Builder port(int value) {
            port = value;
            return this;
        }

        /**
         * Sets the source GID index, the entry of the port's GID table the queue pair sends from.
         *
         * @param value an index of a populated GID entry, or -1 (the default) for
         *              {@link Context#defaultGidIndex(int)} (on RoCE, preferably a RoCE v2 entry with an
         *              IPv4-mapped address; on InfiniBand, 0)
         * @return this builder
         */
        public Builder gidIndex(int value) {
            gidIndex = value;
            return this;
        }

        /**
         * Receives come from {@code value}, shared with other queue pairs; {@link QueuePair#postRecv} is refused.
         *
         * @param value the shared receive queue, of the same device context; null (the default) for the queue
         *              pair's own receive queue
         * @return this builder
         */
        public Builder srq(SharedReceiveQueue value) {
            srq = value;
            return this;
        }

        /**
         * Sets the P_Key index: which partition key of the port's table the queue pair's packets carry.
         *
         * @param value 0 (the default, the port's first P_Key) up to the port's
         *              {@link PortAttributes#pkeyTableLength()} - 1, checked when the queue pair is created
         * @return this builder
         */
        public Builder pkeyIndex(int value) {
            pkeyIndex = value;
            return this;
        }

        /**
         * Makes the configuration; nothing is checked against the device yet.
         *
         * @return the configuration, with the default for every value not set
         */
        public QpConfig build() {
            return new QpConfig(type, sendCq, recvCq, capabilities, signalAll, port, gidIndex, srq, pkeyIndex);
        }
    }
}
