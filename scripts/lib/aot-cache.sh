# scripts/lib/aot-cache.sh - JVM start-up for the test tiers' guests (sourced, not run): an AOT cache (JDK 25's
# -XX:AOTCacheOutput, JEP 483/514) made on this machine by a training run against the stand-in provider
# (src/test/c/stand-in built as libibverbs.so.1, device "stub0"), then given to the JVMs that run in the
# guests. Under TCG, and far more in the nested PVRDMA guest, most of a short JVM's time is loading and linking
# classes: the cache holds them loaded and linked. Test infrastructure only: nothing a user runs depends on it.
#
# Use:   . scripts/lib/aot-cache.sh
#        pv_aot_train CACHE JAVA_COMMAND...   a training run: JAVA_COMMAND with -XX:AOTCacheOutput=CACHE added after
#                                             its first word; its exit status and output (CACHE.log) do not matter,
#                                             only whether CACHE was written. Needs cc and a JDK 25 or later; says why
#                                             when it cannot make one (the tiers then run without it).
#        pv_aot_flags CACHE                   the options that use it ("-XX:AOTCache=CACHE"), or nothing
#        pv_aot_stand_in                      prints the directory of the stand-in libibverbs.so.1 (builds it)
#        pv_peer_aot                          trains the device tests' peer JVMs' cache (target/aot/peer.aot) unless
#                                             it is newer than the library jar, and sets what the tests give their
#                                             peers: pv_peer_jvm_options (interpreted, the serial GC, and the cache
#                                             when there is one) and pv_peer_class_path_prefix (the cache's jars)
# The JVMs that use a cache must be started with the training run's class path (jars only: the JVM does not archive
# classes from directories), GC and --enable-native-access, or the JVM prints why and runs without it.
# shellcheck shell=bash
# shellcheck source=scripts/lib/panama-verbs.sh
declare -F pv_build_stand_in >/dev/null || . "$(dirname "${BASH_SOURCE[0]}")/panama-verbs.sh"

pv_aot_stand_in() {
  pv_build_stand_in target/aot/stand-in && printf '%s\n' target/aot/stand-in
}

pv_aot_train() {
  local cache=$1; shift
  local java=$1; shift
  local major stand_in
  rm -f "$cache" "$cache.log"
  mkdir -p "$(dirname "$cache")"
  major=$("$java" -version 2>&1 | sed -n '1s/.*version "\([0-9]*\).*/\1/p')
  if ((${major:-0} < 25)); then
    printf '[aot-cache] no AOT cache for %s: %s is Java %s, the one-step cache needs 25 or later\n' \
      "${cache##*/}" "$java" "${major:-unknown}" >&2
    return 0
  fi
  stand_in=$(pv_aot_stand_in) ||
    { printf '[aot-cache] no AOT cache for %s: the stand-in provider did not build\n' "${cache##*/}" >&2; return 0; }
  # Adapters and stubs stay out: they are machine code for the training CPU, and with JDK 25.0.3 a cached i2c
  # adapter dies of SIGILL on the guests' CPU, QEMU's qemu64 model, even when the training ran under
  # `qemu-x86_64 -cpu qemu64` (`taskset -c 0 qemu-x86_64 -cpu qemu64 java ...` reproduces it here every time).
  # Without them, the classes are archived loaded and linked: that ran there without a fault (6 of 6) and took
  # another 15 % off an interpreted JVM's run; loaded classes alone take a third off a JVM's start.
  LD_LIBRARY_PATH="$PWD/$stand_in${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" RDMA_TEST_DEVICE=stub0 \
    timeout 120 "$java" -XX:+AOTClassLinking -XX:+UnlockDiagnosticVMOptions -XX:-AOTAdapterCaching -XX:-AOTStubCaching \
    -XX:AOTCacheOutput="$cache" "$@" > "$cache.log" 2>&1 || true
  if [[ -f $cache ]]; then
    printf '[aot-cache] %s: %s MB from a training run on stub0\n' "${cache##*/}" "$(( $(stat -c %s "$cache") / 1048576 ))" >&2
  else
    printf '[aot-cache] no AOT cache for %s: the training run wrote none (%s)\n' "${cache##*/}" "$cache.log" >&2
  fi
}

pv_aot_flags() {
  [[ -f $1 ]] && printf '%s\n' "-XX:AOTCache=$1"
  return 0
}

# The device tests' peer JVMs (CmPeer, the examples, the DiSNI programs, the Netty and NIO peers) run interpreted on
# the test class path, which starts with directories: the cache holds what their start shares, the JDK's and the
# library's classes, trained by scripts/lib/PeerStartTraining.java on the library jar, and the launchers put that
# training's class path first (panamaverbs.test.peerClassPathPrefix) so that the JVM can use it. In the Soft-RoCE
# guest it took `CmPeer create-ep` from 18.5-19.2 s to 12.2-12.6 s (docs/benchmarks/ci-time.md).
pv_peer_aot() {
  pv_peer_jvm_options="-Xint -XX:+UseSerialGC" pv_peer_class_path_prefix=""
  local jar dir=$PWD/target/aot classes
  local cache=$dir/peer.aot training=$dir/peer-training.jar
  # the library jar of whatever version the build made (not its -sources, -javadoc or -tests jars)
  jar=$(compgen -G "$PWD/target/panama-verbs-*.jar" | grep -v -e '-sources\.jar$' -e '-javadoc\.jar$' -e '-tests\.jar$' | head -n1 || true)
  [[ -n $jar && -f $jar ]] || { printf '[aot-cache] no peer AOT cache: target/panama-verbs-VERSION.jar is missing (mvn -f parent install)\n' >&2; return 0; }
  if [[ ! $cache -nt $jar || ! $cache -nt scripts/lib/PeerStartTraining.java ]]; then
    classes=$(mktemp -d)
    if javac --release 22 -d "$classes" -cp "$jar" scripts/lib/PeerStartTraining.java && mkdir -p "$dir" &&
        jar cf "$training" -C "$classes" .; then
      pv_aot_train "$cache" java -Xint -XX:+UseSerialGC --enable-native-access=ALL-UNNAMED -cp "$jar:$training" \
        PeerStartTraining
    else
      printf '[aot-cache] no peer AOT cache: scripts/lib/PeerStartTraining.java did not compile\n' >&2
      rm -f "$cache"
    fi
    rm -rf "$classes"
  fi
  [[ -f $cache ]] || return 0
  pv_peer_jvm_options+=" -XX:AOTCache=$cache" pv_peer_class_path_prefix="$jar:$training:"
}
