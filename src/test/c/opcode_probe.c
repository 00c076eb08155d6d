/*
 * opcode_probe - what a device really delivers for each send opcode, measured with plain
 * libibverbs (no Panama Verbs), so that the library's gates rest on evidence.
 *
 * Two RC queue pairs on one device are connected to each other (loopback). For each opcode a fresh
 * pair is made, the responder posts one receive (a device that turns the request into a SEND then
 * delivers it there instead of retrying "receiver not ready" forever), the requester posts the
 * request, and the probe reports the completions of both sides and where the bytes went.
 *
 * Usage: opcode_probe DEVICE GID_INDEX        (port 1; prints one line per opcode; exit 0 = ran)
 * Built and run by scripts/test-pvrdma on the real vmw_pvrdma device of QEMU's pvrdma model.
 */
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BUFFER = 8192, LENGTH = 64, TARGET = 0, RECV_AT = 4096, READ_SOURCE = 512, READ_INTO = 256 };

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr_a, *mr_b;
static unsigned char *buf_a, *buf_b;
static union ibv_gid gid;
static int gid_index;

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void fill(unsigned char *p, int seed)
{
    for (int i = 0; i < LENGTH; i++)
        p[i] = (unsigned char)(seed * 31 + i * 7 + 1);
}

static int holds(const unsigned char *p, int seed)
{
    unsigned char expected[LENGTH];
    fill(expected, seed);
    return memcmp(p, expected, LENGTH) == 0;
}

static void to_rts(struct ibv_qp *qp, uint32_t remote_qpn)
{
    struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
        .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ };
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
        die("ibv_modify_qp INIT");
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = remote_qpn;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.dgid = gid;
    a.ah_attr.grh.sgid_index = (uint8_t)gid_index;
    a.ah_attr.grh.hop_limit = 64;
    a.ah_attr.port_num = 1;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN
                      | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
        die("ibv_modify_qp RTR");
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 1;
    a.max_rd_atomic = 1;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN
                      | IBV_QP_MAX_QP_RD_ATOMIC))
        die("ibv_modify_qp RTS");
}

/* Waits up to 20 s for one completion on cq; returns 1 and fills wc, or 0. */
static int await_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
    time_t deadline = time(NULL) + 20;
    while (time(NULL) < deadline) {
        int n = ibv_poll_cq(cq, 1, wc);
        if (n < 0)
            die("ibv_poll_cq");
        if (n == 1)
            return 1;
    }
    return 0;
}

static void describe(const char *side, struct ibv_cq *cq)
{
    struct ibv_wc wc;
    if (!await_one(cq, &wc)) {
        printf(" %s: no completion in 20 s;", side);
        return;
    }
    printf(" %s: %s, opcode %d, %u bytes", side, ibv_wc_status_str(wc.status), wc.opcode, wc.byte_len);
    if (wc.wc_flags & IBV_WC_WITH_IMM)
        printf(", imm 0x%08x", ntohl(wc.imm_data));
    else
        printf(", no imm");
    printf(";");
}

/* Splits LENGTH bytes at base into n entries (n = 1 or 3) with gaps of 16 bytes between them. */
static int scatter(struct ibv_sge *sge, int n, unsigned char *base, uint32_t lkey)
{
    static const uint32_t parts[3] = { 20, 24, 20 };
    uintptr_t at = (uintptr_t)base;
    for (int i = 0; i < n; i++) {
        sge[i] = (struct ibv_sge){ .addr = at, .length = n == 1 ? LENGTH : parts[i], .lkey = lkey };
        at += sge[i].length + (n == 1 ? 0 : 16);
    }
    return n;
}

/* Whether the n entries made by scatter() hold the LENGTH bytes of fill(seed), in order. */
static int gathered(const struct ibv_sge *sge, int n, int seed)
{
    unsigned char joined[LENGTH];
    size_t at = 0;
    for (int i = 0; i < n && at < LENGTH; i++) {
        size_t part = sge[i].length < LENGTH - at ? sge[i].length : LENGTH - at;
        memcpy(joined + at, (const void *)(uintptr_t)sge[i].addr, part);
        at += part;
    }
    return holds(joined, seed);
}

/* Probes one request: opcode with send_sges gather entries into recv_sges scatter entries. */
static void probe(const char *name, enum ibv_wr_opcode opcode, int seed, int send_sges, int recv_sges)
{
    struct ibv_cq *cq_a = ibv_create_cq(ctx, 4, NULL, NULL, 0), *cq_b = ibv_create_cq(ctx, 4, NULL, NULL, 0);
    if (!cq_a || !cq_b)
        die("ibv_create_cq");
    struct ibv_qp_init_attr init = { .qp_type = IBV_QPT_RC, .cap = { .max_send_wr = 4, .max_recv_wr = 4,
        .max_send_sge = 1, .max_recv_sge = 1 } };
    init.cap.max_send_sge = init.cap.max_recv_sge = 3;
    init.send_cq = init.recv_cq = cq_a;
    struct ibv_qp *qp_a = ibv_create_qp(pd, &init);
    init.send_cq = init.recv_cq = cq_b;
    struct ibv_qp *qp_b = ibv_create_qp(pd, &init);
    if (!qp_a || !qp_b)
        die("ibv_create_qp");
    to_rts(qp_a, qp_b->qp_num);
    to_rts(qp_b, qp_a->qp_num);

    memset(buf_a, 0, BUFFER);
    memset(buf_b, 0, BUFFER);
    int read = opcode == IBV_WR_RDMA_READ;
    struct ibv_sge rsge[3], sge[3];
    scatter(sge, send_sges, buf_a + (read ? READ_INTO : 0), mr_a->lkey);
    scatter(rsge, recv_sges, buf_b + RECV_AT, mr_b->lkey);
    if (recv_sges == 1)
        rsge[0].length = 1024;
    unsigned char *source = read ? buf_a + READ_INTO : buf_a;
    fill(source, read ? seed + 2 : seed); /* contiguous; scatter() with gaps reads it as is */
    if (send_sges == 3) {               /* place the pattern where the gather entries read it */
        unsigned char pattern[LENGTH];
        fill(pattern, read ? seed + 2 : seed);
        memset(source, 0, 128);
        for (int i = 0, at = 0; i < 3; at += sge[i].length, i++)
            memcpy((void *)(uintptr_t)sge[i].addr, pattern + at, sge[i].length);
    }
    fill(buf_b + READ_SOURCE, seed + 1);
    struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = rsge, .num_sge = recv_sges }, *bad_rwr;
    if (ibv_post_recv(qp_b, &rwr, &bad_rwr))
        die("ibv_post_recv");
    struct ibv_send_wr wr = { .wr_id = 1, .sg_list = sge, .num_sge = send_sges, .opcode = opcode,
        .send_flags = IBV_SEND_SIGNALED, .imm_data = htonl(0x11223344) }, *bad_wr;
    wr.wr.rdma.remote_addr = (uintptr_t)(buf_b + (read ? READ_SOURCE : TARGET));
    wr.wr.rdma.rkey = mr_b->rkey;
    if (ibv_post_send(qp_a, &wr, &bad_wr))
        die("ibv_post_send");

    printf("%s:", name);
    describe("requester", cq_a);
    describe("responder", cq_b);
    if (read)
        printf(" local buffer %s;", holds(buf_a + READ_INTO, seed + 1) ? "holds the remote bytes (read)"
               : holds(buf_a + READ_INTO, seed + 2) ? "unchanged (not read)" : "damaged");
    else if (opcode != IBV_WR_SEND && opcode != IBV_WR_SEND_WITH_IMM)
        printf(" remote address %s;", holds(buf_b + TARGET, seed) ? "holds the bytes (written)" : "unchanged (not written)");
    printf(" receive buffer %s\n", gathered(rsge, recv_sges, read ? seed + 2 : seed)
           ? (read ? "holds the requester's local buffer (sent, not read)" : "holds the requester's bytes")
           : "does not hold the requester's bytes");
    fflush(stdout);
    ibv_destroy_qp(qp_a);
    ibv_destroy_qp(qp_b);
    ibv_destroy_cq(cq_a);
    ibv_destroy_cq(cq_b);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s DEVICE GID_INDEX\n", argv[0]);
        return 2;
    }
    gid_index = atoi(argv[2]);
    struct ibv_device **list = ibv_get_device_list(NULL);
    for (int i = 0; list && list[i]; i++)
        if (strcmp(ibv_get_device_name(list[i]), argv[1]) == 0)
            ctx = ibv_open_device(list[i]);
    ibv_free_device_list(list);
    if (!ctx) {
        fprintf(stderr, "opcode_probe: cannot open %s\n", argv[1]);
        return 1;
    }
    if (ibv_query_gid(ctx, 1, gid_index, &gid))
        die("ibv_query_gid");
    pd = ibv_alloc_pd(ctx);
    if (!pd || posix_memalign((void **)&buf_a, 4096, BUFFER) || posix_memalign((void **)&buf_b, 4096, BUFFER))
        die("setup");
    int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    mr_a = ibv_reg_mr(pd, buf_a, BUFFER, access);
    mr_b = ibv_reg_mr(pd, buf_b, BUFFER, access);
    if (!mr_a || !mr_b)
        die("ibv_reg_mr");
    printf("%s: memory regions: lkey 0x%x / 0x%x, rkey 0x%x / 0x%x\n", argv[1], mr_a->lkey, mr_b->lkey,
           mr_a->rkey, mr_b->rkey);
    probe("SEND", IBV_WR_SEND, 1, 1, 1);
    probe("SEND_WITH_IMM", IBV_WR_SEND_WITH_IMM, 2, 1, 1);
    probe("RDMA_WRITE", IBV_WR_RDMA_WRITE, 3, 1, 1);
    probe("RDMA_WRITE_WITH_IMM", IBV_WR_RDMA_WRITE_WITH_IMM, 4, 1, 1);
    probe("RDMA_READ", IBV_WR_RDMA_READ, 5, 1, 1);
    probe("SEND 3 gather entries -> 1 scatter entry", IBV_WR_SEND, 6, 3, 1);
    probe("SEND 1 gather entry -> 3 scatter entries", IBV_WR_SEND, 7, 1, 3);
    probe("SEND 3 gather entries -> 3 scatter entries", IBV_WR_SEND, 8, 3, 3);
    return 0;
}
