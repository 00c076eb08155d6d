#!/bin/bash
# scripts/guest/guest.sh - one run of scripts/rdma-guest, inside the guest: chrooted into the host's / (as root,
# the child of the guest's /init, with an empty environment). scripts/rdma-guest copies it into the run's dir with
# the tier set-up files (tier-*.sh) and writes run.env beside them: the run's settings, the tier's set-up files and
# their variables, the caller's directory, umask, environment and COMMAND. This sets up the guest, sources the
# tier's set-up files in order, then runs COMMAND there and leaves its exit code in the run's dir; without that
# file (a set-up step died) the host exits 125.
set -u
PV_RUN=${0%/*}
say() { $PV_QUIET || printf '[rdma-guest] %s\n' "$*" >&2; }
die() { printf '[rdma-guest] ERROR: %s\n' "$*" >&2; exit 125; }  # no exit-code file => host exits 125
# shellcheck source=/dev/null  # written by scripts/rdma-guest for each run
. "$PV_RUN/run.env" || die "cannot read $PV_RUN/run.env"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# fd 3: the set-up steps' own output (the console, which --verbose shows; under --verbose, stderr)
if $PV_VERBOSE; then exec 3>&2; else exec 3>/dev/console; fi
# In the nested PVRDMA guest a process start costs about a second: set-up steps use builtins where they can
# (read, printf, pv_nap), and the tier files do too.
# pv_nap SECONDS: a sleep without a process, a read that times out on a pipe nobody writes to
exec {pv_nap_fd}<> <(:)
pv_nap() { read -r -t "$1" -u "$pv_nap_fd" _; return 0; }
ip link set lo up >&3 2>&3 || die "ip link set lo up failed"
# The JVM's perf-data files live in /tmp/hsperfdata_<user>: keep the guest's in RAM, so that
# they neither need shared mmap on 9p nor clobber the host's (guest pids collide with host pids).
{ [[ -d /tmp/hsperfdata_root ]] || mkdir -p /tmp/hsperfdata_root; } &&
  mount -t tmpfs -o mode=755,size=64m tmpfs /tmp/hsperfdata_root || die "cannot mount tmpfs on /tmp/hsperfdata_root"
# libibverbs dlopens every provider /etc/libibverbs.d names (17 on Debian) in each process that loads it: 0.15 s of
# each such start in the guest (ibv_devices 364 -> 220 ms), seconds in the nested one. The guests' devices need two;
# the tmpfs over the directory is this guest's alone (scripts/rdma-core-versions' builds do the same to their own).
if [[ -d /etc/libibverbs.d ]]; then
  mount -t tmpfs -o mode=755,size=64k tmpfs /etc/libibverbs.d || die "cannot mount tmpfs on /etc/libibverbs.d"
  printf 'driver rxe\n' >/etc/libibverbs.d/rxe.driver
  printf 'driver vmw_pvrdma\n' >/etc/libibverbs.d/vmw_pvrdma.driver
fi
# shellcheck disable=SC2174  # /run is there (a tmpfs): -m applies to both
mkdir -p -m 1777 /run/tmp /run/lock
ulimit -l unlimited 2>/dev/null
ulimit -n 65536 2>/dev/null
printf '%s\n' "$PV_HOSTNAME" >/proc/sys/kernel/hostname
for setup in "${PV_SETUP[@]}"; do
  [[ -r $PV_RUN/$setup ]] || die "$PV_RUN/$setup is missing"
  # shellcheck source=/dev/null  # scripts/guest/tier-*.sh, copied into the run's dir
  . "$PV_RUN/$setup"
done

# --- the caller's environment and command ---
cd -- "$PV_CWD" || die "cannot cd to $PV_CWD in the guest"
umask "$PV_UMASK"
export TMPDIR=/run/tmp
for assignment in "${PV_ENV[@]}"; do
  export -- "${assignment?}"  # NAME=VALUE
done
exec 3>&- {pv_nap_fd}>&-
$PV_VERBOSE && say "running: ${PV_CMD[*]}"
"${PV_CMD[@]}"
rc=$?
printf '%s\n' "$rc" >"$PV_RUN/exit-code.tmp" && mv -f "$PV_RUN/exit-code.tmp" "$PV_RUN/exit-code"
exit "$rc"
