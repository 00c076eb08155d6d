/*
 * pvrdma-mad-mux - the smallest MAD multiplexer QEMU's pvrdma device accepts.
 *
 * QEMU's pvrdma device (hw/rdma) refuses to start without a connected MAD multiplexer on its
 * mad-chardev, and Debian does not ship QEMU's rdmacm-mux. The project's tests never send MADs
 * (QPs are connected out of band, not with rdma_cm), so answering every request with success is
 * enough: QEMU's registration of the guest's GID and its unregistration at exit both succeed.
 *
 * Protocol (QEMU contrib/rdmacm-mux, fixed-size messages, x86_64):
 *   struct { int msg_type; int op_code; union ibv_gid sgid; int err_code; int umad_len;
 *            struct ib_user_mad hdr; char mad[256]; }          = 360 bytes
 *   msg_type REQ = 0 / RESP = 1; op_code REG = 0, UNREG = 1, MAD = 2; err_code OK = 0.
 * Each request is answered by the same message with msg_type = RESP and err_code = OK.
 *
 * Usage: pvrdma-mad-mux SOCKET_PATH   (listens on a unix stream socket; serves clients one by one)
 * Built by scripts/rdma-guest into its cache; runs inside the outer guest of the pvrdma tiers.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

enum { MESSAGE_SIZE = 360, MSG_TYPE_OFFSET = 0, ERR_CODE_OFFSET = 24, MSG_TYPE_RESP = 1, ERR_OK = 0 };

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

static void put_int(unsigned char *buf, size_t offset, int value)
{
    memcpy(buf + offset, &value, sizeof value);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s SOCKET_PATH\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    if (strlen(argv[1]) >= sizeof addr.sun_path) {
        fprintf(stderr, "pvrdma-mad-mux: socket path too long: %s\n", argv[1]);
        return 2;
    }
    strcpy(addr.sun_path, argv[1]);
    unlink(argv[1]);
    int listener = socket(AF_UNIX, SOCK_STREAM, 0);
    if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(listener, 4) < 0) {
        fprintf(stderr, "pvrdma-mad-mux: cannot listen on %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    for (;;) {
        int client = accept(listener, NULL, NULL);
        if (client < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "pvrdma-mad-mux: accept: %s\n", strerror(errno));
            return 1;
        }
        unsigned char message[MESSAGE_SIZE];
        unsigned long answered = 0;
        while (transfer(client, message, sizeof message, 0) == 0) {
            put_int(message, MSG_TYPE_OFFSET, MSG_TYPE_RESP);
            put_int(message, ERR_CODE_OFFSET, ERR_OK);
            if (transfer(client, message, sizeof message, 1) != 0)
                break;
            answered++;
        }
        fprintf(stderr, "pvrdma-mad-mux: client left after %lu message(s)\n", answered);
        close(client);
    }
}
