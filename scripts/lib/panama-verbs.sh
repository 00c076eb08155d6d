# scripts/lib/panama-verbs.sh - what the user-facing scripts share (sourced, not run): finding a JDK 22+ as users
# have it, telling whether this machine has an RDMA device, and building the bench jar when it is missing or older
# than its sources. Nothing here installs anything or assumes a distribution; only pv_run_in_guest (the project's
# Soft-RoCE test guest, when a script is asked for it with --guest) runs scripts/setup, which is Debian's and root's.
#
# Use:   . "$(dirname "${BASH_SOURCE[0]}")/lib/panama-verbs.sh"    (from a script in scripts/)
#        PV_NAME=write-bw                                           (prefix of its messages)
# Gives: PV_ROOT (the repository), pv_say, pv_die, pv_find_java (sets PV_JAVA, PV_JAVA_HOME, PV_JAVA_VERSION),
#        pv_java_major JAVA, pv_device_here, pv_kernel_has_rdma, pv_stale TARGET PATH..., pv_bench_jar (prints its
#        path, building it first if needed), pv_no_device_message, pv_run_in_guest CMD..., pv_surefire_summaries LOG,
#        pv_surefire_summary LOG

# shellcheck shell=bash disable=SC2034  # PV_* are read by the scripts that source this
PV_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PV_NAME=${PV_NAME:-panama-verbs}
PV_MIN_JAVA=22

pv_say() { printf '[%s] %s\n' "$PV_NAME" "$*" >&2; }
pv_die() { printf '[%s] ERROR: %s\n' "$PV_NAME" "$*" >&2; exit 1; }

# The major version of a java launcher (17 for "17.0.9", 25 for "25"), or nothing when it does not run.
pv_java_major() {
  local version
  version=$("$1" -version 2>&1 | sed -n '1s/.*version "\([^"]*\)".*/\1/p') || return 0
  version=${version#1.}   # "1.8.0_392" -> 8
  printf '%s\n' "${version%%[.+-]*}"
}

# Finds a JDK 22 or later the way users have one: $JAVA_HOME, then `java` on PATH, then (with a note saying so) the
# newest of the JDKs installed where distributions put them (/usr/lib/jvm on Debian, Ubuntu, RHEL, SLES;
# /usr/lib64/jvm; /usr/java; /opt). Sets PV_JAVA (the launcher), PV_JAVA_HOME and PV_JAVA_VERSION; exits naming
# what it found otherwise.
pv_find_java() {
  local seen=() java major home best='' best_major=0
  for java in ${JAVA_HOME:+"$JAVA_HOME/bin/java"} "$(command -v java 2>/dev/null)"; do
    [[ -n $java && -x $java ]] || continue
    major=$(pv_java_major "$java")
    seen+=("$java (${major:-?})")
    if [[ $major =~ ^[0-9]+$ ]] && ((major >= PV_MIN_JAVA)); then
      best=$java best_major=$major
      break
    fi
  done
  if [[ -z $best ]]; then
    for home in /usr/lib/jvm/* /usr/lib64/jvm/* /usr/java/* /opt/java/* /opt/jdk*; do
      java=$home/bin/java
      [[ -x $java && ! -L $home ]] || continue
      major=$(pv_java_major "$java")
      seen+=("$java (${major:-?})")
      if [[ $major =~ ^[0-9]+$ ]] && ((major >= PV_MIN_JAVA && major > best_major)); then
        best=$java best_major=$major
      fi
    done
    [[ -n $best ]] && pv_say "JAVA_HOME and java on PATH are not JDK $PV_MIN_JAVA+; using $best (JDK $best_major)"
  fi
  if [[ -z $best ]]; then
    pv_die "no JDK $PV_MIN_JAVA or later found (looked at: ${seen[*]:-nothing: JAVA_HOME unset, no java on PATH})." \
      "Install one (Debian/Ubuntu: openjdk-25-jdk or Temurin; RHEL/Oracle Linux: java-25-openjdk; SLES:" \
      "java-25-openjdk) and set JAVA_HOME to it"
  fi
  PV_JAVA=$best
  PV_JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$best")")")
  PV_JAVA_VERSION=$best_major
}

# Whether a real RDMA device can be used here: RDMA_TEST_DEVICE names one, or the kernel lists any.
pv_device_here() {
  [[ -n ${RDMA_TEST_DEVICE:-} ]] && return 0
  compgen -G '/sys/class/infiniband/*' >/dev/null
}

# Whether the kernel has RDMA (uverbs) support at all, devices or not.
pv_kernel_has_rdma() { [[ -d /sys/class/infiniband_verbs ]]; }

# True when TARGET is missing or any PATH (file or directory tree) has a file newer than it.
pv_stale() {
  local target=$1
  shift
  [[ ! -f $target ]] && return 0
  [[ -n $(find "$@" -newer "$target" -type f -print -quit 2>/dev/null) ]]
}

# Prints the bench jar's path, building the library and bench/ first (Maven, no tests) when the jar is missing or
# older than their sources; PANAMA_VERBS_BENCH_JAR names a jar to use as it is (e.g. a downloaded one).
pv_bench_jar() {
  if [[ -n ${PANAMA_VERBS_BENCH_JAR:-} ]]; then
    [[ -f $PANAMA_VERBS_BENCH_JAR ]] || pv_die "PANAMA_VERBS_BENCH_JAR=$PANAMA_VERBS_BENCH_JAR is not a file"
    printf '%s\n' "$PANAMA_VERBS_BENCH_JAR"
    return
  fi
  local jar=$PV_ROOT/bench/target/panama-verbs-bench.jar
  if pv_stale "$jar" "$PV_ROOT"/src/main "$PV_ROOT"/bench/src/main "$PV_ROOT"/disni/src/main "$PV_ROOT"/pom.xml \
      "$PV_ROOT"/parent/pom.xml "$PV_ROOT"/bench/pom.xml "$PV_ROOT"/disni/pom.xml; then
    command -v mvn >/dev/null ||
      pv_die "$jar is missing or older than the sources, and Maven (mvn) is not installed to build it: install Maven" \
        "and run 'mvn -f parent install -DskipTests' at $PV_ROOT, or set PANAMA_VERBS_BENCH_JAR to a built panama-verbs-bench.jar"
    pv_say "building the library and bench/ (mvn -f parent install -DskipTests) ..."
    (cd "$PV_ROOT" && JAVA_HOME=$PV_JAVA_HOME PATH="$PV_JAVA_HOME/bin:$PATH" \
      mvn -B -q --no-transfer-progress -f parent install -DskipTests -Dmaven.javadoc.skip=true >&2) ||
      pv_die "the build failed (see above)"
  fi
  printf '%s\n' "$jar"
}

# pv_build_stand_in DIR: the stub provider (src/test/c/stand-in, see its stub_provider.h) built with cc (or $CC)
# as a stand-in libibverbs.so.1 in DIR, also linked as librdmacm.so.1 (one file: the loader maps it once under both
# names), for a JVM whose LD_LIBRARY_PATH starts with DIR: it opens device "stub0" through the public API, with no RDMA
# anywhere. Built again only when a source is newer. Used by bench/native-datapath and the AOT training runs
# (scripts/lib/aot-cache.sh).
pv_build_stand_in() {
  local dir=$1 source stale=
  [[ -f $dir/libibverbs.so.1 ]] || stale=1
  for source in src/test/c/stand-in/*; do
    if [[ $source -nt $dir/libibverbs.so.1 ]]; then stale=1; fi
  done
  if [[ $stale ]]; then
    mkdir -p "$dir" &&
      "${CC:-cc}" -O2 -Wall -Wextra -fPIC -shared -Wl,-soname,libibverbs.so.1 -o "$dir/libibverbs.so.1" \
        src/test/c/stand-in/*.c || return 1
  fi
  ln -sfn libibverbs.so.1 "$dir/librdmacm.so.1"
}

# Every Surefire summary in a Maven log, "Tests run: N, Failures: N, Errors: N, Skipped: N", one line per module in
# the order they ran, or nothing when the log has none (the build failed before the tests, or it is missing);
# pv_surefire_summary: the last one only (the totals of the last module run).
pv_surefire_summaries() {
  sed -nE 's/^\[[A-Z]+\] (Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+)$/\1/p' "$1" 2>/dev/null ||
    true
}
pv_surefire_summary() {
  pv_surefire_summaries "$1" | tail -n1
}

# The line a script prints when there is no device and the guest was not asked for.
pv_no_device_message() {
  if pv_kernel_has_rdma; then
    printf '%s' "this kernel has RDMA support but no RDMA device: load your NIC's RDMA driver, or create a Soft-RoCE" \
      " device (modprobe rdma_rxe && rdma link add rxe0 type rxe netdev <eth>, as root); or add --guest to run in" \
      " the project's Soft-RoCE test guest instead"
  else
    printf '%s' "this kernel has no RDMA support (/sys/class/infiniband_verbs is missing). Add --guest to run in" \
      " the project's Soft-RoCE test guest (QEMU; Debian 12 and root, as the build machines: scripts/setup installs" \
      " what it needs), or run on a machine with an RDMA device"
  fi
}

# Runs CMD in the project's Soft-RoCE test guest (rxe0), installing what the guest needs first (scripts/setup:
# Debian packages, as root). Only for --guest.
pv_run_in_guest() {
  pv_say "running in the project's Soft-RoCE test guest on rxe0 (scripts/rdma-guest)"
  PANAMA_VERBS_JDK=$PV_JAVA_HOME "$PV_ROOT"/scripts/setup >&2 || pv_die "scripts/setup failed: the guest cannot run here"
  exec "$PV_ROOT"/scripts/rdma-guest --timeout "${PV_GUEST_TIMEOUT:-1800}" ${PV_GUEST_QUIET:+--quiet} -- "$@"
}
