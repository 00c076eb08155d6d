/*
 * stub_provider.c - see stub_provider.h. Built by bench/native-datapath with
 *   gcc -O2 -fPIC -shared -o bench/target/native/libpvstub.so bench/native/stub_provider.c
 *
 * What the data-path functions do is modelled on what real providers do in user space (mlx5 is the
 * model): post_send walks the chain, checks each request, writes a work-queue entry in the device's
 * big-endian format (control segment, remote-address segment, one data segment per SGE) into the send
 * ring, remembers wr_id in a side array, queues a completion for a signaled request, and rings a
 * doorbell (here a release store to an ordinary word: a real one is an MMIO write, which would dominate
 * everything and is the same for every caller). post_recv writes data segments into the receive ring.
 * poll_cq copies up to num_entries completions out of the completion ring. The "device" consumes every
 * work-queue entry as soon as the doorbell rings, so the rings never fill.
 */
#define _GNU_SOURCE
#include "stub_provider.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

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

struct stub_context { struct ibv_context ibv; };            /* ibv first: a struct ibv_context * is a stub_context * */
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

static uint32_t next_handle = 1;
static uint32_t next_qpn = 0x100;

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 1;
	while (p < n)
		p <<= 1;
	return p;
}

static int stub_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct stub_cq *cq = (struct stub_cq *)ibcq;
	uint64_t avail = cq->per_poll ? cq->per_poll : cq->prod - cq->cons;
	int n = num_entries < 0 ? 0 : (uint64_t)num_entries < avail ? num_entries : (int)avail;

	for (int i = 0; i < n; i++)
		wc[i] = cq->ring[(cq->cons + i) & cq->mask];
	cq->cons += n;
	if (cq->per_poll)
		cq->prod = cq->cons;   /* the "device" has just written what was taken */
	cq->polled += n;
	cq->calls++;
	return n;
}

static void queue_completion(struct stub_cq *cq, uint64_t wr_id, enum ibv_wc_opcode opcode, uint32_t byte_len,
			     uint32_t qp_num)
{
	if (cq->prod - cq->cons > cq->mask) {
		cq->overflow++;   /* a real device raises IBV_EVENT_CQ_ERR */
		return;
	}
	struct ibv_wc *wc = &cq->ring[cq->prod & cq->mask];
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->status = IBV_WC_SUCCESS;
	wc->opcode = opcode;
	wc->byte_len = byte_len;
	wc->qp_num = qp_num;
	cq->prod++;
}

static enum ibv_wc_opcode wc_opcode(enum ibv_wr_opcode opcode)
{
	switch (opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM: return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ: return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP: return IBV_WC_COMP_SWAP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD: return IBV_WC_FETCH_ADD;
	default: return IBV_WC_SEND;
	}
}

static int stub_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	struct stub_qp *qp = (struct stub_qp *)ibqp;
	int rc = 0;

	for (; wr; wr = wr->next) {
		if ((uint32_t)wr->num_sge > qp->max_sge || (wr->send_flags & IBV_SEND_INLINE)) {
			rc = EINVAL;
			break;
		}
		if (qp->sq_head - qp->sq_tail > qp->sq_mask) {
			rc = ENOMEM;
			break;
		}
		uint32_t idx = (uint32_t)qp->sq_head & qp->sq_mask;
		struct stub_send_wqe *wqe = &qp->sq[idx];
		wqe->ctrl.opmod_idx_opcode = htobe32(((uint32_t)qp->sq_head & 0xffff) << 8 | (uint32_t)wr->opcode);
		wqe->ctrl.qpn_ds = htobe32(qp->ibv.qp_num << 8 | (uint32_t)(2 + wr->num_sge));
		int signaled = qp->sq_sig_all || (wr->send_flags & IBV_SEND_SIGNALED);
		wqe->ctrl.flags = (uint8_t)(signaled ? 8 : 0);
		wqe->ctrl.imm = wr->imm_data;
		wqe->raddr.raddr = htobe64(wr->wr.rdma.remote_addr);
		wqe->raddr.rkey = htobe32(wr->wr.rdma.rkey);
		uint32_t bytes = 0;
		for (int i = 0; i < wr->num_sge; i++) {
			wqe->data[i].byte_count = htobe32(wr->sg_list[i].length);
			wqe->data[i].lkey = htobe32(wr->sg_list[i].lkey);
			wqe->data[i].addr = htobe64(wr->sg_list[i].addr);
			bytes += wr->sg_list[i].length;
		}
		qp->sq_wrid[idx] = wr->wr_id;
		if (signaled)
			queue_completion((struct stub_cq *)qp->ibv.send_cq, wr->wr_id, wc_opcode(wr->opcode), bytes,
					 qp->ibv.qp_num);
		qp->sq_head++;
		qp->sends++;
	}
	if (rc)
		*bad_wr = wr;
	/* doorbell record + "MMIO": the device then consumes everything posted */
	__atomic_store_n(&qp->doorbell[0], (uint32_t)qp->sq_head, __ATOMIC_RELEASE);
	qp->sq_tail = qp->sq_head;
	return rc;
}

static int stub_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	struct stub_qp *qp = (struct stub_qp *)ibqp;
	int rc = 0;

	for (; wr; wr = wr->next) {
		if ((uint32_t)wr->num_sge > qp->max_sge) {
			rc = EINVAL;
			break;
		}
		if (qp->rq_head - qp->rq_tail > qp->rq_mask) {
			rc = ENOMEM;
			break;
		}
		uint32_t idx = (uint32_t)qp->rq_head & qp->rq_mask;
		struct stub_recv_wqe *wqe = &qp->rq[idx];
		int i;
		for (i = 0; i < wr->num_sge; i++) {
			wqe->data[i].byte_count = htobe32(wr->sg_list[i].length);
			wqe->data[i].lkey = htobe32(wr->sg_list[i].lkey);
			wqe->data[i].addr = htobe64(wr->sg_list[i].addr);
		}
		if (i < STUB_MAX_SGE)
			wqe->data[i].lkey = htobe32(0x100);   /* mlx5's invalid-lkey terminator */
		qp->rq_wrid[idx] = wr->wr_id;
		qp->rq_head++;
		qp->recvs++;
	}
	if (rc)
		*bad_wr = wr;
	__atomic_store_n(&qp->doorbell[1], (uint32_t)qp->rq_head, __ATOMIC_RELEASE);
	qp->rq_tail = qp->rq_head;   /* receives "consumed" by arriving messages, so the ring never fills */
	return rc;
}

static int stub_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)cq;
	(void)solicited_only;
	return 0;
}

struct ibv_context *stub_open(void)
{
	struct stub_context *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return NULL;
	int fd = eventfd(0, EFD_CLOEXEC);   /* the Java Context makes async_fd non-blocking: it must be real */
	if (fd < 0) {
		free(ctx);
		return NULL;
	}
	ctx->ibv.device = NULL;
	ctx->ibv.cmd_fd = -1;
	ctx->ibv.async_fd = fd;
	ctx->ibv.num_comp_vectors = 1;
	ctx->ibv.abi_compat = NULL;          /* not a verbs_context: no extended operations */
	ctx->ibv.ops.poll_cq = stub_poll_cq;
	ctx->ibv.ops.req_notify_cq = stub_req_notify_cq;
	ctx->ibv.ops.post_send = stub_post_send;
	ctx->ibv.ops.post_recv = stub_post_recv;
	return &ctx->ibv;
}

int stub_close(struct ibv_context *ibctx)
{
	close(ibctx->async_fd);
	free(ibctx);
	return 0;
}

struct ibv_pd *stub_alloc_pd(struct ibv_context *ctx)
{
	struct stub_pd *pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	pd->ibv.context = ctx;
	pd->ibv.handle = next_handle++;
	return &pd->ibv;
}

int stub_dealloc_pd(struct ibv_pd *pd)
{
	free(pd);
	return 0;
}

struct ibv_cq *stub_create_cq(struct ibv_context *ctx, int cqe)
{
	if (cqe < 1 || (uint32_t)cqe > STUB_CQ_DEPTH) {
		errno = EINVAL;
		return NULL;
	}
	struct stub_cq *cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	cq->ring = calloc(STUB_CQ_DEPTH, sizeof(struct ibv_wc));
	if (!cq->ring) {
		free(cq);
		return NULL;
	}
	cq->mask = STUB_CQ_DEPTH - 1;
	cq->ibv.context = ctx;
	cq->ibv.handle = next_handle++;
	cq->ibv.cqe = cqe;
	return &cq->ibv;
}

int stub_destroy_cq(struct ibv_cq *ibcq)
{
	struct stub_cq *cq = (struct stub_cq *)ibcq;
	free(cq->ring);
	free(cq);
	return 0;
}

int stub_cq_feed(struct ibv_cq *ibcq, int per_poll)
{
	struct stub_cq *cq = (struct stub_cq *)ibcq;
	if (per_poll < 0) {
		errno = EINVAL;
		return -1;
	}
	cq->per_poll = (uint32_t)per_poll;
	cq->prod = cq->cons = 0;
	if (per_poll > 0)
		for (uint32_t i = 0; i <= cq->mask; i++) {
			struct ibv_wc *wc = &cq->ring[i];
			memset(wc, 0, sizeof(*wc));
			wc->wr_id = i;
			wc->status = IBV_WC_SUCCESS;
			wc->opcode = IBV_WC_RECV;
			wc->byte_len = 64;
			wc->qp_num = 0x100;
		}
	return 0;
}

struct ibv_qp *stub_create_qp(struct ibv_pd *pd, struct ibv_cq *send_cq, struct ibv_cq *recv_cq,
			      int max_send_wr, int max_recv_wr, int max_sge, int sq_sig_all)
{
	if (max_send_wr < 1 || max_recv_wr < 1 || max_sge < 0 || max_sge > STUB_MAX_SGE) {
		errno = EINVAL;
		return NULL;
	}
	struct stub_qp *qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	uint32_t sq = pow2_at_least((uint32_t)max_send_wr), rq = pow2_at_least((uint32_t)max_recv_wr);
	qp->sq = calloc(sq, sizeof(*qp->sq));
	qp->sq_wrid = calloc(sq, sizeof(uint64_t));
	qp->rq = calloc(rq, sizeof(*qp->rq));
	qp->rq_wrid = calloc(rq, sizeof(uint64_t));
	if (!qp->sq || !qp->sq_wrid || !qp->rq || !qp->rq_wrid) {
		stub_destroy_qp(&qp->ibv);
		errno = ENOMEM;
		return NULL;
	}
	qp->sq_mask = sq - 1;
	qp->rq_mask = rq - 1;
	qp->max_sge = (uint32_t)max_sge;
	qp->sq_sig_all = sq_sig_all ? 1 : 0;
	qp->ibv.context = pd->context;
	qp->ibv.pd = pd;
	qp->ibv.send_cq = send_cq;
	qp->ibv.recv_cq = recv_cq;
	qp->ibv.srq = NULL;
	qp->ibv.handle = next_handle++;
	qp->ibv.qp_num = next_qpn++;
	qp->ibv.state = IBV_QPS_RTS;
	qp->ibv.qp_type = IBV_QPT_RC;
	return &qp->ibv;
}

int stub_destroy_qp(struct ibv_qp *ibqp)
{
	struct stub_qp *qp = (struct stub_qp *)ibqp;
	free(qp->sq);
	free(qp->sq_wrid);
	free(qp->rq);
	free(qp->rq_wrid);
	free(qp);
	return 0;
}

struct ibv_mr *stub_reg_mr(struct ibv_pd *pd, void *addr, size_t length)
{
	struct stub_mr *mr = calloc(1, sizeof(*mr));
	if (!mr)
		return NULL;
	uint32_t h = next_handle++;
	mr->ibv.context = pd->context;
	mr->ibv.pd = pd;
	mr->ibv.addr = addr;
	mr->ibv.length = length;
	mr->ibv.handle = h;
	mr->ibv.lkey = h << 8 | 0x11;
	mr->ibv.rkey = h << 8 | 0x22;
	return &mr->ibv;
}

int stub_dereg_mr(struct ibv_mr *mr)
{
	free(mr);
	return 0;
}

uint64_t stub_qp_sends(struct ibv_qp *qp) { return ((struct stub_qp *)qp)->sends; }
uint64_t stub_qp_recvs(struct ibv_qp *qp) { return ((struct stub_qp *)qp)->recvs; }
uint64_t stub_cq_polled(struct ibv_cq *cq) { return ((struct stub_cq *)cq)->polled; }
uint64_t stub_cq_calls(struct ibv_cq *cq) { return ((struct stub_cq *)cq)->calls; }

long stub_c_post_send_loop(struct ibv_qp *qp, struct ibv_send_wr *wr, long n)
{
	struct ibv_send_wr *bad;
	long failed = 0;
	for (long i = 0; i < n; i++) {
		wr->wr_id = (uint64_t)i;
		failed += ibv_post_send(qp, wr, &bad) != 0;
	}
	return failed;
}

long stub_c_post_recv_loop(struct ibv_qp *qp, struct ibv_recv_wr *wr, long n)
{
	struct ibv_recv_wr *bad;
	long failed = 0;
	for (long i = 0; i < n; i++) {
		wr->wr_id = (uint64_t)i;
		failed += ibv_post_recv(qp, wr, &bad) != 0;
	}
	return failed;
}

long stub_c_poll_loop(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc, long n)
{
	long sum = 0;
	for (long i = 0; i < n; i++) {
		int got = ibv_poll_cq(cq, num_entries, wc);
		for (int j = 0; j < got; j++)
			sum += (long)wc[j].wr_id;
	}
	return sum;
}
