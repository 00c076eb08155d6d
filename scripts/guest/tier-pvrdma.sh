# scripts/guest/tier-pvrdma.sh - the outer guest of tiers pvrdma, pvrdma-hwv13 and pvrdma-both, after tier-rxe.sh,
# sourced by guest.sh (bash, as root): rxe0 becomes the backend of the nested guest's pvrdma devices. QEMU maps the
# nested guest's GIDs onto rxe0's GID table, so veth0 carries the nested guest's addresses too; the MAD multiplexer
# (scripts/pvrdma-mad-mux.c, built into the nested guest's cached image) answers each pvrdma device's MAD chardev
# and forwards the nested guest's connection-manager MADs through rxe0's umad. Variables from run.env:
# PVRDMA_GUEST_ADDRS and PVRDMA_GUEST_LINK_LOCALS (one word per nested device), PVRDMA_MAD_SOCKET, PVRDMA_MAD_MUX
# (the multiplexer's binary).
# shellcheck shell=bash disable=SC2154  # the PVRDMA_* variables: from run.env
for a in $PVRDMA_GUEST_ADDRS; do
  ip addr add "$a/24" dev veth0 >&3 2>&3 || die "could not add the nested guest's address $a to veth0"
done
for a in $PVRDMA_GUEST_LINK_LOCALS; do
  ip -6 addr add "$a/64" dev veth0 nodad >&3 2>&3 || die "could not add the nested guest's address $a to veth0"
done
# The kernel's ib_cm (loaded with rdma_cm) holds the CM class on every device: while it is loaded,
# the multiplexer's umad registration of CM MADs on rxe0 fails with EINVAL ("ib_core: Method 3
# already in use" in dmesg). Nothing in this guest needs rdma_cm, so unload it.
rmmod rdma_ucm rdma_cm ib_cm >&3 2>&3 || die "could not unload rdma_ucm rdma_cm ib_cm"
# Its messages go to the console (--verbose shows it), never to fd 3: under --verbose that is the
# stderr pipe /init relays, and a multiplexer holding it open would keep the guest from powering off.
mux_env=(); $PV_VERBOSE && mux_env=(PVRDMA_MAD_MUX_VERBOSE=1)
setsid env "${mux_env[@]}" "$PVRDMA_MAD_MUX" "$PVRDMA_MAD_SOCKET" rxe0 1 </dev/null >/dev/console 2>&1 &
for ((try = 0; try < 100; try++)); do [[ -S $PVRDMA_MAD_SOCKET ]] && break; pv_nap 0.1; done
[[ -S $PVRDMA_MAD_SOCKET ]] || die "the MAD multiplexer did not start"
