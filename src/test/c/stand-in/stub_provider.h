/*
 * stub_provider.h - a stand-in libibverbs with no device behind it, for measuring what a binding adds to
 * ibv_post_send, ibv_post_recv and ibv_poll_cq (bench/native-datapath), and for the library's tests of a device tree
 * without a device (StandIn). Its files, by job: data_path.c (post and poll), verbs.c (libibverbs' exports), rdmacm.c
 * (librdmacm's), controls.c (below); stand_in.h is what they share. Built with
 *   cc -O2 -fPIC -shared -Wl,-soname,libibverbs.so.1 -o DIR/libibverbs.so.1 (every .c file here)
 * plus a link librdmacm.so.1 -> libibverbs.so.1 beside it (the loader maps the one file once).
 *
 * Built as libibverbs.so.1 (and linked as librdmacm.so.1) into a directory that only the benchmark's JVM finds
 * first (LD_LIBRARY_PATH), it exports what Panama Verbs calls from libibverbs (ibv_get_device_list, ibv_open_device,
 * ibv_query_device, ibv_query_port, _ibv_query_gid_table, ibv_alloc_pd, ibv_reg_mr(_iova2), ibv_create_cq,
 * ibv_create_qp, ibv_modify_qp, ibv_query_qp, the destroy calls, events that never come) and the part of
 * librdmacm a DiSNI program's setup calls (event channel, id, bind, rdma_create_qp): a device "stub0" with two
 * InfiniBand ports, and "stub1", whose contexts lack the legacy data-path operations (for the library's tests of that
 * refusal). Programs open them as any device, through their public API.
 *
 * The objects are libibverbs' own structs (struct ibv_context, ibv_pd, ibv_cq, ibv_qp, ibv_mr from
 * <infiniband/verbs.h>), each the first member of a stub struct, exactly as rdma-core providers embed
 * them (mlx5_qp starts with verbs_qp, which starts with ibv_qp): callers see the libibverbs layout and
 * reach the stub only through ctx->ops.post_send / post_recv / poll_cq, as ibv_post_send and friends do.
 * Benchmark-only; not thread-safe (one posting and one polling thread, like a provider without locks).
 *
 * Below: what only the benchmark calls, on objects it got through the public API (their handle() views).
 */
#ifndef STUB_PROVIDER_H
#define STUB_PROVIDER_H

#include <infiniband/verbs.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Keeps the completion queue fed so that every poll_cq finds per_poll completions (per_poll > 0):
 * the ring is filled once with successful completions (wr_id = slot index) and each poll copies
 * min(num_entries, per_poll) of them out, advancing the consumer index round the ring, as if the
 * device had just written them. per_poll 0: the ring holds only what signaled posts queued.
 */
int stub_cq_feed(struct ibv_cq *cq, int per_poll);
/* stub_cq_feed on every completion queue alive now (for a program whose API gives no handles, as DiSNI's). */
int stub_feed_all(int per_poll);

/* Counters, for checking that a caller really reached the stub. */
uint64_t stub_qp_sends(struct ibv_qp *qp);    /* send requests accepted */
uint64_t stub_qp_recvs(struct ibv_qp *qp);    /* receive requests accepted */
uint64_t stub_cq_polled(struct ibv_cq *cq);   /* completions handed out */
uint64_t stub_cq_calls(struct ibv_cq *cq);    /* poll_cq calls, empty ones included */
uint64_t stub_total_calls(void);              /* requests accepted and poll_cq calls of every live object */
uint32_t stub_qp_last_lkey(struct ibv_qp *qp); /* the first entry's lkey of the newest send request accepted */

/* The local key of stub0's null regions (its context's alloc_null_mr, which ibv_alloc_null_mr calls). */
#define STUB_NULL_LKEY 0x4e554c4cu

/* The context's data-path operations (ctx->ops), for the bare FFM calls of the benchmark's evidence rows. */
void *stub_post_send_op(struct ibv_context *ctx);
void *stub_post_recv_op(struct ibv_context *ctx);
void *stub_poll_cq_op(struct ibv_context *ctx);

/*
 * Sizes and offsets of the verbs structs the benchmark lays out itself (work requests for its C, JNI and bare FFM
 * rows, completions it reads), as this compiler sees verbs.h: -1 for an unknown item. DiSNI's JNI library hands its
 * Java side the same numbers at start-up.
 */
enum stub_layout_item {
	STUB_SEND_WR_SIZE, STUB_SEND_WR_WR_ID, STUB_SEND_WR_NEXT, STUB_SEND_WR_SG_LIST, STUB_SEND_WR_NUM_SGE,
	STUB_SEND_WR_OPCODE, STUB_SEND_WR_SEND_FLAGS, STUB_SEND_WR_IMM_DATA, STUB_SEND_WR_REMOTE_ADDR, STUB_SEND_WR_RKEY,
	STUB_RECV_WR_SIZE, STUB_RECV_WR_WR_ID, STUB_RECV_WR_NEXT, STUB_RECV_WR_SG_LIST, STUB_RECV_WR_NUM_SGE,
	STUB_SGE_SIZE, STUB_SGE_ADDR, STUB_SGE_LENGTH, STUB_SGE_LKEY,
	STUB_WC_SIZE, STUB_WC_WR_ID,
};
long stub_layout(int item);

/*
 * The C floor: n calls of the inline ibv_post_send / ibv_post_recv / ibv_poll_cq from verbs.h (which go
 * through ctx->ops), setting wr->wr_id = i before each post as an application would. Post loops return
 * the number of failed posts; the poll loop returns the sum of the wr_id of every completion read.
 */
long stub_c_post_send_loop(struct ibv_qp *qp, struct ibv_send_wr *wr, long n);
long stub_c_post_recv_loop(struct ibv_qp *qp, struct ibv_recv_wr *wr, long n);
long stub_c_poll_loop(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc, long n);

#ifdef __cplusplus
}
#endif
#endif
