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
#        pv_jli_record, pv_jli_image, pv_jli_archive, pv_jli_runtime
#                                             an image of this JDK with the lambda forms a training resolved and a
#                                             class archive for it (below): the PVRDMA check and the perftest tools
# The JVMs that use a cache must be started with the training run's class path (jars only: the JVM does not archive
# classes from directories), GC and --enable-native-access, or the JVM prints why and runs without it.
# shellcheck shell=bash
# shellcheck source=scripts/lib/panama-verbs.sh
declare -F pv_build_stand_in >/dev/null || . "$(dirname "${BASH_SOURCE[0]}")/panama-verbs.sh"

pv_aot_stand_in() {
  pv_build_stand_in target/aot/stand-in && printf '%s\n' target/aot/stand-in
}

# pv_on_stand_in LOG COMMAND...: a training run, COMMAND against the stand-in provider (device stub0) within 120 s,
# its output in LOG and its exit status ignored; returns 1 when the stand-in does not build
pv_on_stand_in() {
  local log=$1 stand_in; shift
  stand_in=$(pv_aot_stand_in) || return 1
  LD_LIBRARY_PATH="$PWD/$stand_in${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" RDMA_TEST_DEVICE=stub0 \
    timeout 120 "$@" > "$log" 2>&1 || true
}

pv_aot_train() {
  local cache=$1; shift
  local java=$1; shift
  local major
  rm -f "$cache" "$cache.log"
  mkdir -p "$(dirname "$cache")"
  major=$("$java" -version 2>&1 | sed -n '1s/.*version "\([0-9]*\).*/\1/p')
  if ((${major:-0} < 25)); then
    printf '[aot-cache] no AOT cache for %s: %s is Java %s, the one-step cache needs 25 or later\n' \
      "${cache##*/}" "$java" "${major:-unknown}" >&2
    return 0
  fi
  # Adapters and stubs stay out: they are machine code for the training CPU, and with JDK 25.0.3 a cached i2c
  # adapter dies of SIGILL on the guests' CPU, QEMU's qemu64 model, even when the training ran under
  # `qemu-x86_64 -cpu qemu64` (`taskset -c 0 qemu-x86_64 -cpu qemu64 java ...` reproduces it here every time).
  # Without them, the classes are archived loaded and linked: that ran there without a fault (6 of 6) and took
  # another 15 % off an interpreted JVM's run; loaded classes alone take a third off a JVM's start.
  pv_on_stand_in "$cache.log" "$java" -XX:+AOTClassLinking -XX:+UnlockDiagnosticVMOptions -XX:-AOTAdapterCaching \
      -XX:-AOTStubCaching -XX:AOTCacheOutput="$cache" "$@" ||
    { printf '[aot-cache] no AOT cache for %s: the stand-in provider did not build\n' "${cache##*/}" >&2; return 0; }
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

# Holder classes for the lambda forms a JVM resolves (pv_jli_*), for the guests' JVMs: under TCG every class a JVM
# spins for a method handle costs, in the nested PVRDMA guest seconds. A training run records its classes and the
# lambda forms it resolved (-XX:DumpLoadedClassList); jlink makes an image of this JDK whose method-handle holder
# classes also hold those forms (--generate-jli-classes); that image dumps the training's classes, loaded and
# linked, into a class archive. Not the one-step AOT cache: its dump regenerates the holder classes from its own
# record, which leaves out the forms that return a primitive (167 of the PVRDMA check's 276), where a static dump
# with linked classes keeps the image's holders as they are. The PVRDMA check spins 233 classes instead of 411.
#        pv_jli_record LIST JAVA_COMMAND...  a training run of JAVA_COMMAND on stub0 writing the class list LIST
#                                            (its output in LIST.log)
#        pv_jli_image DIR JAVA LIST...       DIR/jdk: JAVA's JDK with the lambda forms of the LISTs
#        pv_jli_archive JAVA LIST ARCHIVE JVM_OPTIONS...
#                                            ARCHIVE from LIST, dumped by JAVA (the image's) with the run's options
#        pv_jli_runtime DIR JAVA_COMMAND...  the three for one JVM: sets pv_jli_java (DIR/jdk/bin/java) and
#                                            pv_jli_flags (-XX:SharedArchiveFile=DIR/classes.jsa)
# Each says why and returns 1 when it cannot (pv_jli_runtime leaves pv_jli_java empty then).
pv_jli_record() {
  local list=$1; shift
  rm -f "$list"
  pv_on_stand_in "$list.log" "$1" -XX:DumpLoadedClassList="$list" "${@:2}" ||
    { printf '[aot-cache] no class list %s: the stand-in provider did not build\n' "${list##*/}" >&2; return 1; }
  [[ -s $list ]] || { printf '[aot-cache] no class list %s: the training run wrote none (%s)\n' "${list##*/}" "$list.log" >&2; return 1; }
}

pv_jli_image() {
  local dir=$1 home modules
  home=$(dirname "$(dirname "$(readlink -f "$(command -v "$2")")")")
  shift 2
  rm -rf "$dir/jdk"
  mkdir -p "$dir"
  sed -n 's/^@lambda-form-invoker //p' "$@" 2>/dev/null | sort -u > "$dir/lambda-forms.txt"
  [[ -s $dir/lambda-forms.txt ]] ||
    { printf '[aot-cache] no method-handle image: the training recorded no lambda forms\n' >&2; return 1; }
  # every module of this JDK but jdk.jlink, which a run-time image cannot link again, and jdk.jpackage, which needs it
  modules=$("$home/bin/java" --list-modules | sed 's/@.*//' | grep -vx -e jdk.jlink -e jdk.jpackage | paste -sd, -)
  if ! "$home/bin/jlink" --add-modules "$modules" --generate-jli-classes="@$dir/lambda-forms.txt" \
      --output "$dir/jdk" > "$dir/jlink.log" 2>&1; then
    printf '[aot-cache] no method-handle image: jlink failed (%s; it needs a JDK with jmods or a linkable run-time)\n' \
      "$dir/jlink.log" >&2
    rm -rf "$dir/jdk"; return 1
  fi
  printf '[aot-cache] %s: this JDK with the %s lambda forms of its training in its holder classes\n' "$dir/jdk" \
    "$(wc -l < "$dir/lambda-forms.txt")" >&2
}

pv_jli_archive() {
  local java=$1 list=$2 archive=$3; shift 3
  # the dump takes the run's JVM options (its class path above all), not a main class and its arguments
  local options=() a
  while (($#)); do
    a=$1; shift
    case $a in
      -cp|-classpath|--class-path) options+=("$a" "$1"); shift ;;
      -*) options+=("$a") ;;
      *) break ;;
    esac
  done
  rm -f "$archive"
  # adapters and stubs stay out, as in pv_aot_train
  "$java" -Xshare:dump -XX:SharedClassListFile="$list" -XX:SharedArchiveFile="$archive" -XX:+AOTClassLinking \
    -XX:+UnlockDiagnosticVMOptions -XX:-AOTAdapterCaching -XX:-AOTStubCaching "${options[@]}" > "$archive.log" 2>&1 || true
  [[ -f $archive ]] || { printf '[aot-cache] no class archive %s: the dump failed (%s)\n' "${archive##*/}" "$archive.log" >&2; return 1; }
  printf '[aot-cache] %s: %s MB of classes linked, from a training run on stub0\n' "${archive##*/}" \
    "$(( $(stat -c %s "$archive") / 1048576 ))" >&2
}

pv_jli_runtime() {
  local dir=$1; shift
  pv_jli_java="" pv_jli_flags=()
  mkdir -p "$dir"
  pv_jli_record "$dir/classes.lst" "$@" && pv_jli_image "$dir" "$1" "$dir/classes.lst" &&
    pv_jli_archive "$dir/jdk/bin/java" "$dir/classes.lst" "$dir/classes.jsa" "${@:2}" || return 1
  pv_jli_java=$dir/jdk/bin/java pv_jli_flags=("-XX:SharedArchiveFile=$dir/classes.jsa")
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
