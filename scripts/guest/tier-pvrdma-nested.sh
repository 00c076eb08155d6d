# scripts/guest/tier-pvrdma-nested.sh - the nested guest of tiers pvrdma, pvrdma-hwv13 and pvrdma-both, sourced by
# guest.sh (bash, as root): for each vmw_pvrdma device, configures the vmxnet3 NIC it is paired with (function 0 of
# its PCI slot), waits for its port to be ACTIVE with the GID of the NIC's IPv4 address, and exports that GID's
# index (the fec0:: GID of QEMU's user network, when it appears, is not on the backend and must not be used): the
# first device's as RDMA_TEST_GID_INDEX, the second's (tier pvrdma-both) as PANAMA_VERBS_PVRDMA_HWV13_GID_INDEX.
# Variables from run.env, one word per device: PVRDMA_GUEST_SLOTS (hex), PVRDMA_GUEST_ADDRS, PVRDMA_GUEST_GIDS (the
# addresses' IPv4-mapped GIDs), PVRDMA_MAX_SRQS (for the message).
# shellcheck shell=bash disable=SC2154  # the PVRDMA_* variables: from run.env
read -r -a pv_slots <<<"$PVRDMA_GUEST_SLOTS"
read -r -a pv_addrs <<<"$PVRDMA_GUEST_ADDRS"
read -r -a pv_gids <<<"$PVRDMA_GUEST_GIDS"
read -r -a pv_max_srqs <<<"$PVRDMA_MAX_SRQS"
pv_gid_vars=(RDMA_TEST_GID_INDEX PANAMA_VERBS_PVRDMA_HWV13_GID_INDEX)
pv_nics=()
# every NIC first, so that the devices come up together, with one `ip` for all; then each port. No process starts
# but that one `ip`: each costs a second or more here (guest.sh), so names come from globs and waits are pv_nap.
pv_ip_batch=""
for i in "${!pv_slots[@]}"; do
  pci=0000:00:${pv_slots[$i]}
  pv_found=("/sys/bus/pci/devices/$pci.0/net"/*)
  [[ -e ${pv_found[0]} ]] || die "no vmxnet3 network interface at $pci.0"
  nic=${pv_found[0]##*/}
  pv_found=("/sys/bus/pci/devices/$pci.1/infiniband"/*)
  name=${pv_found[0]##*/}
  [[ -e ${pv_found[0]} && $name == "vmw_pvrdma$i" ]] ||
    die "the vmw_pvrdma device at $pci.1 is '${name:-missing}', not vmw_pvrdma$i"
  pv_ip_batch+="address add ${pv_addrs[$i]}/24 dev $nic"$'\n'"link set $nic up"$'\n'
  pv_nics+=("$nic")
done
ip -batch - <<<"$pv_ip_batch" >&3 2>&3 || die "could not configure ${pv_nics[*]}"
pv_find_gid() { # DEVICE GID: pv_index = the index of GID in DEVICE's port 1 table, if the port is ACTIVE
  local state gid f
  pv_index=
  read -r state <"/sys/class/infiniband/$1/ports/1/state" 2>/dev/null || return 1
  [[ $state == *ACTIVE* ]] || return 1
  for f in "/sys/class/infiniband/$1"/ports/1/gids/*; do
    read -r gid <"$f" 2>/dev/null && [[ $gid == "$2" ]] && { pv_index=${f##*/}; return 0; }
  done
  return 1
}
for i in "${!pv_slots[@]}"; do
  name=vmw_pvrdma$i
  for ((try = 0; try < 600; try++)); do
    pv_find_gid "$name" "${pv_gids[$i]}" && break
    pv_nap 0.1
  done
  [[ -n $pv_index ]] || die "$name: port not ACTIVE with the GID of ${pv_addrs[$i]} after 600 tries 0.1 s apart"
  export "${pv_gid_vars[$i]}=$pv_index"
  read -r pv_uptime _ </proc/uptime
  say "$name PORT_ACTIVE on ${pv_nics[$i]} (${pv_addrs[$i]} = GID index $pv_index, max_srq ${pv_max_srqs[$i]}), guest up ${pv_uptime}s"
done
