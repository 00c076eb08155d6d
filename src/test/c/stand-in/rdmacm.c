/*
 * rdmacm.c - the stand-in's librdmacm exports (the same library is also loaded as librdmacm.so.1).
 */
#include "stand_in.h"

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
#pragma GCC diagnostic pop

void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	(void)res;
}

void rdma_destroy_ep(struct rdma_cm_id *id)
{
	free(id);
}
