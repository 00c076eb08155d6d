/*
 * data_path.c - the stand-in's post_send, post_recv and poll_cq (ctx->ops), modelled on what real providers do in
 * user space (mlx5 is the model): post_send walks the chain, checks each request, writes a work-queue entry in the
 * device's big-endian format (control segment, remote-address segment, one data segment per SGE) into the send ring,
 * remembers wr_id in a side array, queues a completion for a signaled request, and rings a doorbell (here a release
 * store to an ordinary word: a real one is an MMIO write, which would dominate everything and is the same for every
 * caller). post_recv writes data segments into the receive ring. poll_cq copies up to num_entries completions out of
 * the completion ring. The "device" consumes every work-queue entry as soon as the doorbell rings, so the rings never
 * fill; posts do not check the queue pair's state.
 */
#include "stand_in.h"

int stub_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
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

int stub_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
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

int stub_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
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

int stub_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)cq;
	(void)solicited_only;
	return 0;
}
