/*
 * pvrdma-mad-mux - the MAD multiplexer QEMU's pvrdma device needs (QEMU's rdmacm-mux protocol).
 *
 * QEMU's pvrdma device (hw/rdma) refuses to start without a connected MAD multiplexer on its
 * mad-chardev, and Debian does not ship QEMU's rdmacm-mux. QEMU hands every MAD the guest posts on
 * QP1 (the connection manager's REQ, REP, RTU, ...) to the multiplexer and expects MADs for the
 * guest back from it; registration messages tell the multiplexer which GIDs belong to which QEMU.
 *
 * Two modes:
 *   pvrdma-mad-mux SOCKET_PATH
 *       registration only: every request is answered by the same message with msg_type = RESP and
 *       err_code = OK. Enough when QPs are connected out of band (no rdma_cm).
 *   pvrdma-mad-mux SOCKET_PATH RDMA_DEVICE [PORT]
 *       also forwards connection-manager MADs (management class 7, method Send) between the QEMU
 *       clients and the backend device through the kernel's umad interface (/dev/infiniband/umadN,
 *       module ib_umad), so rdma_cm works in the guest. The kernel must let this program register the
 *       CM class on that port: the kernel's own ib_cm (pulled in by rdma_cm) registers it on every
 *       RDMA device, and then the registration fails (EINVAL): unload rdma_ucm, rdma_cm and ib_cm
 *       first. If umad cannot be set up the program says why and carries on in registration-only mode.
 *
 * Protocol (QEMU contrib/rdmacm-mux, fixed-size messages, x86_64 layout):
 *   struct { int msg_type; int op_code; union ibv_gid sgid; int err_code; (4 bytes padding)
 *            int umad_len; struct ib_user_mad hdr (64 bytes, with pkey_index); char mad[256]; }
 *                                                                              = 360 bytes
 *   msg_type REQ = 0 / RESP = 1; op_code REG = 0, UNREG = 1, MAD = 2; err_code OK = 0.
 *   QEMU -> mux: REQ REG/UNREG (sgid = a GID of the guest), REQ MAD (sgid = the sending guest GID,
 *     hdr.addr.gid_index = backend GID index, mad = the MAD without GRH). QEMU waits for the RESP.
 *   mux -> QEMU: REQ MAD, unsolicited, sgid = the guest GID the MAD is for, hdr.addr.gid = the
 *     sender's GID, umad_len = MAD length: QEMU completes a receive the guest posted on QP1.
 *
 * Routing of MADs that arrive from the backend (only GIDs of registered clients are served):
 *   REQ (attribute 0x0010): by the primary path's remote GID in the REQ;
 *   other CM messages: by the communication id the guest chose, learnt from the guest's own earlier
 *   MADs (REQ, REP, ... carry the sender's local id; the answers carry it as the remote id);
 *   failing that, to the only connected client if there is exactly one.
 * Outgoing MADs are sent to the REQ's primary remote GID, or otherwise to the sending guest's own GID
 * (as QEMU's rdmacm-mux does): the peer must be a guest on the same backend device. That covers two
 * processes in one guest and several guests on one host.
 *
 * Built by scripts/rdma-guest into its cache; runs inside the outer guest of the pvrdma tiers.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <rdma/ib_user_mad.h>
#include <rdma/rdma_user_ioctl.h>

/* The message QEMU and the multiplexer exchange, as byte offsets (x86_64). */
enum {
    MESSAGE_SIZE = 360,
    OFF_MSG_TYPE = 0, OFF_OP_CODE = 4, OFF_SGID = 8, OFF_ERR_CODE = 24, OFF_UMAD_LEN = 32,
    OFF_UMAD_HDR = 36, UMAD_HDR_SIZE = 64, OFF_MAD = OFF_UMAD_HDR + UMAD_HDR_SIZE, MAD_MAX = 256,
    MSG_REQ = 0, MSG_RESP = 1, OP_REG = 0, OP_UNREG = 1, OP_MAD = 2, ERR_OK = 0,
};
_Static_assert(sizeof(struct ib_user_mad_hdr) == UMAD_HDR_SIZE, "ib_user_mad_hdr with pkey_index");
_Static_assert(OFF_MAD + MAD_MAX == 356, "message layout");

/* MAD header (24 bytes) and the CM fields used for routing, offsets into the MAD. */
enum {
    MAD_MGMT_CLASS = 1, MAD_CLASS_VERSION = 2, MAD_METHOD = 3, MAD_ATTR_ID = 16, MAD_DATA = 24,
    CM_CLASS = 0x07, CM_CLASS_VERSION = 2, METHOD_SEND = 0x03,
    CM_REQ = 0x0010, CM_MRA = 0x0011, CM_REJ = 0x0012, CM_REP = 0x0013, CM_RTU = 0x0014,
    CM_DREQ = 0x0015, CM_DREP = 0x0016, CM_SIDR_REQ = 0x0017, CM_SIDR_REP = 0x0018,
    CM_LAP = 0x0019, CM_APR = 0x001a,
    CM_LOCAL_ID = MAD_DATA, CM_REMOTE_ID = MAD_DATA + 4,
    CM_REQ_PRIMARY_REMOTE_GID = MAD_DATA + 72,   /* REQ: primary path, remote port GID (16 bytes) */
    QP1_QKEY = 0x80010000,
};

enum { MAX_CLIENTS = 16, MAX_GIDS = 8, MAX_IDS = 512 };

struct client {
    int fd;                          /* -1: free slot */
    int ngids;
    uint8_t gids[MAX_GIDS][16];
};

struct comm_id {                     /* a communication id a guest chose, and which guest/GID it was */
    int used;
    uint32_t id;                     /* as on the wire */
    int client;
    uint8_t gid[16];
};

static struct client clients[MAX_CLIENTS];
static struct comm_id ids[MAX_IDS];
static unsigned next_id_slot;
static int umad_fd = -1;
static uint32_t agent_id;
static char backend[64];
static int backend_port = 1;
static int verbose;

#define LOG(...) fprintf(stderr, "pvrdma-mad-mux: " __VA_ARGS__)

/* Reads or writes exactly n bytes; returns 0 on success, -1 on EOF or error. */
static int transfer(int fd, unsigned char *buf, size_t n, int writing)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = writing ? write(fd, buf + done, n - done) : read(fd, buf + done, n - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        done += (size_t)r;
    }
    return 0;
}

static void put_int(unsigned char *buf, size_t offset, int value) { memcpy(buf + offset, &value, sizeof value); }
static int get_int(const unsigned char *buf, size_t offset) { int v; memcpy(&v, buf + offset, sizeof v); return v; }
static unsigned get_be16(const unsigned char *p) { return (unsigned)p[0] << 8 | p[1]; }

static void gid_text(const uint8_t *gid, char *out, size_t size)
{
    if (!inet_ntop(AF_INET6, gid, out, (socklen_t)size))
        snprintf(out, size, "?");
}

/* ---- the backend device: umad port, GID table ---- */

static int read_text(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n < 0)
        return -1;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        n--;
    buf[n] = '\0';
    return 0;
}

/* sysfs GID text "fe80:0000:...": 8 groups of 4 hex digits. */
static int parse_sysfs_gid(const char *text, uint8_t *gid)
{
    unsigned g[8];
    if (sscanf(text, "%4x:%4x:%4x:%4x:%4x:%4x:%4x:%4x", &g[0], &g[1], &g[2], &g[3], &g[4], &g[5], &g[6], &g[7]) != 8)
        return -1;
    for (int i = 0; i < 8; i++) {
        gid[2 * i] = (uint8_t)(g[i] >> 8);
        gid[2 * i + 1] = (uint8_t)g[i];
    }
    return 0;
}

/* Index of gid in the backend port's GID table, or -1. */
static int backend_gid_index(const uint8_t *gid)
{
    for (int i = 0; i < 256; i++) {
        char path[256], text[128];
        uint8_t entry[16];
        snprintf(path, sizeof path, "/sys/class/infiniband/%s/ports/%d/gids/%d", backend, backend_port, i);
        if (read_text(path, text, sizeof text) < 0)
            return -1;
        if (parse_sysfs_gid(text, entry) == 0 && memcmp(entry, gid, 16) == 0)
            return i;
    }
    return -1;
}

/* Opens /dev/infiniband/umadN of backend:port and registers an agent for CM class Send MADs. */
static int open_umad(void)
{
    DIR *dir = opendir("/sys/class/infiniband_mad");
    if (!dir) {
        LOG("umad: /sys/class/infiniband_mad: %s (is ib_umad loaded?)\n", strerror(errno));
        return -1;
    }
    char dev[300] = "";
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (strncmp(e->d_name, "umad", 4) != 0)
            continue;
        char path[512], ibdev[64], port[16];
        snprintf(path, sizeof path, "/sys/class/infiniband_mad/%s/ibdev", e->d_name);
        if (read_text(path, ibdev, sizeof ibdev) < 0)
            continue;
        snprintf(path, sizeof path, "/sys/class/infiniband_mad/%s/port", e->d_name);
        if (read_text(path, port, sizeof port) < 0)
            continue;
        if (strcmp(ibdev, backend) == 0 && atoi(port) == backend_port) {
            snprintf(dev, sizeof dev, "/dev/infiniband/%s", e->d_name);
            break;
        }
    }
    closedir(dir);
    if (!dev[0]) {
        LOG("umad: no umad device for %s port %d\n", backend, backend_port);
        return -1;
    }
    int fd = open(dev, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        LOG("umad: open %s: %s\n", dev, strerror(errno));
        return -1;
    }
    if (ioctl(fd, IB_USER_MAD_ENABLE_PKEY) < 0) {    /* the 64-byte header with pkey_index */
        LOG("umad: IB_USER_MAD_ENABLE_PKEY on %s: %s\n", dev, strerror(errno));
        close(fd);
        return -1;
    }
    struct ib_user_mad_reg_req2 req;
    memset(&req, 0, sizeof req);
    req.qpn = 1;
    req.mgmt_class = CM_CLASS;
    req.mgmt_class_version = CM_CLASS_VERSION;
    req.method_mask[0] = 1ULL << METHOD_SEND;
    if (ioctl(fd, IB_USER_MAD_REGISTER_AGENT2, &req) < 0) {
        LOG("umad: registering an agent for CM class %d version %d method Send on %s (%s port %d): %s%s\n",
            CM_CLASS, CM_CLASS_VERSION, dev, backend, backend_port, strerror(errno),
            errno == EINVAL ? " (another agent, e.g. the kernel's ib_cm, holds that class and method)" : "");
        close(fd);
        return -1;
    }
    agent_id = req.id;
    LOG("umad: %s (%s port %d) agent %u for CM MADs\n", dev, backend, backend_port, agent_id);
    return fd;
}

/* ---- clients and routing tables ---- */

static int client_of_gid(const uint8_t *gid)
{
    for (int c = 0; c < MAX_CLIENTS; c++)
        for (int g = 0; clients[c].fd >= 0 && g < clients[c].ngids; g++)
            if (memcmp(clients[c].gids[g], gid, 16) == 0)
                return c;
    return -1;
}

static int only_client(void)
{
    int found = -1;
    for (int c = 0; c < MAX_CLIENTS; c++) {
        if (clients[c].fd < 0)
            continue;
        if (found >= 0)
            return -1;
        found = c;
    }
    return found;
}

static void register_gid(int c, const uint8_t *gid, int add)
{
    struct client *cl = &clients[c];
    for (int g = 0; g < cl->ngids; g++) {
        if (memcmp(cl->gids[g], gid, 16) == 0) {
            if (!add)
                memmove(cl->gids[g], cl->gids[g + 1], (size_t)(cl->ngids - g - 1) * 16), cl->ngids--;
            return;
        }
    }
    if (add && cl->ngids < MAX_GIDS)
        memcpy(cl->gids[cl->ngids++], gid, 16);
}

static void remember_id(uint32_t id, int c, const uint8_t *gid)
{
    for (int i = 0; i < MAX_IDS; i++) {
        if (ids[i].used && ids[i].id == id) {
            ids[i].client = c;
            memcpy(ids[i].gid, gid, 16);
            return;
        }
    }
    struct comm_id *slot = &ids[next_id_slot++ % MAX_IDS];
    slot->used = 1;
    slot->id = id;
    slot->client = c;
    memcpy(slot->gid, gid, 16);
}

static struct comm_id *find_id(uint32_t id)
{
    for (int i = 0; i < MAX_IDS; i++)
        if (ids[i].used && ids[i].id == id && clients[ids[i].client].fd >= 0)
            return &ids[i];
    return NULL;
}

static void drop_client(int c)
{
    close(clients[c].fd);
    clients[c].fd = -1;
    clients[c].ngids = 0;
    for (int i = 0; i < MAX_IDS; i++)
        if (ids[i].client == c)
            ids[i].used = 0;
}

static int is_cm_mad(const unsigned char *mad, int len)
{
    return len >= MAD_DATA + 8 && mad[MAD_MGMT_CLASS] == CM_CLASS;
}

/* A MAD from a guest (QEMU op MAD): remember its ids, send it through umad. Returns an err_code. */
static int forward_to_backend(int c, unsigned char *msg)
{
    int len = get_int(msg, OFF_UMAD_LEN);
    unsigned char *mad = msg + OFF_MAD;
    uint8_t sgid[16];
    memcpy(sgid, msg + OFF_SGID, 16);
    if (len <= 0 || len > MAD_MAX) {
        LOG("guest MAD with length %d dropped\n", len);
        return ERR_OK;
    }
    if (!is_cm_mad(mad, len)) {
        LOG("guest MAD of class 0x%02x dropped (only CM is forwarded)\n", mad[MAD_MGMT_CLASS]);
        return ERR_OK;
    }
    unsigned attr = get_be16(mad + MAD_ATTR_ID);
    uint32_t local_id;
    memcpy(&local_id, mad + CM_LOCAL_ID, 4);
    if (attr != CM_SIDR_REP && local_id != 0)    /* SIDR_REQ: request id; others: sender's comm id */
        remember_id(local_id, c, sgid);

    uint8_t dgid[16];
    memcpy(dgid, sgid, 16);
    if (attr == CM_REQ && len >= CM_REQ_PRIMARY_REMOTE_GID + 16)
        memcpy(dgid, mad + CM_REQ_PRIMARY_REMOTE_GID, 16);
    int index = backend_gid_index(sgid);
    char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
    gid_text(sgid, s, sizeof s);
    gid_text(dgid, d, sizeof d);
    if (index < 0) {
        LOG("guest MAD 0x%04x from %s dropped: %s has no such GID\n", attr, s, backend);
        return ERR_OK;
    }

    unsigned char out[UMAD_HDR_SIZE + MAD_MAX];
    struct ib_user_mad_hdr hdr;
    memset(&hdr, 0, sizeof hdr);
    hdr.id = agent_id;
    hdr.qpn = htonl(1);
    hdr.qkey = htonl(QP1_QKEY);
    hdr.grh_present = 1;
    hdr.gid_index = (uint8_t)index;
    hdr.hop_limit = 0xff;
    memcpy(hdr.gid, dgid, 16);
    memcpy(out, &hdr, sizeof hdr);
    memcpy(out + UMAD_HDR_SIZE, mad, (size_t)len);
    ssize_t w = write(umad_fd, out, UMAD_HDR_SIZE + (size_t)len);
    if (w != (ssize_t)(UMAD_HDR_SIZE + (size_t)len)) {
        LOG("umad write of MAD 0x%04x (%s -> %s, gid index %d): %s\n", attr, s, d, index,
            w < 0 ? strerror(errno) : "short write");
        return ERR_OK;    /* QEMU cannot do more about it than the CM's retries do */
    }
    if (verbose)
        LOG("guest -> backend: CM 0x%04x id 0x%08x %s -> %s (gid index %d)\n", attr, ntohl(local_id), s, d, index);
    return ERR_OK;
}

/* A MAD from the backend: find the guest it is for and hand it to that QEMU. */
static void forward_to_guest(void)
{
    unsigned char in[UMAD_HDR_SIZE + MAD_MAX];
    ssize_t n = read(umad_fd, in, sizeof in);
    if (n < 0) {
        if (errno != EINTR && errno != EAGAIN)
            LOG("umad read: %s\n", strerror(errno));
        return;
    }
    struct ib_user_mad_hdr hdr;
    if (n < UMAD_HDR_SIZE) {
        LOG("umad read: %zd bytes\n", n);
        return;
    }
    memcpy(&hdr, in, sizeof hdr);
    int len = (int)(n - UMAD_HDR_SIZE);
    const unsigned char *mad = in + UMAD_HDR_SIZE;
    if (hdr.status != 0) {
        LOG("umad: send failed, status %u\n", hdr.status);
        return;
    }
    if (!is_cm_mad(mad, len))
        return;
    unsigned attr = get_be16(mad + MAD_ATTR_ID);
    int c = -1, have_gid = 0;
    uint8_t dgid[16];
    memset(dgid, 0, sizeof dgid);
    if (attr == CM_REQ && len >= CM_REQ_PRIMARY_REMOTE_GID + 16) {
        memcpy(dgid, mad + CM_REQ_PRIMARY_REMOTE_GID, 16);
        have_gid = 1;
        c = client_of_gid(dgid);
    } else {
        uint32_t id;
        memcpy(&id, mad + (attr == CM_SIDR_REP ? CM_LOCAL_ID : CM_REMOTE_ID), 4);
        struct comm_id *known = find_id(id);
        if (known) {
            c = known->client;
            memcpy(dgid, known->gid, 16);
            have_gid = 1;
        }
    }
    if (c < 0 && (c = only_client()) >= 0 && !have_gid && clients[c].ngids > 0)
        memcpy(dgid, clients[c].gids[0], 16);    /* last resort: the only guest there is */
    char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
    gid_text(hdr.gid, s, sizeof s);
    gid_text(dgid, d, sizeof d);
    if (c < 0) {
        LOG("backend MAD 0x%04x from %s for %s dropped: no client\n", attr, s, d);
        return;
    }
    unsigned char msg[MESSAGE_SIZE];
    memset(msg, 0, sizeof msg);
    put_int(msg, OFF_MSG_TYPE, MSG_REQ);
    put_int(msg, OFF_OP_CODE, OP_MAD);
    memcpy(msg + OFF_SGID, dgid, 16);
    put_int(msg, OFF_UMAD_LEN, len);
    memcpy(msg + OFF_UMAD_HDR, &hdr, sizeof hdr);
    memcpy(msg + OFF_MAD, mad, (size_t)len);
    if (transfer(clients[c].fd, msg, sizeof msg, 1) != 0) {
        LOG("client %d: write failed, dropping it\n", c);
        drop_client(c);
        return;
    }
    if (verbose)
        LOG("backend -> guest: CM 0x%04x %s -> %s\n", attr, s, d);
}

/* One request from a QEMU client. Returns -1 when the client is gone. */
static int serve(int c)
{
    unsigned char msg[MESSAGE_SIZE];
    if (transfer(clients[c].fd, msg, sizeof msg, 0) != 0)
        return -1;
    int op = get_int(msg, OFF_OP_CODE);
    int err = ERR_OK;
    if (umad_fd >= 0 && get_int(msg, OFF_MSG_TYPE) == MSG_REQ) {
        char g[INET6_ADDRSTRLEN];
        gid_text(msg + OFF_SGID, g, sizeof g);
        if (op == OP_REG || op == OP_UNREG) {
            register_gid(c, msg + OFF_SGID, op == OP_REG);
            LOG("client %d %s %s\n", c, op == OP_REG ? "registered" : "unregistered", g);
        } else if (op == OP_MAD) {
            err = forward_to_backend(c, msg);
        }
    }
    put_int(msg, OFF_MSG_TYPE, MSG_RESP);
    put_int(msg, OFF_ERR_CODE, err);
    /* QEMU reads its own answer synchronously; should one ever reach its asynchronous reader instead
     * (a MAD for the guest crossed the request), a RESP that still says op MAD would be taken for an
     * incoming MAD (QEMU skips only messages that are neither REQ nor MAD). */
    if (umad_fd >= 0 && op == OP_MAD)
        put_int(msg, OFF_OP_CODE, OP_UNREG);
    return transfer(clients[c].fd, msg, sizeof msg, 1);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s SOCKET_PATH [RDMA_DEVICE [PORT]]\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    const char *v = getenv("PVRDMA_MAD_MUX_VERBOSE");
    verbose = v && *v && strcmp(v, "0") != 0;
    for (int c = 0; c < MAX_CLIENTS; c++)
        clients[c].fd = -1;
    if (argc >= 3) {
        snprintf(backend, sizeof backend, "%s", argv[2]);
        if (argc == 4)
            backend_port = atoi(argv[3]);
        umad_fd = open_umad();
        if (umad_fd < 0)
            LOG("MADs are not forwarded (rdma_cm will not work); registration still answered\n");
    }
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    if (strlen(argv[1]) >= sizeof addr.sun_path) {
        LOG("socket path too long: %s\n", argv[1]);
        return 2;
    }
    strcpy(addr.sun_path, argv[1]);
    unlink(argv[1]);
    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(listener, 4) < 0) {
        LOG("cannot listen on %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    unsigned long answered[MAX_CLIENTS] = {0};
    for (;;) {
        struct pollfd fds[MAX_CLIENTS + 2];
        int owner[MAX_CLIENTS + 2];
        int n = 0;
        fds[n] = (struct pollfd){ .fd = listener, .events = POLLIN };
        owner[n++] = -1;
        if (umad_fd >= 0) {
            fds[n] = (struct pollfd){ .fd = umad_fd, .events = POLLIN };
            owner[n++] = -2;
        }
        for (int c = 0; c < MAX_CLIENTS; c++) {
            if (clients[c].fd >= 0) {
                fds[n] = (struct pollfd){ .fd = clients[c].fd, .events = POLLIN };
                owner[n++] = c;
            }
        }
        if (poll(fds, (nfds_t)n, -1) < 0) {
            if (errno == EINTR)
                continue;
            LOG("poll: %s\n", strerror(errno));
            return 1;
        }
        for (int i = 0; i < n; i++) {
            if (!fds[i].revents)
                continue;
            if (owner[i] == -1) {
                int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
                if (fd < 0)
                    continue;
                int c = 0;
                while (c < MAX_CLIENTS && clients[c].fd >= 0)
                    c++;
                if (c == MAX_CLIENTS) {
                    LOG("too many clients\n");
                    close(fd);
                    continue;
                }
                clients[c].fd = fd;
                clients[c].ngids = 0;
                answered[c] = 0;
            } else if (owner[i] == -2) {
                forward_to_guest();
            } else {
                int c = owner[i];
                if (clients[c].fd < 0)
                    continue;
                if (serve(c) != 0) {
                    LOG("client left after %lu message(s)\n", answered[c]);
                    drop_client(c);
                } else {
                    answered[c]++;
                }
            }
        }
    }
}
