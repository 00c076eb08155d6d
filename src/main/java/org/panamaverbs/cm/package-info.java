/**
 * Connection management: queue pairs connected across processes and machines, either by rdma_cm (librdmacm)
 * or by an out-of-band exchange over TCP.
 *
 * <h2>rdma_cm</h2>
 * {@link org.panamaverbs.cm.RdmaServer} listens and accepts; {@link org.panamaverbs.cm.Connection#connect} resolves
 * the server's address and route and connects. Each {@link org.panamaverbs.cm.Connection} owns a protection
 * domain, one completion queue and a queue pair of {@code org.panamaverbs.verbs}, used through the usual
 * allocation-free data path; {@link org.panamaverbs.cm.ConnectionOptions} sets its capacities, port space
 * (RC or UD), private data and the hook that registers memory and posts the first receives before the peer can
 * send. A region offered with {@link org.panamaverbs.cm.Connection#offer} reaches the peer as a
 * {@link org.panamaverbs.cm.RemoteRegion} in the private data. Below them, {@link org.panamaverbs.cm.CmEventChannel}
 * ({@code rdma_create_event_channel}) and {@link org.panamaverbs.cm.CmId} ({@code rdma_create_id}) are rdma_cm's
 * own objects, for programs that need the steps one by one.
 *
 * <h2>Without rdma_cm</h2>
 * {@link org.panamaverbs.cm.EndpointExchange} sends a queue pair's endpoint and optionally a region
 * ({@link org.panamaverbs.cm.ExchangeMessage}, a documented 56-byte wire form) over TCP and reads the peer's; every
 * read is bounded and malformed input is refused with an {@link org.panamaverbs.cm.ExchangeException}.
 *
 * <h2>What lives how long</h2>
 * <ul>
 *   <li>Closing a {@link org.panamaverbs.cm.Connection} disconnects (waiting at most two seconds) and frees its
 *       queue pair, completion queue, protection domain (with every region registered in it) and its id. Closing
 *       an {@link org.panamaverbs.cm.RdmaServer} stops listening and closes the connections it accepted that are
 *       still open.</li>
 *   <li>Closing a {@link org.panamaverbs.cm.CmEventChannel} closes its ids, newest first; closing a
 *       {@link org.panamaverbs.cm.CmId} closes the queue pair it created and wakes every thread waiting for its
 *       events. The device context an id uses is librdmacm's and is never closed by this library.</li>
 *   <li>Private data is copied in and out: no buffer needs to outlive a call. A
 *       {@link org.panamaverbs.cm.RemoteRegion} is a value and owns nothing; the memory it names belongs to the
 *       peer.</li>
 * </ul>
 *
 * <h2>Errors and waits</h2>
 * Every wait takes a {@link java.time.Duration} and parks (virtual threads included). A failure event becomes a
 * {@link org.panamaverbs.cm.CmException} naming it ({@code RDMA_CM_EVENT_REJECTED} with the reject reason,
 * {@code ADDR_ERROR}, {@code ROUTE_ERROR}, {@code UNREACHABLE}, {@code CONNECT_ERROR}) or the timeout; a peer that
 * dies shows as a disconnect and as error completions, never as a hang.
 */
package org.panamaverbs.cm;
