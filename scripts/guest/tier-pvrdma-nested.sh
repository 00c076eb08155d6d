# scripts/guest/tier-pvrdma-nested.sh - the nested guest of tiers pvrdma and pvrdma-hwv13, sourced by guest.sh
# (bash, as root): configures the vmxnet3 NIC that vmw_pvrdma0 is paired with, waits for vmw_pvrdma0's port to
# be ACTIVE with the GID of the NIC's IPv4 address, and exports that GID's index as RDMA_TEST_GID_INDEX (the
# fec0:: GID of QEMU's user network, when it appears, is not on the backend and must not be used). Variables
# from run.env: PVRDMA_GUEST_ADDR, PVRDMA_GUEST_GID (its IPv4-mapped GID), PVRDMA_MAX_SRQ (for the message).
# shellcheck shell=bash disable=SC2154  # the PVRDMA_* variables: from run.env
nic=
for n in /sys/class/net/*; do
  [[ $(readlink -f "$n/device/driver") == */vmxnet3 ]] && nic=${n##*/}
done
[[ -n $nic ]] || die "no vmxnet3 network interface"
{ ip addr add "$PVRDMA_GUEST_ADDR/24" dev "$nic" && ip link set "$nic" up; } >&3 2>&3 ||
  die "could not configure $nic"
dev=/sys/class/infiniband/vmw_pvrdma0
for _ in $(seq 600); do
  [[ $(cat $dev/ports/1/state 2>/dev/null) == *ACTIVE* ]] && grep -qx "$PVRDMA_GUEST_GID" $dev/ports/1/gids/* 2>/dev/null && break
  sleep 0.1
done
[[ $(cat $dev/ports/1/state 2>/dev/null) == *ACTIVE* ]] || die "vmw_pvrdma0 port did not become ACTIVE within 60 s"
gid_file=$(grep -lx "$PVRDMA_GUEST_GID" $dev/ports/1/gids/* | head -n1)
[[ -n $gid_file ]] || die "vmw_pvrdma0 has no GID for $PVRDMA_GUEST_ADDR"
export RDMA_TEST_GID_INDEX=${gid_file##*/}
say "vmw_pvrdma0 PORT_ACTIVE on $nic ($PVRDMA_GUEST_ADDR = GID index $RDMA_TEST_GID_INDEX, max_srq $PVRDMA_MAX_SRQ), guest up $(cut -d' ' -f1 /proc/uptime)s"
