/*
 * controls.c - the stand-in's own controls and C loops, for the benchmark and the tests (stub_provider.h).
 */
#include "stand_in.h"

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

int stub_feed_all(int per_poll)
{
	for (int i = 0; i < STUB_MAX_LIVE; i++)
		if (live_cqs[i] && stub_cq_feed(&live_cqs[i]->ibv, per_poll))
			return -1;
	return 0;
}

uint64_t stub_total_calls(void)
{
	uint64_t total = 0;
	for (int i = 0; i < STUB_MAX_LIVE; i++) {
		if (live_qps[i])
			total += live_qps[i]->sends + live_qps[i]->recvs;
		if (live_cqs[i])
			total += live_cqs[i]->calls;
	}
	return total;
}

long stub_layout(int item)
{
	switch (item) {
	case STUB_SEND_WR_SIZE: return sizeof(struct ibv_send_wr);
	case STUB_SEND_WR_WR_ID: return offsetof(struct ibv_send_wr, wr_id);
	case STUB_SEND_WR_NEXT: return offsetof(struct ibv_send_wr, next);
	case STUB_SEND_WR_SG_LIST: return offsetof(struct ibv_send_wr, sg_list);
	case STUB_SEND_WR_NUM_SGE: return offsetof(struct ibv_send_wr, num_sge);
	case STUB_SEND_WR_OPCODE: return offsetof(struct ibv_send_wr, opcode);
	case STUB_SEND_WR_SEND_FLAGS: return offsetof(struct ibv_send_wr, send_flags);
	case STUB_SEND_WR_IMM_DATA: return offsetof(struct ibv_send_wr, imm_data);
	case STUB_SEND_WR_REMOTE_ADDR: return offsetof(struct ibv_send_wr, wr.rdma.remote_addr);
	case STUB_SEND_WR_RKEY: return offsetof(struct ibv_send_wr, wr.rdma.rkey);
	case STUB_RECV_WR_SIZE: return sizeof(struct ibv_recv_wr);
	case STUB_RECV_WR_WR_ID: return offsetof(struct ibv_recv_wr, wr_id);
	case STUB_RECV_WR_NEXT: return offsetof(struct ibv_recv_wr, next);
	case STUB_RECV_WR_SG_LIST: return offsetof(struct ibv_recv_wr, sg_list);
	case STUB_RECV_WR_NUM_SGE: return offsetof(struct ibv_recv_wr, num_sge);
	case STUB_SGE_SIZE: return sizeof(struct ibv_sge);
	case STUB_SGE_ADDR: return offsetof(struct ibv_sge, addr);
	case STUB_SGE_LENGTH: return offsetof(struct ibv_sge, length);
	case STUB_SGE_LKEY: return offsetof(struct ibv_sge, lkey);
	case STUB_WC_SIZE: return sizeof(struct ibv_wc);
	case STUB_WC_WR_ID: return offsetof(struct ibv_wc, wr_id);
	default: return -1;
	}
}

void *stub_post_send_op(struct ibv_context *ctx) { return (void *)ctx->ops.post_send; }
void *stub_post_recv_op(struct ibv_context *ctx) { return (void *)ctx->ops.post_recv; }
void *stub_poll_cq_op(struct ibv_context *ctx) { return (void *)ctx->ops.poll_cq; }

uint64_t stub_qp_sends(struct ibv_qp *qp) { return ((struct stub_qp *)qp)->sends; }
uint64_t stub_qp_recvs(struct ibv_qp *qp) { return ((struct stub_qp *)qp)->recvs; }
uint64_t stub_cq_polled(struct ibv_cq *cq) { return ((struct stub_cq *)cq)->polled; }
uint64_t stub_cq_calls(struct ibv_cq *cq) { return ((struct stub_cq *)cq)->calls; }

uint32_t stub_qp_last_lkey(struct ibv_qp *ibqp)
{
	struct stub_qp *qp = (struct stub_qp *)ibqp;
	return be32toh(qp->sq[(uint32_t)(qp->sq_head - 1) & qp->sq_mask].data[0].lkey);
}

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
