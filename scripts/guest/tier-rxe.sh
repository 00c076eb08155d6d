# scripts/guest/tier-rxe.sh - tier rxe's set-up, sourced by guest.sh (bash, as root, in the guest): Soft-RoCE
# device rxe0 on veth0 (RXE_ADDR/24, peer veth1), port ACTIVE before COMMAND starts; dummy0 gets 10.252.0.1/24,
# an address no RDMA device serves (nio's fallback to TCP is tested on it). Also the first step of the
# pvrdma tiers' outer guest. Uses guest.sh's say, die, pv_nap and fd 3 (set-up log); RXE_ADDR comes from run.env.
# shellcheck shell=bash disable=SC2154  # RXE_ADDR: from run.env
{
  ip link add veth0 type veth peer name veth1 &&
  ip addr add "$RXE_ADDR/24" dev veth0 &&
  ip link set veth0 up && ip link set veth1 up &&
  rdma link add rxe0 type rxe netdev veth0
} >&3 2>&3 || die "could not create veth0/rxe0 (see --verbose)"
# perftest's multicast groups (-g: ff01:0:2:c985:: for the server, ::1 for ib_send_lat's client) joined on veth0 by a
# process that sleeps: rxe in Linux 6.1 does not join the IP group of a queue pair it attaches (6.10's does), and the
# IP stack drops the packets of a group nobody joined, the looped-back copy of a local sender's too
read -r pv_veth0_index </sys/class/net/veth0/ifindex
perl -MSocket=:all -e 'my $index = shift; socket(my $s, AF_INET6, SOCK_DGRAM, 0) or die "socket: $!\n";
  for (@ARGV) { setsockopt($s, IPPROTO_IPV6, IPV6_JOIN_GROUP, pack_ipv6_mreq(inet_pton(AF_INET6, $_), $index))
    or die "joining $_ on veth0: $!\n" } close STDOUT; close STDERR; sleep' "$pv_veth0_index" ff01:0:2:c985:: \
  ff01:0:2:c985::1 </dev/null >&3 2>&3 &
{ ip addr add 10.252.0.1/24 dev dummy0 && ip link set dummy0 up; } >&3 2>&3 ||
  say "dummy0 got no address: the tests that need an address without an RDMA device will say so"
pv_rxe_active() { local state; read -r state </sys/class/infiniband/rxe0/ports/1/state 2>/dev/null && [[ $state == *ACTIVE* ]]; }
for ((try = 0; try < 300; try++)); do
  pv_rxe_active && break
  pv_nap 0.1
done
pv_rxe_active || die "rxe0 port did not become ACTIVE within 30 s"
read -r pv_uptime _ </proc/uptime
say "rxe0 PORT_ACTIVE on veth0 ($RXE_ADDR), guest up ${pv_uptime}s"
