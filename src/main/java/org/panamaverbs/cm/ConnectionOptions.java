package org.panamaverbs.cm;

import java.util.Objects;
import java.util.OptionalInt;
import java.util.function.Consumer;
import org.panamaverbs.verbs.QpCapabilities;

/**
 * What {@link Connection#connect} and {@link RdmaServer} set up for each connection: the port space
 * (RC over {@link PortSpace#TCP} or UD over {@link PortSpace#UDP}), the queue pair's {@link QpCapabilities} (one
 * completion queue serves both directions, sized for both), the {@link ConnParam}, private data
 * for the peer, and a hook that runs once the connection's protection domain, completion queue and queue
 * pair exist but before the peer can send: register memory there, post receives, and
 * {@link Connection#offer(org.panamaverbs.verbs.MemoryRegion) offer} a region for the peer's RDMA READ/WRITE.
 * Immutable; build with {@link #builder()}.
 */
public final class ConnectionOptions {
    private final PortSpace portSpace;
    private final QpCapabilities capabilities;
    private final ConnParam parameters;
    private final byte[] privateData;
    private final Consumer<Connection> prepare;
    private final OptionalInt typeOfService;

    private ConnectionOptions(Builder b) {
        portSpace = b.portSpace;
        capabilities = b.capabilities;
        parameters = b.parameters;
        privateData = b.privateData.clone();
        prepare = b.prepare;
        typeOfService = b.typeOfService;
    }

    /**
     * RC, {@link QpCapabilities#defaults()} (128 sends and 512 receives of one entry each),
     * {@link ConnParam#defaults()}, no private data.
     *
     * @return a new builder with those defaults and a prepare hook that does nothing
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * {@link #builder()}'s defaults.
     *
     * @return options with every default: RC, 128 send and 512 receive requests, one scatter-gather entry
     *         each, default connection parameters, no private data, no prepare hook
     */
    public static ConnectionOptions defaults() {
        return new Builder().build();
    }

    /**
     * The port space of the connections.
     *
     * @return {@link PortSpace#TCP} for RC connections, {@link PortSpace#UDP} for UD
     */
    public PortSpace portSpace() {
        return portSpace;
    }

    /**
     * The capacities of each connection's queue pair.
     *
     * @return the send and receive depths, entries per request and inline size asked for
     */
    public QpCapabilities capabilities() {
        return capabilities;
    }

    /**
     * The connection parameters to request or accept with.
     *
     * @return responder resources, initiator depth and retry counts; their private data is not used (the
     *         connection sends {@link #privateData()} instead)
     */
    public ConnParam parameters() {
        return parameters;
    }

    /**
     * The application's private data for the peer (a copy).
     *
     * @return a fresh copy of the bytes, empty if none; the prepare hook may replace them per connection
     *         ({@link Connection#sendPrivateData})
     */
    public byte[] privateData() {
        return privateData.clone();
    }

    /**
     * The type of service {@link Connection#connect} gives its id ({@link CmId#setTypeOfService}), if any.
     *
     * @return 0..255, or empty for the kernel's default
     */
    public OptionalInt typeOfService() {
        return typeOfService;
    }

    Consumer<Connection> prepare() {
        return prepare;
    }

    /** Builds {@link ConnectionOptions}. */
    public static final class Builder {
        private PortSpace portSpace = PortSpace.TCP;
        private QpCapabilities capabilities = QpCapabilities.defaults();
        private ConnParam parameters = ConnParam.defaults();
        private byte[] privateData = new byte[0];
        private Consumer<Connection> prepare = connection -> { };
        private OptionalInt typeOfService = OptionalInt.empty();

        private Builder() {
        }

        /**
         * The type of service of a client's connection (rdma_cm's {@code RDMA_OPTION_ID_TOS}: on RoCE the IP header's
         * DSCP and ECN bits); set on the id between address and route resolution, as a C client sets it. A server's
         * connections keep the kernel's.
         *
         * @param value 0..255
         * @return this builder
         * @throws IllegalArgumentException outside 0..255
         */
        public Builder typeOfService(int value) {
            if (value < 0 || value > 255) {
                throw new IllegalArgumentException("type of service must be in 0..255, not " + value);
            }
            typeOfService = OptionalInt.of(value);
            return this;
        }

        /**
         * {@link PortSpace#TCP} for RC connections (the default), {@link PortSpace#UDP} for UD.
         *
         * @param value the port space, not null; on a server it must match what the clients use
         * @return this builder
         */
        public Builder portSpace(PortSpace value) {
            portSpace = Objects.requireNonNull(value);
            return this;
        }

        /**
         * The capacities of each connection's queue pair (default {@link QpCapabilities#defaults()}). Its one
         * completion queue gets room for {@code maxSendWr} plus {@code maxRecvWr}; the sum must not exceed the
         * device's {@code max_cqe}.
         *
         * @param value the capacities, not null; checked against the device when a connection is created
         *              ({@link IllegalArgumentException} then)
         * @return this builder
         */
        public Builder capabilities(QpCapabilities value) {
            capabilities = Objects.requireNonNull(value, "capabilities");
            return this;
        }

        /**
         * Responder resources, initiator depth and retry counts; their private data is ignored (see {@link #privateData}).
         *
         * @param value the parameters, not null (default {@link ConnParam#defaults()}); responder
         *              resources and initiator depth are lowered to the device's limits when connecting
         * @return this builder
         */
        public Builder parameters(ConnParam value) {
            parameters = Objects.requireNonNull(value);
            return this;
        }

        /**
         * Bytes for the peer's {@link Connection#peerPrivateData()}. They travel in rdma_cm's private data
         * after a 5-byte header and, when a region is offered, its 20-byte description: at most 31 bytes
         * (51 without a region) from a client on RC, 171 (191) from a server.
         * On UD: 155 (175) from a client, 111 (131) from a server.
         *
         * @param value the bytes, or null for none; copied. A connection whose bytes do not fit fails with an
         *              {@link IllegalArgumentException} when it is requested or accepted
         * @return this builder
         */
        public Builder privateData(byte[] value) {
            privateData = value == null ? new byte[0] : value.clone();
            return this;
        }

        /**
         * Runs on each new connection before the peer can send (register memory, post receives, offer a region).
         *
         * @param value the hook, not null; called once per connection on the thread that connects or
         *              accepts, after the queue pair exists and before {@code rdma_connect} /
         *              {@code rdma_accept}. A runtime exception it throws closes the connection and is
         *              rethrown to that caller
         * @return this builder
         */
        public Builder prepare(Consumer<Connection> value) {
            prepare = Objects.requireNonNull(value);
            return this;
        }

        /**
         * Builds the options from this builder's current settings; the builder can be changed and reused.
         *
         * @return immutable options (the private data is copied)
         */
        public ConnectionOptions build() {
            return new ConnectionOptions(this);
        }
    }
}
