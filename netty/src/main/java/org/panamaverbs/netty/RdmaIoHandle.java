package org.panamaverbs.netty;

import io.netty.channel.IoHandle;

/**
 * What an {@link RdmaIoHandler} (or the RDMA side of an epoll loop, {@link EpollRdmaLoop}) serves: the unsafe of an
 * RDMA channel, told when its connection has news.
 */
interface RdmaIoHandle extends IoHandle {
}
