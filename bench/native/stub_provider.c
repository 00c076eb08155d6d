/*
 * stub_provider.c - a stand-in libibverbs.so.1 (and librdmacm.so.1) with no device behind it: see stub_provider.h.
 * Built by bench/native-datapath with
 *   cc -O2 -fPIC -shared -Wl,-soname,libibverbs.so.1 -o bench/target/native/libibverbs.so.1 bench/native/stub_provider.c
 * plus a link librdmacm.so.1 -> libibverbs.so.1 beside it (the loader maps the one file once).
 *
 * The control path exports the functions Panama Verbs and a DiSNI program's setup call, under libibverbs' and
 * librdmacm's names, and makes the objects below. What the data-path functions do is modelled on what real
 * providers do in user space (mlx5 is the model): post_send walks the chain, checks each request, writes a
 * work-queue entry in the device's big-endian format (control segment, remote-address segment, one data segment
 * per SGE) into the send ring, remembers wr_id in a side array, queues a completion for a signaled request, and
 * rings a doorbell (here a release store to an ordinary word: a real one is an MMIO write, which would dominate
 * everything and is the same for every caller). post_recv writes data segments into the receive ring. poll_cq
 * copies up to num_entries completions out of the completion ring. The "device" consumes every work-queue entry
 * as soon as the doorbell rings, so the rings never fill; posts do not check the queue pair's state.
 */
#define _GNU_SOURCE
#include "stub_provider.h"

#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <rdma/rdma_cma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
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

/* What is alive, for the controls that reach objects a program made through an API without handles (DiSNI's). */
#define STUB_MAX_LIVE 64
static struct stub_cq *live_cqs[STUB_MAX_LIVE];
static struct stub_qp *live_qps[STUB_MAX_LIVE];

static int live_add(void **table, void *object)
{
	for (int i = 0; i < STUB_MAX_LIVE; i++)
		if (!table[i]) {
			table[i] = object;
			return 0;
		}
	errno = ENOMEM;
	return -1;
}

static void live_remove(void **table, void *object)
{
	for (int i = 0; i < STUB_MAX_LIVE; i++)
		if (table[i] == object)
			table[i] = NULL;
}

static uint32_t next_handle = 1;
static uint32_t next_qpn = 0x100;

static void stub_qp_free(struct stub_qp *qp)
{
	live_remove((void **)live_qps, qp);
	free(qp->sq);
	free(qp->sq_wrid);
	free(qp->rq);
	free(qp->rq_wrid);
	free(qp);
}

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

/*
 * ---- the devices: "stub0", one port, one GID, generous limits, not PVRDMA (vendor 0x5eed); and "stub1", the same
 * but whose contexts lack the legacy data-path operations (as a provider with only extended ones would) ----
 */

#define STUB_VENDOR 0x5eed
#define STUB_GUID 0x5eed00000000005eULL   /* host order; libibverbs hands GUIDs out big-endian */

static struct ibv_device stub_device = {
	.node_type = IBV_NODE_CA,
	.transport_type = IBV_TRANSPORT_IB,
	.name = "stub0",
	.dev_name = "uverbs-stub0",
	.dev_path = "/nonexistent/stub0",      /* no sysfs: the GID table comes from _ibv_query_gid_table */
	.ibdev_path = "/nonexistent/stub0",
};
static struct ibv_device stub_device_without_ops = {
	.node_type = IBV_NODE_CA,
	.transport_type = IBV_TRANSPORT_IB,
	.name = "stub1",
	.dev_name = "uverbs-stub1",
	.dev_path = "/nonexistent/stub1",
	.ibdev_path = "/nonexistent/stub1",
};

/* fe80::5eed, the port's only GID (an IB-type link-local GID). */
static const uint8_t stub_gid[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x5e, 0xed };

struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct ibv_device **list = calloc(3, sizeof(*list));
	if (!list) {
		errno = ENOMEM;
		return NULL;
	}
	list[0] = &stub_device;
	list[1] = &stub_device_without_ops;
	if (num_devices)
		*num_devices = 2;
	return list;
}

void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *ibv_get_device_name(struct ibv_device *device)
{
	return device->name;
}

__be64 ibv_get_device_guid(struct ibv_device *device)
{
	(void)device;
	return htobe64(STUB_GUID);
}

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct stub_context *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return NULL;
	int fd = eventfd(0, EFD_CLOEXEC);   /* the Java Context makes async_fd non-blocking: it must be real */
	if (fd < 0) {
		free(ctx);
		return NULL;
	}
	ctx->ibv.device = device;
	ctx->ibv.cmd_fd = -1;
	ctx->ibv.async_fd = fd;
	ctx->ibv.num_comp_vectors = 1;
	ctx->ibv.abi_compat = NULL;          /* not a verbs_context: ibv_query_port is the exported function */
	if (device != &stub_device_without_ops) {
		ctx->ibv.ops.poll_cq = stub_poll_cq;
		ctx->ibv.ops.req_notify_cq = stub_req_notify_cq;
		ctx->ibv.ops.post_send = stub_post_send;
		ctx->ibv.ops.post_recv = stub_post_recv;
	}
	/* ops.post_srq_recv stays NULL: shared receive queues are refused before ibv_create_srq */
	return &ctx->ibv;
}

int ibv_close_device(struct ibv_context *ibctx)
{
	close(ibctx->async_fd);
	free(ibctx);
	return 0;
}

int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *attr)
{
	(void)context;
	memset(attr, 0, sizeof(*attr));
	snprintf(attr->fw_ver, sizeof(attr->fw_ver), "stub");
	attr->node_guid = htobe64(STUB_GUID);
	attr->sys_image_guid = htobe64(STUB_GUID);
	attr->max_mr_size = UINT64_MAX;
	attr->page_size_cap = 4096;
	attr->vendor_id = STUB_VENDOR;
	attr->vendor_part_id = 1;
	attr->max_qp = 1024;
	attr->max_qp_wr = 4096;
	attr->max_sge = STUB_MAX_SGE;
	attr->max_sge_rd = STUB_MAX_SGE;
	attr->max_cq = 64;
	attr->max_cqe = STUB_CQ_DEPTH;
	attr->max_mr = 1024;
	attr->max_pd = 64;
	attr->max_qp_rd_atom = 16;
	attr->max_qp_init_rd_atom = 16;
	attr->atomic_cap = IBV_ATOMIC_NONE;
	attr->max_srq = 4;          /* claimed, so that the missing ops.post_srq_recv is what refuses them */
	attr->max_srq_wr = 64;
	attr->max_srq_sge = STUB_MAX_SGE;
	attr->max_pkeys = 1;
	attr->phys_port_cnt = 1;
	return 0;
}

int ibv_query_port(struct ibv_context *context, uint8_t port_num, struct _compat_ibv_port_attr *compat)
{
	(void)context;
	if (port_num != 1)
		return EINVAL;
	struct ibv_port_attr *attr = (struct ibv_port_attr *)compat;   /* the caller's struct is the full one */
	attr->state = IBV_PORT_ACTIVE;
	attr->max_mtu = IBV_MTU_4096;
	attr->active_mtu = IBV_MTU_4096;
	attr->gid_tbl_len = 1;
	attr->port_cap_flags = 0;
	attr->max_msg_sz = 1u << 31;
	attr->pkey_tbl_len = 1;
	attr->lid = 1;
	attr->sm_lid = 1;
	attr->lmc = 0;
	attr->active_width = 1;
	attr->active_speed = 1;
	attr->phys_state = 5;   /* LinkUp */
	attr->link_layer = IBV_LINK_LAYER_INFINIBAND;
	return 0;
}

int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
	(void)context;
	if (port_num != 1 || index < 0) {
		errno = EINVAL;
		return -1;
	}
	memset(gid, 0, sizeof(*gid));
	if (index == 0)
		memcpy(gid->raw, stub_gid, sizeof(stub_gid));
	return 0;
}

ssize_t _ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries, size_t max_entries,
			     uint32_t flags, size_t entry_size)
{
	(void)context;
	if (flags || entry_size < sizeof(*entries))
		return -EINVAL;
	if (max_entries < 1)
		return -EINVAL;
	memset(entries, 0, sizeof(*entries));
	memcpy(entries->gid.raw, stub_gid, sizeof(stub_gid));
	entries->gid_index = 0;
	entries->port_num = 1;
	entries->gid_type = IBV_GID_TYPE_IB;
	entries->ndev_ifindex = 0;
	return 1;
}

struct ibv_pd *ibv_alloc_pd(struct ibv_context *ctx)
{
	struct stub_pd *pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	pd->ibv.context = ctx;
	pd->ibv.handle = next_handle++;
	return &pd->ibv;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	free(pd);
	return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context, struct ibv_comp_channel *channel,
			     int comp_vector)
{
	(void)comp_vector;
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
		errno = ENOMEM;
		return NULL;
	}
	if (live_add((void **)live_cqs, cq)) {
		free(cq->ring);
		free(cq);
		return NULL;
	}
	cq->mask = STUB_CQ_DEPTH - 1;
	cq->ibv.context = ctx;
	cq->ibv.channel = channel;
	cq->ibv.cq_context = cq_context;
	cq->ibv.handle = next_handle++;
	cq->ibv.cqe = cqe;   /* what was asked for, as rxe grants it (the ring behind it is always STUB_CQ_DEPTH) */
	return &cq->ibv;
}

int ibv_destroy_cq(struct ibv_cq *ibcq)
{
	struct stub_cq *cq = (struct stub_cq *)ibcq;
	live_remove((void **)live_cqs, cq);
	free(cq->ring);
	free(cq);
	return 0;
}

/* Completion channels: a descriptor that never becomes readable (the stub raises no completion events). */
/* calloc(size) whose int at fd_offset is an eventfd nobody writes: an event channel on which no event comes */
static void *alloc_with_idle_fd(size_t size, size_t fd_offset)
{
	char *object = calloc(1, size);
	if (!object)
		return NULL;
	int fd = eventfd(0, EFD_CLOEXEC);
	if (fd < 0) {
		free(object);
		return NULL;
	}
	memcpy(object + fd_offset, &fd, sizeof(fd));
	return object;
}

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	struct ibv_comp_channel *channel = alloc_with_idle_fd(sizeof(*channel), offsetof(struct ibv_comp_channel, fd));
	if (channel)
		channel->context = context;
	return channel;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	close(channel->fd);
	free(channel);
	return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	(void)cq;
	(void)nevents;
}

/* Asynchronous events: the stub raises none (async_fd never becomes readable); ibv_get_async_event is below. */
void ibv_ack_async_event(struct ibv_async_event *event)
{
	(void)event;
}

static struct ibv_qp *stub_qp_new(struct ibv_pd *pd, struct ibv_qp_init_attr *init)
{
	struct ibv_qp_cap *cap = &init->cap;
	if (init->qp_type != IBV_QPT_RC || init->srq || cap->max_send_wr < 1 || cap->max_recv_wr < 1
	    || cap->max_send_sge > STUB_MAX_SGE || cap->max_recv_sge > STUB_MAX_SGE || cap->max_inline_data > 0
	    || cap->max_send_wr > 4096 || cap->max_recv_wr > 4096) {
		errno = EINVAL;   /* the stub makes RC queue pairs without SRQ or inline data */
		return NULL;
	}
	struct stub_qp *qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	uint32_t sq = pow2_at_least(cap->max_send_wr), rq = pow2_at_least(cap->max_recv_wr);
	qp->sq = calloc(sq, sizeof(*qp->sq));
	qp->sq_wrid = calloc(sq, sizeof(uint64_t));
	qp->rq = calloc(rq, sizeof(*qp->rq));
	qp->rq_wrid = calloc(rq, sizeof(uint64_t));
	if (!qp->sq || !qp->sq_wrid || !qp->rq || !qp->rq_wrid || live_add((void **)live_qps, qp)) {
		stub_qp_free(qp);
		errno = ENOMEM;
		return NULL;
	}
	qp->sq_mask = sq - 1;
	qp->rq_mask = rq - 1;
	qp->max_sge = cap->max_send_sge > cap->max_recv_sge ? cap->max_send_sge : cap->max_recv_sge;
	qp->sq_sig_all = init->sq_sig_all ? 1 : 0;
	qp->ibv.context = pd->context;
	qp->ibv.qp_context = init->qp_context;
	qp->ibv.pd = pd;
	qp->ibv.send_cq = init->send_cq;
	qp->ibv.recv_cq = init->recv_cq;
	qp->ibv.srq = NULL;
	qp->ibv.handle = next_handle++;
	qp->ibv.qp_num = next_qpn++;
	qp->ibv.state = IBV_QPS_RESET;
	qp->ibv.qp_type = IBV_QPT_RC;
	/* what was granted, as providers write it back: the rounded-up depths */
	cap->max_send_wr = sq;
	cap->max_recv_wr = rq;
	return &qp->ibv;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *init)
{
	return stub_qp_new(pd, init);
}

int ibv_destroy_qp(struct ibv_qp *ibqp)
{
	stub_qp_free((struct stub_qp *)ibqp);
	return 0;
}

/* Any transition the caller asks for (the stub has no peer to check against); the state is what ibv_query_qp says. */
int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	if (attr_mask & IBV_QP_STATE)
		qp->state = attr->qp_state;
	return 0;
}

int ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask, struct ibv_qp_init_attr *init)
{
	struct stub_qp *qp = (struct stub_qp *)ibqp;
	(void)attr_mask;
	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	attr->qp_state = ibqp->state;
	attr->cur_qp_state = ibqp->state;
	attr->port_num = 1;
	attr->cap.max_send_wr = qp->sq_mask + 1;
	attr->cap.max_recv_wr = qp->rq_mask + 1;
	attr->cap.max_send_sge = qp->max_sge;
	attr->cap.max_recv_sge = qp->max_sge;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->qp_type = ibqp->qp_type;
	init->sq_sig_all = (int)qp->sq_sig_all;
	init->cap = attr->cap;
	return 0;
}

static struct ibv_mr *stub_mr_new(struct ibv_pd *pd, void *addr, size_t length)
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

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	(void)access;
	return stub_mr_new(pd, addr, length);
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access)
{
	(void)iova;
	(void)access;
	return stub_mr_new(pd, addr, length);
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	free(mr);
	return 0;
}

/* What the stub does not have: refused as a provider without them refuses them. */
struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *init)
{
	(void)pd;
	(void)init;
	errno = EOPNOTSUPP;
	return NULL;
}

int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
{
	(void)srq;
	(void)attr;
	(void)mask;
	return EOPNOTSUPP;
}

int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	(void)srq;
	(void)attr;
	return EOPNOTSUPP;
}

int ibv_destroy_srq(struct ibv_srq *srq)
{
	(void)srq;
	return EOPNOTSUPP;
}

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	(void)pd;
	(void)attr;
	errno = EOPNOTSUPP;
	return NULL;
}

int ibv_destroy_ah(struct ibv_ah *ah)
{
	(void)ah;
	return EOPNOTSUPP;
}

/*
 * ---- librdmacm, the part a DiSNI program's setup calls (the same file is also loaded as librdmacm.so.1) ----
 * An id binds to any address, on the stub device's port 1; the context is librdmacm's, opened on the first bind
 * and kept for the life of the process, as librdmacm keeps its devices open. No connection is ever made: the
 * event channel's descriptor never becomes readable, and connecting calls fail with ENOSYS.
 */

static struct ibv_context *cm_verbs;

struct rdma_event_channel *rdma_create_event_channel(void)
{
	return alloc_with_idle_fd(sizeof(struct rdma_event_channel), offsetof(struct rdma_event_channel, fd));
}

void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	close(channel->fd);
	free(channel);
}

int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context,
		   enum rdma_port_space ps)
{
	struct rdma_cm_id *cm_id = calloc(1, sizeof(*cm_id));
	if (!cm_id) {
		errno = ENOMEM;
		return -1;
	}
	cm_id->channel = channel;
	cm_id->context = context;
	cm_id->ps = ps;
	*id = cm_id;
	return 0;
}

int rdma_destroy_id(struct rdma_cm_id *id)
{
	free(id);
	return 0;
}

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	if (!cm_verbs && !(cm_verbs = ibv_open_device(&stub_device)))
		return -1;
	size_t size = addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	memcpy(&id->route.addr.src_addr, addr, size);
	id->verbs = cm_verbs;
	id->port_num = 1;
	return 0;
}

int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *init)
{
	if (!id->verbs || pd->context != id->verbs) {
		errno = EINVAL;
		return -1;
	}
	struct ibv_qp *qp = stub_qp_new(pd, init);
	if (!qp)
		return -1;
	qp->state = IBV_QPS_INIT;   /* as rdma_create_qp leaves a bound id's queue pair */
	id->qp = qp;
	return 0;
}

void rdma_destroy_qp(struct rdma_cm_id *id)
{
	ibv_destroy_qp(id->qp);
	id->qp = NULL;
}

int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	(void)event;
	return 0;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"   /* the refusals look at nothing */
#define STUB_NO_CM(signature) signature { errno = ENOSYS; return -1; }
/* The events that never come: their descriptors never become readable, so a read finds nothing. */
#define STUB_NO_EVENT(signature) signature { errno = EAGAIN; return -1; }
STUB_NO_EVENT(int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context))
STUB_NO_EVENT(int ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event))
STUB_NO_EVENT(int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event))
STUB_NO_CM(int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src, struct sockaddr *dst, int timeout_ms))
STUB_NO_CM(int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms))
STUB_NO_CM(int rdma_listen(struct rdma_cm_id *id, int backlog))
STUB_NO_CM(int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param))
STUB_NO_CM(int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param))
STUB_NO_CM(int rdma_reject(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len))
STUB_NO_CM(int rdma_disconnect(struct rdma_cm_id *id))
STUB_NO_CM(int rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel))
STUB_NO_CM(int rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,
				struct rdma_addrinfo **res))
STUB_NO_CM(int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res, struct ibv_pd *pd,
			      struct ibv_qp_init_attr *qp_init_attr))

void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	(void)res;
}

void rdma_destroy_ep(struct rdma_cm_id *id)
{
	free(id);
}

/* ---- the stub's own controls, for the benchmark (stub_provider.h) ---- */

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
