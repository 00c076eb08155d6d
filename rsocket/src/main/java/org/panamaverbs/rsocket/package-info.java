/**
 * rsocket's stream protocol without a device: {@link org.panamaverbs.rsocket.RsocketFlow} (one stream's state, as
 * {@code rsocket.c} keeps it), {@link org.panamaverbs.rsocket.RsocketWire} (the connection data exchanged through
 * rdma_cm), {@link org.panamaverbs.rsocket.WorkPoster} (what the transport posts for it) and
 * {@link org.panamaverbs.rsocket.WriteStall} (the timer behind a transport's write-stall timeout). The wire protocol
 * is described in docs/rsockets-protocol.md of the project.
 */
package org.panamaverbs.rsocket;
