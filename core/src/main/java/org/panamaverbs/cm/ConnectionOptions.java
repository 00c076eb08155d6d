package org.panamaverbs.cm;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * What {@link Connection#connect} and {@link RdmaServer} set up for each connection: the port space
 * (RC over {@link PortSpace#TCP} or UD over {@link PortSpace#UDP}), the queue pair's capacities (one
 * completion queue serves both directions, sized for both), the {@link ConnectionParameters}, private data
 * for the peer, and a hook that runs once the connection's protection domain, completion queue and queue
 * pair exist but before the peer can send: register memory there, post receives, and
 * {@link Connection#offer(org.panamaverbs.verbs.MemoryRegion) offer} a region for the peer's RDMA READ/WRITE.
 * Immutable; build with {@link #builder()}.
 */
public final class ConnectionOptions {
    private final PortSpace portSpace;
    private final int maxSendWr;
    private final int maxRecvWr;
    private final int maxSendSge;
    private final int maxRecvSge;
    private final ConnectionParameters parameters;
    private final byte[] privateData;
    private final Consumer<Connection> prepare;

    private ConnectionOptions(Builder b) {
        portSpace = b.portSpace;
        maxSendWr = b.maxSendWr;
        maxRecvWr = b.maxRecvWr;
        maxSendSge = b.maxSendSge;
        maxRecvSge = b.maxRecvSge;
        parameters = b.parameters;
        privateData = b.privateData.clone();
        prepare = b.prepare;
    }

    /** RC, 128 sends and 512 receives of one entry each, {@link ConnectionParameters#defaults()}, no private data. */
    public static Builder builder() {
        return new Builder();
    }

    /** {@link #builder()}'s defaults. */
    public static ConnectionOptions defaults() {
        return new Builder().build();
    }

    public PortSpace portSpace() {
        return portSpace;
    }

    public int maxSendWr() {
        return maxSendWr;
    }

    public int maxRecvWr() {
        return maxRecvWr;
    }

    public int maxSendSge() {
        return maxSendSge;
    }

    public int maxRecvSge() {
        return maxRecvSge;
    }

    public ConnectionParameters parameters() {
        return parameters;
    }

    /** The application's private data for the peer (a copy). */
    public byte[] privateData() {
        return privateData.clone();
    }

    Consumer<Connection> prepare() {
        return prepare;
    }

    /** Builds {@link ConnectionOptions}. */
    public static final class Builder {
        private PortSpace portSpace = PortSpace.TCP;
        private int maxSendWr = 128;
        private int maxRecvWr = 512;
        private int maxSendSge = 1;
        private int maxRecvSge = 1;
        private ConnectionParameters parameters = ConnectionParameters.defaults();
        private byte[] privateData = new byte[0];
        private Consumer<Connection> prepare = connection -> { };

        private Builder() {
        }

        /** {@link PortSpace#TCP} for RC connections (the default), {@link PortSpace#UDP} for UD. */
        public Builder portSpace(PortSpace value) {
            portSpace = Objects.requireNonNull(value);
            return this;
        }

        public Builder maxSendWr(int value) {
            maxSendWr = value;
            return this;
        }

        public Builder maxRecvWr(int value) {
            maxRecvWr = value;
            return this;
        }

        public Builder maxSendSge(int value) {
            maxSendSge = value;
            return this;
        }

        public Builder maxRecvSge(int value) {
            maxRecvSge = value;
            return this;
        }

        /** Responder resources, initiator depth and retry counts; their private data is ignored (see {@link #privateData}). */
        public Builder parameters(ConnectionParameters value) {
            parameters = Objects.requireNonNull(value);
            return this;
        }

        /**
         * Bytes for the peer's {@link Connection#peerPrivateData()}. They travel in rdma_cm's private data
         * after a 5-byte header and, when a region is offered, its 20-byte description: at most 31 bytes
         * (51 without a region) from a client on RC, 171 (191) from a server.
         */
        public Builder privateData(byte[] value) {
            privateData = value == null ? new byte[0] : value.clone();
            return this;
        }

        /** Runs on each new connection before the peer can send (register memory, post receives, offer a region). */
        public Builder prepare(Consumer<Connection> value) {
            prepare = Objects.requireNonNull(value);
            return this;
        }

        public ConnectionOptions build() {
            return new ConnectionOptions(this);
        }
    }
}
