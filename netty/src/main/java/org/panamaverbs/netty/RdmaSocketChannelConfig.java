package org.panamaverbs.netty;

import java.util.Map;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.DuplexChannelConfig;
import org.panamaverbs.rsocket.RsocketConnection;
import org.panamaverbs.rsocket.RsocketFlow;
import org.panamaverbs.rsocket.RsocketIomap;

/**
 * The configuration of an {@link RdmaSocketChannel}: Netty's common options, {@code ALLOW_HALF_CLOSURE},
 * {@code SO_KEEPALIVE} (rsocket's keepalive, every {@link RdmaChannelOption#KEEPALIVE_SECONDS}),
 * {@code TCP_NODELAY} (accepted and reported; rsocket sends at once anyway), {@code SO_RCVBUF} and
 * {@code SO_SNDBUF} (buffer sizes, doubled as rsocket does), and the {@link RdmaChannelOption}s.
 */
public final class RdmaSocketChannelConfig extends DefaultChannelConfig implements DuplexChannelConfig {
    private static final int MIN_BUFFER = 2 * RsocketFlow.SEND_LOW_WATER;

    private volatile boolean allowHalfClosure;
    private volatile boolean keepAlive;
    private volatile boolean tcpNoDelay = true;
    private volatile int keepAliveSeconds = 7200;
    private volatile int queueDepth = RsocketConnection.Settings.DEFAULT.queueDepth();
    private volatile int sendBufferSize = RsocketConnection.Settings.DEFAULT.sendBufferSize();
    private volatile int receiveBufferSize = RsocketConnection.Settings.DEFAULT.receiveBufferSize();
    private volatile int writeStallTimeoutMillis;
    private volatile int iomapSize = RsocketConnection.Settings.DEFAULT.iomapSize();

    RdmaSocketChannelConfig(RdmaSocketChannel channel) {
        super(channel);
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), ChannelOption.ALLOW_HALF_CLOSURE, ChannelOption.SO_KEEPALIVE,
                ChannelOption.TCP_NODELAY, ChannelOption.SO_RCVBUF, ChannelOption.SO_SNDBUF,
                RdmaChannelOption.QUEUE_DEPTH, RdmaChannelOption.RECEIVE_BUFFER_SIZE, RdmaChannelOption.SEND_BUFFER_SIZE,
                RdmaChannelOption.KEEPALIVE_SECONDS, RdmaChannelOption.WRITE_STALL_TIMEOUT_MILLIS,
                RdmaChannelOption.IOMAP_SIZE);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            return (T) Boolean.valueOf(allowHalfClosure);
        }
        if (option == ChannelOption.SO_KEEPALIVE) {
            return (T) Boolean.valueOf(keepAlive);
        }
        if (option == ChannelOption.TCP_NODELAY) {
            return (T) Boolean.valueOf(tcpNoDelay);
        }
        if (option == ChannelOption.SO_RCVBUF) {
            return (T) Integer.valueOf(receiveBufferSize / 2);
        }
        if (option == ChannelOption.SO_SNDBUF) {
            return (T) Integer.valueOf(sendBufferSize / 2);
        }
        if (option == RdmaChannelOption.QUEUE_DEPTH) {
            return (T) Integer.valueOf(queueDepth);
        }
        if (option == RdmaChannelOption.RECEIVE_BUFFER_SIZE) {
            return (T) Integer.valueOf(receiveBufferSize);
        }
        if (option == RdmaChannelOption.SEND_BUFFER_SIZE) {
            return (T) Integer.valueOf(sendBufferSize);
        }
        if (option == RdmaChannelOption.KEEPALIVE_SECONDS) {
            return (T) Integer.valueOf(keepAliveSeconds);
        }
        if (option == RdmaChannelOption.WRITE_STALL_TIMEOUT_MILLIS) {
            return (T) Integer.valueOf(writeStallTimeoutMillis);
        }
        if (option == RdmaChannelOption.IOMAP_SIZE) {
            return (T) Integer.valueOf(iomapSize);
        }
        return super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            allowHalfClosure = (Boolean) value;
        } else if (option == ChannelOption.SO_KEEPALIVE) {
            keepAlive = (Boolean) value;
        } else if (option == ChannelOption.TCP_NODELAY) {
            tcpNoDelay = (Boolean) value;
        } else if (option == ChannelOption.SO_RCVBUF) {
            setReceiveBufferSize(2 * (Integer) value);
        } else if (option == ChannelOption.SO_SNDBUF) {
            setSendBufferSize(2 * (Integer) value);
        } else if (option == RdmaChannelOption.QUEUE_DEPTH) {
            setQueueDepth((Integer) value);
        } else if (option == RdmaChannelOption.RECEIVE_BUFFER_SIZE) {
            setReceiveBufferSize((Integer) value);
        } else if (option == RdmaChannelOption.SEND_BUFFER_SIZE) {
            setSendBufferSize((Integer) value);
        } else if (option == RdmaChannelOption.KEEPALIVE_SECONDS) {
            setKeepAliveSeconds((Integer) value);
        } else if (option == RdmaChannelOption.WRITE_STALL_TIMEOUT_MILLIS) {
            setWriteStallTimeoutMillis((Integer) value);
        } else if (option == RdmaChannelOption.IOMAP_SIZE) {
            setIomapSize((Integer) value);
        } else {
            return super.setOption(option, value);
        }
        return true;
    }

    /**
     * {@return whether the peer's half-close is reported as {@code ChannelInputShutdownEvent} (true) or closes the
     * channel (false, the default)}
     */
    @Override
    public boolean isAllowHalfClosure() {
        return allowHalfClosure;
    }

    @Override
    public RdmaSocketChannelConfig setAllowHalfClosure(boolean value) {
        allowHalfClosure = value;
        return this;
    }

    /** {@return whether keepalives are sent (SO_KEEPALIVE)} */
    public boolean isKeepAlive() {
        return keepAlive;
    }

    /**
     * Turns rsocket's keepalive on or off; takes effect for a connection made afterwards.
     *
     * @param value true to send a keepalive every {@link #getKeepAliveSeconds()}
     * @return this configuration
     */
    public RdmaSocketChannelConfig setKeepAlive(boolean value) {
        keepAlive = value;
        return this;
    }

    /** {@return the keepalive period in seconds} */
    public int getKeepAliveSeconds() {
        return keepAliveSeconds;
    }

    /**
     * Sets the keepalive period.
     *
     * @param seconds at least 1
     * @return this configuration
     * @throws IllegalArgumentException if {@code seconds} is below 1
     */
    public RdmaSocketChannelConfig setKeepAliveSeconds(int seconds) {
        if (seconds < 1) {
            throw new IllegalArgumentException("keepalive period must be at least 1 s, not " + seconds);
        }
        keepAliveSeconds = seconds;
        return this;
    }

    /** {@return TCP_NODELAY as set (rsocket sends every write at once regardless)} */
    public boolean isTcpNoDelay() {
        return tcpNoDelay;
    }

    /** {@return the queue pair's send and receive depth} */
    public int getQueueDepth() {
        return queueDepth;
    }

    /**
     * Sets the queue depth for a connection made afterwards.
     *
     * @param depth 16 to 65534 (lowered to the device's limit when connecting)
     * @return this configuration
     * @throws IllegalArgumentException outside that range
     */
    public RdmaSocketChannelConfig setQueueDepth(int depth) {
        if (depth < RsocketFlow.MIN_QUEUE || depth > RsocketFlow.MAX_QUEUE) {
            throw new IllegalArgumentException("queue depth must be " + RsocketFlow.MIN_QUEUE + " to "
                    + RsocketFlow.MAX_QUEUE + ", not " + depth);
        }
        queueDepth = depth;
        return this;
    }

    /** {@return the receive buffer size in bytes} */
    public int getReceiveBufferSize() {
        return receiveBufferSize;
    }

    /**
     * Sets the receive buffer for a connection made afterwards.
     *
     * @param bytes at least 4096 (an odd size is rounded up)
     * @return this configuration
     * @throws IllegalArgumentException if smaller
     */
    public RdmaSocketChannelConfig setReceiveBufferSize(int bytes) {
        receiveBufferSize = checkBuffer(bytes) + (bytes & 1);
        return this;
    }

    /** {@return the send buffer size in bytes} */
    public int getSendBufferSize() {
        return sendBufferSize;
    }

    /**
     * Sets the send buffer for a connection made afterwards.
     *
     * @param bytes at least 4096
     * @return this configuration
     * @throws IllegalArgumentException if smaller
     */
    public RdmaSocketChannelConfig setSendBufferSize(int bytes) {
        sendBufferSize = checkBuffer(bytes);
        return this;
    }

    private static int checkBuffer(int bytes) {
        if (bytes < MIN_BUFFER) {
            throw new IllegalArgumentException("RDMA buffers are at least " + MIN_BUFFER + " bytes, not " + bytes);
        }
        return bytes;
    }

    /** {@return the write stall timeout in milliseconds, 0 for none} */
    public int getWriteStallTimeoutMillis() {
        return writeStallTimeoutMillis;
    }

    /**
     * Sets how long written data may wait for credits before the channel fails with {@link RdmaWriteStalledException}
     * (when a wait begins and ends, and how late the failure may come: {@link RdmaChannelOption#WRITE_STALL_TIMEOUT_MILLIS}).
     *
     * @param millis 0 for no limit, else the limit
     * @return this configuration
     * @throws IllegalArgumentException if negative
     */
    public RdmaSocketChannelConfig setWriteStallTimeoutMillis(int millis) {
        if (millis < 0) {
            throw new IllegalArgumentException("write stall timeout must not be negative: " + millis);
        }
        writeStallTimeoutMillis = millis;
        return this;
    }

    /** {@return how many regions the peer may map for this side at once, as set} */
    public int getIomapSize() {
        return iomapSize;
    }

    /**
     * Sets the iomap table size for a connection made afterwards ({@link RdmaChannelOption#IOMAP_SIZE}).
     *
     * @param entries 0 to 32512 (above 128 rounded down to 128 or a multiple of 256 when connecting, as
     *                rsocket does)
     * @return this configuration
     * @throws IllegalArgumentException outside that range
     */
    public RdmaSocketChannelConfig setIomapSize(int entries) {
        RsocketIomap.roundedSize(entries);
        iomapSize = entries;
        return this;
    }

    RsocketConnection.Settings settings() {
        return new RsocketConnection.Settings(queueDepth, sendBufferSize, receiveBufferSize, iomapSize);
    }

    @Override
    public RdmaSocketChannelConfig setMaxMessagesPerRead(int maxMessagesPerRead) {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setWriteSpinCount(int writeSpinCount) {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setAllocator(ByteBufAllocator allocator) {
        super.setAllocator(allocator);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setRecvByteBufAllocator(RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    protected void autoReadCleared() {
        // as NIO's channels: a read requested before auto-read went off is not done
        ((RdmaSocketChannel) channel).clearReadPending();
    }

    @Override
    public RdmaSocketChannelConfig setAutoClose(boolean autoClose) {
        super.setAutoClose(autoClose);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setMessageSizeEstimator(MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setWriteBufferWaterMark(WriteBufferWaterMark writeBufferWaterMark) {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setConnectTimeoutMillis(int connectTimeoutMillis) {
        super.setConnectTimeoutMillis(connectTimeoutMillis);
        return this;
    }
}
