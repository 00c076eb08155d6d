/*
 * Reference encoder for the unit tests: fills verbs structs the way C code does and prints their bytes
 * in hex, so the Java flyweights can be checked byte for byte against the compiler's own layout.
 *
 *   verbs_reference send <wr_id> <next> <sg_list> <num_sge> <opcode> <send_flags> <imm_host> <remote_addr> <rkey>
 *   verbs_reference recv <wr_id> <next> <sg_list> <num_sge>
 *   verbs_reference sge  <addr> <length> <lkey>
 *   verbs_reference wc   <wr_id> <status> <opcode> <vendor_err> <byte_len> <imm_host> <qp_num> <src_qp> <wc_flags> <pkey_index> <slid> <sl> <dlid_path_bits>
 *   verbs_reference sizes
 */
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long arg(char **argv, int i) { return strtoull(argv[i], NULL, 0); }

static void dump(const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		printf("%02x", b[i]);
	printf("\n");
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "send") && argc == 11) {
		struct ibv_send_wr wr;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = arg(argv, 2);
		wr.next = (struct ibv_send_wr *)(uintptr_t)arg(argv, 3);
		wr.sg_list = (struct ibv_sge *)(uintptr_t)arg(argv, 4);
		wr.num_sge = (int)arg(argv, 5);
		wr.opcode = (enum ibv_wr_opcode)arg(argv, 6);
		wr.send_flags = (unsigned int)arg(argv, 7);
		wr.imm_data = htonl((uint32_t)arg(argv, 8));
		wr.wr.rdma.remote_addr = arg(argv, 9);
		wr.wr.rdma.rkey = (uint32_t)arg(argv, 10);
		dump(&wr, sizeof(wr));
	} else if (!strcmp(argv[1], "send-ud") && argc == 6) {
		struct ibv_send_wr wr;
		memset(&wr, 0, sizeof(wr));
		wr.opcode = IBV_WR_SEND;
		wr.wr.ud.ah = (struct ibv_ah *)(uintptr_t)arg(argv, 2);
		wr.wr.ud.remote_qpn = (uint32_t)arg(argv, 3);
		wr.wr.ud.remote_qkey = (uint32_t)arg(argv, 4);
		wr.wr_id = arg(argv, 5);
		dump(&wr, sizeof(wr));
	} else if (!strcmp(argv[1], "send-atomic") && argc == 8) {
		struct ibv_send_wr wr;
		memset(&wr, 0, sizeof(wr));
		wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
		wr.wr.atomic.remote_addr = arg(argv, 2);
		wr.wr.atomic.compare_add = arg(argv, 3);
		wr.wr.atomic.swap = arg(argv, 4);
		wr.wr.atomic.rkey = (uint32_t)arg(argv, 5);
		wr.wr_id = arg(argv, 6);
		wr.send_flags = (unsigned int)arg(argv, 7);
		dump(&wr, sizeof(wr));
	} else if (!strcmp(argv[1], "recv") && argc == 6) {
		struct ibv_recv_wr wr;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = arg(argv, 2);
		wr.next = (struct ibv_recv_wr *)(uintptr_t)arg(argv, 3);
		wr.sg_list = (struct ibv_sge *)(uintptr_t)arg(argv, 4);
		wr.num_sge = (int)arg(argv, 5);
		dump(&wr, sizeof(wr));
	} else if (!strcmp(argv[1], "sge") && argc == 5) {
		struct ibv_sge sge = { .addr = arg(argv, 2), .length = (uint32_t)arg(argv, 3), .lkey = (uint32_t)arg(argv, 4) };
		dump(&sge, sizeof(sge));
	} else if (!strcmp(argv[1], "wc") && argc == 15) {
		struct ibv_wc wc;
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = arg(argv, 2);
		wc.status = (enum ibv_wc_status)arg(argv, 3);
		wc.opcode = (enum ibv_wc_opcode)arg(argv, 4);
		wc.vendor_err = (uint32_t)arg(argv, 5);
		wc.byte_len = (uint32_t)arg(argv, 6);
		wc.imm_data = htonl((uint32_t)arg(argv, 7));
		wc.qp_num = (uint32_t)arg(argv, 8);
		wc.src_qp = (uint32_t)arg(argv, 9);
		wc.wc_flags = (unsigned int)arg(argv, 10);
		wc.pkey_index = (uint16_t)arg(argv, 11);
		wc.slid = (uint16_t)arg(argv, 12);
		wc.sl = (uint8_t)arg(argv, 13);
		wc.dlid_path_bits = (uint8_t)arg(argv, 14);
		dump(&wc, sizeof(wc));
	} else if (!strcmp(argv[1], "sizes")) {
		printf("ibv_send_wr %zu\nibv_recv_wr %zu\nibv_sge %zu\nibv_wc %zu\n", sizeof(struct ibv_send_wr),
		       sizeof(struct ibv_recv_wr), sizeof(struct ibv_sge), sizeof(struct ibv_wc));
		printf("ops %zu\npoll_cq %zu\npost_send %zu\npost_recv %zu\n", offsetof(struct ibv_context, ops),
		       offsetof(struct ibv_context_ops, poll_cq), offsetof(struct ibv_context_ops, post_send),
		       offsetof(struct ibv_context_ops, post_recv));
		printf("odp_caps %zu\nrc_odp_caps %zu\nuc_odp_caps %zu\nud_odp_caps %zu\nodp_caps_end %zu\n",
		       offsetof(struct ibv_device_attr_ex, odp_caps),
		       offsetof(struct ibv_device_attr_ex, odp_caps.per_transport_caps.rc_odp_caps),
		       offsetof(struct ibv_device_attr_ex, odp_caps.per_transport_caps.uc_odp_caps),
		       offsetof(struct ibv_device_attr_ex, odp_caps.per_transport_caps.ud_odp_caps),
		       offsetof(struct ibv_device_attr_ex, odp_caps) + sizeof(struct ibv_odp_caps));
		printf("odp_support %d\nodp_implicit %d\nodp_send %d\nodp_recv %d\nodp_write %d\nodp_read %d\nodp_atomic %d\n"
		       "odp_srq_recv %d\n", IBV_ODP_SUPPORT, IBV_ODP_SUPPORT_IMPLICIT, IBV_ODP_SUPPORT_SEND, IBV_ODP_SUPPORT_RECV,
		       IBV_ODP_SUPPORT_WRITE, IBV_ODP_SUPPORT_READ, IBV_ODP_SUPPORT_ATOMIC, IBV_ODP_SUPPORT_SRQ_RECV);
	} else {
		return 2;
	}
	return 0;
}
