/**
 * librdmacm's rsocket stream protocol (rdma-core's {@code librdmacm/rsocket.c}) as a state machine that a transport
 * drives: {@link org.panamaverbs.rsocket.RsocketFlow} keeps one stream's sequence numbers, credits and rings and
 * hands what to post to a {@link org.panamaverbs.rsocket.WorkPoster}; {@link org.panamaverbs.rsocket.RsocketConnection}
 * is that poster on a device (a queue pair and its registered buffers), on the completion queues and thread of the
 * transport's {@link org.panamaverbs.rsocket.RsocketHost}. The transport keeps its event loop or threads and the
 * rdma_cm handshake. It depends on the core library only.
 */
module org.panamaverbs.rsocket {
    requires transitive org.panamaverbs;
    exports org.panamaverbs.rsocket;
}
