/*
 * verbs.c - the stand-in's libibverbs exports: what Panama Verbs and a DiSNI program's setup call, on two devices
 * ("stub0", and "stub1" without the legacy data-path operations), making the objects of stand_in.h.
 */
#include "stand_in.h"

#include <sys/eventfd.h>

struct stub_cq *live_cqs[STUB_MAX_LIVE];
struct stub_qp *live_qps[STUB_MAX_LIVE];

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

/*
 * ---- the devices: "stub0", two ports with a GID each, generous limits, not PVRDMA (vendor 0x5eed); and "stub1", the same
 * but whose contexts lack the legacy data-path operations (as a provider with only extended ones would) ----
 */

#define STUB_VENDOR 0x5eed
#define STUB_GUID 0x5eed00000000005eULL   /* host order; libibverbs hands GUIDs out big-endian */

struct ibv_device stub_device = {
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

/* fe80::5eed, port 1's only GID (an IB-type link-local GID); port 2's ends in 0x5eee. */
static const uint8_t stub_gid[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x5e, 0xed };
#define STUB_PORTS 2

static void stub_port_gid(uint8_t port_num, uint8_t raw[16])
{
	memcpy(raw, stub_gid, sizeof(stub_gid));
	raw[15] += port_num - 1;
}

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

static struct ibv_mr *stub_alloc_null_mr(struct ibv_pd *pd);

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
	struct ibv_context *ibv = &ctx->vctx.context;
	ibv->device = device;
	ibv->cmd_fd = -1;
	ibv->async_fd = fd;
	ibv->num_comp_vectors = 1;
	if (device != &stub_device_without_ops) {
		ibv->ops.poll_cq = stub_poll_cq;
		ibv->ops.req_notify_cq = stub_req_notify_cq;
		ibv->ops.post_send = stub_post_send;
		ibv->ops.post_recv = stub_post_recv;
		/* extended, with alloc_null_mr its only operation: query_port and query_device_ex are NULL, so callers
		 * fall back to the exported ibv_query_port and to no on-demand paging, as verbs.h's inline functions do */
		ibv->abi_compat = __VERBS_ABI_IS_EXTENDED;
		ctx->vctx.sz = sizeof(ctx->vctx);
		ctx->vctx.alloc_null_mr = stub_alloc_null_mr;
	}
	/* ops.post_srq_recv stays NULL: shared receive queues are refused before ibv_create_srq */
	return ibv;
}

int ibv_close_device(struct ibv_context *ibctx)
{
	close(ibctx->async_fd);
	free((char *)ibctx - offsetof(struct stub_context, vctx.context));
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
	attr->phys_port_cnt = STUB_PORTS;   /* two, for the perftest tools' dual-port mode (-O) */
	return 0;
}

int ibv_query_port(struct ibv_context *context, uint8_t port_num, struct _compat_ibv_port_attr *compat)
{
	(void)context;
	if (port_num < 1 || port_num > STUB_PORTS)
		return EINVAL;
	struct ibv_port_attr *attr = (struct ibv_port_attr *)compat;   /* the caller's struct is the full one */
	attr->state = IBV_PORT_ACTIVE;
	attr->max_mtu = IBV_MTU_4096;
	attr->active_mtu = IBV_MTU_4096;
	attr->gid_tbl_len = 1;
	attr->port_cap_flags = 0;
	attr->max_msg_sz = 1u << 31;
	attr->pkey_tbl_len = 1;
	attr->lid = port_num;
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
	if (port_num < 1 || port_num > STUB_PORTS || index < 0) {
		errno = EINVAL;
		return -1;
	}
	memset(gid, 0, sizeof(*gid));
	if (index == 0)
		stub_port_gid(port_num, gid->raw);
	return 0;
}

ssize_t _ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries, size_t max_entries,
			     uint32_t flags, size_t entry_size)
{
	(void)context;
	if (flags || entry_size < sizeof(*entries))
		return -EINVAL;
	if (max_entries < STUB_PORTS)
		return -EINVAL;
	for (int port = 1; port <= STUB_PORTS; port++) {   /* each port's GID 0: entries of entry_size bytes */
		struct ibv_gid_entry *entry = (struct ibv_gid_entry *)((char *)entries + (port - 1) * entry_size);
		memset(entry, 0, sizeof(*entry));
		stub_port_gid(port, entry->gid.raw);
		entry->gid_index = 0;
		entry->port_num = port;
		entry->gid_type = IBV_GID_TYPE_IB;
		entry->ndev_ifindex = 0;
	}
	return STUB_PORTS;
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
void *alloc_with_idle_fd(size_t size, size_t fd_offset)
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

/* Asynchronous events: the stub raises none (async_fd never becomes readable); ibv_get_async_event is at the end. */
void ibv_ack_async_event(struct ibv_async_event *event)
{
	(void)event;
}

struct ibv_qp *stub_qp_new(struct ibv_pd *pd, struct ibv_qp_init_attr *init)
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

/* A null region as mlx5 makes one: no address, the largest length, a local key only. */
static struct ibv_mr *stub_alloc_null_mr(struct ibv_pd *pd)
{
	struct ibv_mr *mr = stub_mr_new(pd, NULL, SIZE_MAX);
	if (mr) {
		mr->lkey = STUB_NULL_LKEY;
		mr->rkey = 0;
	}
	return mr;
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

/* The events that never come: their descriptors never become readable, so a read finds nothing. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define STUB_NO_EVENT(signature) signature { errno = EAGAIN; return -1; }
STUB_NO_EVENT(int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context))
STUB_NO_EVENT(int ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event))
#pragma GCC diagnostic pop
