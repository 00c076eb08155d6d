package org.panamaverbs.netty;

import java.util.Map;

import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.util.NetUtil;

/**
 * The configuration of an {@link RdmaServerSocketChannel}: Netty's common options, {@code SO_BACKLOG} (the
 * backlog of {@code rdma_listen}; the kernel caps it at {@code net.rdma_ucm.max_backlog}) and
 * {@code SO_REUSEADDR} (accepted: rdma_cm ports are released when the listening id is destroyed). The
 * children's options ({@link RdmaChannelOption}, {@code SO_KEEPALIVE}, ...) are set with
 * {@code ServerBootstrap.childOption}.
 */
public final class RdmaServerSocketChannelConfig extends DefaultChannelConfig {
    private volatile int backlog = NetUtil.SOMAXCONN;
    private volatile boolean reuseAddress;

    RdmaServerSocketChannelConfig(RdmaServerSocketChannel channel) {
        super(channel);
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), ChannelOption.SO_BACKLOG, ChannelOption.SO_REUSEADDR);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ChannelOption.SO_BACKLOG) {
            return (T) Integer.valueOf(backlog);
        }
        if (option == ChannelOption.SO_REUSEADDR) {
            return (T) Boolean.valueOf(reuseAddress);
        }
        return super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == ChannelOption.SO_BACKLOG) {
            setBacklog((Integer) value);
        } else if (option == ChannelOption.SO_REUSEADDR) {
            reuseAddress = (Boolean) value;
        } else {
            return super.setOption(option, value);
        }
        return true;
    }

    /** {@return the listen backlog} */
    public int getBacklog() {
        return backlog;
    }

    /**
     * Sets the backlog given to {@code rdma_listen} when the channel binds.
     *
     * @param value 0 or more (0: the kernel's limit)
     * @return this configuration
     * @throws IllegalArgumentException if negative
     */
    public RdmaServerSocketChannelConfig setBacklog(int value) {
        if (value < 0) {
            throw new IllegalArgumentException("backlog must not be negative: " + value);
        }
        backlog = value;
        return this;
    }
}
