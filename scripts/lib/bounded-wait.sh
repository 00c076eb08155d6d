# scripts/lib/bounded-wait.sh - waits on cm_sendrecv processes in the nested PVRDMA guest with builtins only (each
# process start costs seconds there): sourced by scripts/pvrdma-cm-check and by scripts/test-pvrdma's guest command.
#
#   pv_nap SECONDS                  a sleep without a process
#   pv_said FILE TEXT               whether FILE has a line containing TEXT
#   pv_running PID                  whether PID runs (a zombie, an exit not reaped yet, does not)
#   pv_bounded PID OUTPUT DEADLINE  waits for PID until $SECONDS reaches DEADLINE, or until 120 s after OUTPUT (the
#                                   process's output file) says ": done (", then kills it; its exit code, 124 when
#                                   killed before its "done", 0 after it (PV_STALLED then names it)
#   pv_show PREFIX FILE             prints FILE's lines after PREFIX and a space
#   pv_show_stalls PREFIX           a WARNING line after PREFIX for each process pv_bounded killed after its "done"

exec {pv_nap_fd}<> <(:)
pv_nap() { read -r -t "$1" -u "$pv_nap_fd" _; return 0; }   # nobody writes to that pipe
pv_said() {
  local line
  [[ -e $1 ]] || return 1
  while IFS= read -r line; do [[ $line == *"$2"* ]] && return 0; done <"$1"
  return 1
}
pv_running() {
  local stat
  kill -0 "$1" 2>/dev/null || return 1
  read -r stat <"/proc/$1/stat" 2>/dev/null || return 1
  stat=${stat##*) }
  [[ ${stat%% *} != Z ]]
}
# cm_sendrecv prints "done (" after its last destroy. Its process once stayed alive after that in CI's nested guest
# until the 900 s bound killed it, in the kernel's teardown of its files: the exchange was over, so a process that
# has not ended 120 s after its "done" is killed and reported (PV_STALLED), not failed.
PV_EXIT_GRACE_S=120
PV_STALLED=()
pv_bounded() {
  local done_at="" wchan="" state=""
  while pv_running "$1" && ((SECONDS < $3)); do
    if [[ -z $done_at ]] && pv_said "$2" ": done ("; then done_at=$SECONDS; fi
    [[ -n $done_at ]] && ((SECONDS - done_at >= PV_EXIT_GRACE_S)) && break
    pv_nap 0.2
  done
  if pv_running "$1"; then
    read -r wchan <"/proc/$1/wchan" 2>/dev/null
    read -r state <"/proc/$1/stat" 2>/dev/null
    state=${state##*) }
    kill -9 "$1" 2>/dev/null; { wait "$1"; } 2>/dev/null
    if [[ -n $done_at ]]; then
      PV_STALLED+=("process $1 of $2: done, then its exit waited $((SECONDS - done_at)) s in the kernel's ${wchan:-?} (state ${state%% *})")
      return 0
    fi
    echo "killed at its bound, waiting in the kernel's ${wchan:-?}" >>"$2"
    return 124
  fi
  wait "$1"
}
pv_show() {
  local line
  while IFS= read -r line || [[ -n $line ]]; do printf '%s %s\n' "$1" "$line"; done <"$2"
}
pv_show_stalls() {
  local stall
  for stall in "${PV_STALLED[@]}"; do echo "$1 WARNING: $stall; killed, its exchange had ended"; done
}
