/**
 * librdmacm's rsocket stream protocol (rdma-core's {@code librdmacm/rsocket.c}) as a state machine that a transport
 * drives: {@link org.panamaverbs.rsocket.RsocketFlow} keeps one stream's sequence numbers, credits and rings and
 * hands what to post to a {@link org.panamaverbs.rsocket.WorkPoster}; the transport owns the queue pair, the
 * completion queue and the event loop. It depends on the JDK only.
 */
module org.panamaverbs.rsocket {
    exports org.panamaverbs.rsocket;
}
