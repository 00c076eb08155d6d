/**
 * A Netty 4.2 transport over RDMA that speaks librdmacm's rsocket protocol: {@link
 * org.panamaverbs.netty.RdmaSocketChannel}, {@link org.panamaverbs.netty.RdmaServerSocketChannel} and their
 * {@link org.panamaverbs.netty.RdmaIoHandler}; the channels also run on Netty's epoll loops ({@code EpollIoHandler},
 * with netty-transport-native-epoll on the class path). The wire protocol is described in docs/rsockets-protocol.md of the
 * project.
 */
package org.panamaverbs.netty;
