/*
 * stand_in.h - what the stand-in's files share (see stub_provider.h for what it is): libibverbs' structs as the
 * stub embeds them, and the functions one file calls in another. Hidden: the library exports only the names of
 * libibverbs, librdmacm and stub_provider.h.
 */
#ifndef STAND_IN_H
#define STAND_IN_H

#define _GNU_SOURCE
#include "stub_provider.h"

#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <rdma/rdma_cma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* verbs.h makes these macros over inline wrappers; the library exports the functions themselves */
#undef ibv_get_device_list
#undef ibv_query_port
#undef ibv_reg_mr

#define STUB_MAX_SGE 4
#define STUB_CQ_DEPTH 4096u

/* Device-format work-queue entry (mlx5-like): 16-byte segments, big-endian. */
struct stub_ctrl_seg { uint32_t opmod_idx_opcode; uint32_t qpn_ds; uint8_t flags; uint8_t rsvd[3]; uint32_t imm; };
struct stub_raddr_seg { uint64_t raddr; uint32_t rkey; uint32_t rsvd; };
struct stub_data_seg { uint32_t byte_count; uint32_t lkey; uint64_t addr; };
struct stub_send_wqe {
	struct stub_ctrl_seg ctrl;
	struct stub_raddr_seg raddr;
	struct stub_data_seg data[STUB_MAX_SGE];
};
struct stub_recv_wqe { struct stub_data_seg data[STUB_MAX_SGE]; };

struct stub_context { struct verbs_context vctx; };   /* vctx.context last, as libibverbs lays out an extended one */
struct stub_pd { struct ibv_pd ibv; };
struct stub_mr { struct ibv_mr ibv; };
struct stub_cq {
	struct ibv_cq ibv;
	struct ibv_wc *ring;
	uint32_t mask;
	uint32_t per_poll;     /* > 0: fed mode (see stub_cq_feed) */
	uint64_t prod, cons;
	uint64_t polled, calls, overflow;
};
struct stub_qp {
	struct ibv_qp ibv;
	struct stub_send_wqe *sq;
	uint64_t *sq_wrid;
	struct stub_recv_wqe *rq;
	uint64_t *rq_wrid;
	uint32_t sq_mask, rq_mask, max_sge, sq_sig_all;
	uint64_t sq_head, sq_tail, rq_head, rq_tail;
	uint64_t sends, recvs;
	volatile uint32_t doorbell[2];
};

#pragma GCC visibility push(hidden)

/* What is alive, for the controls that reach objects a program made through an API without handles (DiSNI's). */
#define STUB_MAX_LIVE 64
extern struct stub_cq *live_cqs[STUB_MAX_LIVE];
extern struct stub_qp *live_qps[STUB_MAX_LIVE];

/* data_path.c: the context's operations (ctx->ops) */
int stub_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc);
int stub_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr);
int stub_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);
int stub_req_notify_cq(struct ibv_cq *cq, int solicited_only);

/* verbs.c: the device, and what librdmacm's part makes through it */
extern struct ibv_device stub_device;
struct ibv_qp *stub_qp_new(struct ibv_pd *pd, struct ibv_qp_init_attr *init);
/* calloc(size) whose int at fd_offset is an eventfd nobody writes: an event channel on which no event comes */
void *alloc_with_idle_fd(size_t size, size_t fd_offset);

#pragma GCC visibility pop

#endif
