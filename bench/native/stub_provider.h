/*
 * stub_provider.h - a user-space "provider" with no device behind it, for measuring what a binding adds
 * to ibv_post_send, ibv_post_recv and ibv_poll_cq (bench/native-datapath, issue 9).
 *
 * The objects are libibverbs' own structs (struct ibv_context, ibv_pd, ibv_cq, ibv_qp, ibv_mr from
 * <infiniband/verbs.h>), each the first member of a stub struct, exactly as rdma-core providers embed
 * them (mlx5_qp starts with verbs_qp, which starts with ibv_qp): callers see the libibverbs layout and
 * reach the stub only through ctx->ops.post_send / post_recv / poll_cq, as ibv_post_send and friends do.
 * Benchmark-only; not thread-safe (one posting and one polling thread, like a provider without locks).
 */
#ifndef STUB_PROVIDER_H
#define STUB_PROVIDER_H

#include <infiniband/verbs.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Control path: make and free the objects. NULL / non-zero on failure (errno set). */
struct ibv_context *stub_open(void);
int stub_close(struct ibv_context *ctx);
struct ibv_pd *stub_alloc_pd(struct ibv_context *ctx);
int stub_dealloc_pd(struct ibv_pd *pd);
struct ibv_cq *stub_create_cq(struct ibv_context *ctx, int cqe);
int stub_destroy_cq(struct ibv_cq *cq);
/* An RC queue pair in RTS; sq_sig_all as in ibv_qp_init_attr. */
struct ibv_qp *stub_create_qp(struct ibv_pd *pd, struct ibv_cq *send_cq, struct ibv_cq *recv_cq,
                              int max_send_wr, int max_recv_wr, int max_sge, int sq_sig_all);
int stub_destroy_qp(struct ibv_qp *qp);
/* Registers [addr, addr + length): an ibv_mr with made-up, distinct lkey and rkey. */
struct ibv_mr *stub_reg_mr(struct ibv_pd *pd, void *addr, size_t length);
int stub_dereg_mr(struct ibv_mr *mr);

/*
 * Keeps the completion queue fed so that every poll_cq finds per_poll completions (per_poll > 0):
 * the ring is filled once with successful completions (wr_id = slot index) and each poll copies
 * min(num_entries, per_poll) of them out, advancing the consumer index round the ring, as if the
 * device had just written them. per_poll 0: the ring holds only what signaled posts queued.
 */
int stub_cq_feed(struct ibv_cq *cq, int per_poll);

/* Counters, for checking that a caller really reached the stub. */
uint64_t stub_qp_sends(struct ibv_qp *qp);    /* send requests accepted */
uint64_t stub_qp_recvs(struct ibv_qp *qp);    /* receive requests accepted */
uint64_t stub_cq_polled(struct ibv_cq *cq);   /* completions handed out */
uint64_t stub_cq_calls(struct ibv_cq *cq);    /* poll_cq calls, empty ones included */

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
