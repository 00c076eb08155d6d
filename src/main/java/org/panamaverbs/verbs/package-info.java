/**
 * RDMA verbs (libibverbs): devices, protection domains, memory regions, completion queues and channels, queue
 * pairs, shared receive queues, address handles, and the allocation-free data path that posts work requests and
 * polls completions. One class per verbs object, each naming the C verb it wraps.
 *
 * <h2>The resource tree</h2>
 * Every verbs object is a node of a tree rooted at an open device:
 * <ul>
 *   <li>{@link org.panamaverbs.verbs.Context} ({@code ibv_open_device}), from {@link org.panamaverbs.verbs.Rdma#open(String)}
 *       or {@link org.panamaverbs.verbs.Rdma#openFirst()}
 *     <ul>
 *       <li>{@link org.panamaverbs.verbs.ProtectionDomain} ({@code ibv_alloc_pd})
 *         <ul>
 *           <li>{@link org.panamaverbs.verbs.MemoryRegion} ({@code ibv_reg_mr})</li>
 *           <li>{@link org.panamaverbs.verbs.QueuePair} ({@code ibv_create_qp}), which also depends on its
 *               completion queues and shared receive queue</li>
 *           <li>{@link org.panamaverbs.verbs.SharedReceiveQueue} ({@code ibv_create_srq})</li>
 *           <li>{@link org.panamaverbs.verbs.AddressHandle} ({@code ibv_create_ah})</li>
 *         </ul></li>
 *       <li>{@link org.panamaverbs.verbs.CompletionChannel} ({@code ibv_create_comp_channel})</li>
 *       <li>{@link org.panamaverbs.verbs.CompletionQueue} ({@code ibv_create_cq}), which depends on its channel</li>
 *     </ul></li>
 * </ul>
 * Outside the tree, owned by the code that allocates them: the work-request chains
 * ({@link org.panamaverbs.verbs.SendChain}, {@link org.panamaverbs.verbs.RecvChain}) and the
 * completion arrays ({@link org.panamaverbs.verbs.CompletionArray}), native memory that is no verbs object.
 *
 * <h2>What lives how long</h2>
 * <ul>
 *   <li>Every object is {@link java.lang.AutoCloseable}; {@code close()} is idempotent. Closing a node first closes
 *       everything that depends on it, newest first, so a parent never frees what a child uses: closing a
 *       context closes the whole tree. Using a closed object throws {@link java.lang.IllegalStateException}
 *       before native code is reached. A close waits (at most 10 s) for calls in flight on another thread.</li>
 *   <li>A tree that is never closed is freed by a {@link java.lang.ref.Cleaner} once its context is unreachable,
 *       with a warning naming what was left open.</li>
 *   <li>A region from {@link org.panamaverbs.verbs.ProtectionDomain#allocateAndRegister} owns its memory; one from
 *       {@link org.panamaverbs.verbs.ProtectionDomain#register} does not, and the caller's arena must stay open
 *       until the region is closed. Memory named by a posted work request must stay registered until that
 *       request's completion is polled; memory a receive was posted into belongs to the device until then.</li>
 *   <li>A {@link org.panamaverbs.verbs.WorkCompletion} is a flyweight valid until the next poll with its array;
 *       {@link org.panamaverbs.verbs.WorkCompletion#copyTo} keeps one.</li>
 *   <li>Objects held by another owner (rdma_cm's device context, the queue pair {@code rdma_create_qp} made) are
 *       handed back to that owner on close instead of being destroyed.</li>
 * </ul>
 *
 * <h2>Errors and threads</h2>
 * Control-path failures throw {@link org.panamaverbs.verbs.VerbsException} (the verb, the errno name and what to
 * do); what the device or its PVRDMA hardware version does not allow throws
 * {@link org.panamaverbs.verbs.UnsupportedVerbException} before the provider is asked
 * ({@link org.panamaverbs.verbs.DevicePolicy}, {@link org.panamaverbs.verbs.DeviceProfile}); a missing library,
 * kernel support or device throws {@link org.panamaverbs.verbs.RdmaUnavailableException}. On the data path
 * ({@link org.panamaverbs.verbs.QueuePair#postSend}, {@link org.panamaverbs.verbs.QueuePair#postRecv},
 * {@link org.panamaverbs.verbs.CompletionQueue#poll(CompletionArray)}) the provider's refusal is a return value, and
 * nothing is allocated. Work-request chains and completion arrays belong to the first thread that posts or polls
 * with them; posting and polling take no lock; creation and close are serialized per context. Every blocking call
 * takes a timeout and parks a virtual thread instead of pinning its carrier.
 *
 * <p>Run with {@code --enable-native-access=org.panamaverbs} (module path) or
 * {@code --enable-native-access=ALL-UNNAMED} (class path).
 */
package org.panamaverbs.verbs;
