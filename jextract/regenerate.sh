#!/usr/bin/env bash
#
# Regenerates the jextract bindings of Panama Verbs:
#
#   src/main/java/org/panamaverbs/ffi         <- infiniband/verbs.h  (class ibverbs_h, loads libibverbs.so.1)
#   src/main/java/org/panamaverbs/ffi/rdmacm  <- rdma/rdma_cma.h     (class rdma_cma_h, loads librdmacm.so.1)
#
# from the include lists in jextract/includes/, then applies the automatic
# post-processing described in jextract/README.md. Never edit the output by hand.
#
# Usage:  jextract/regenerate.sh
#
# Environment:
#   JEXTRACT          jextract launcher to use (default: `jextract` on PATH)
#   RDMA_INCLUDE_DIR  directory holding infiniband/verbs.h and rdma/rdma_cma.h (default: /usr/include)
#   JAVAC             javac used for the --release 22 compile check (default: $JAVA_HOME/bin/javac,
#                     then javac on PATH; the check is skipped with a warning if no javac >= 22 is found)
#
set -euo pipefail
export LC_ALL=C

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
INCLUDES="$SCRIPT_DIR/includes"
SRC="$ROOT/src/main/java"
FFI_DIR="$SRC/org/panamaverbs/ffi"

VERBS_PKG=org.panamaverbs.ffi
VERBS_CLASS=ibverbs_h
VERBS_LIB=:libibverbs.so.1
VERBS_LISTS=(device context pd mr cq qp srq ah events constants)

CM_PKG=org.panamaverbs.ffi.rdmacm
CM_CLASS=rdma_cma_h
CM_LIB=:librdmacm.so.1
CM_LISTS=(rdmacm rdmacm-verbs-deps)

RDMA_INCLUDE_DIR=${RDMA_INCLUDE_DIR:-/usr/include}
VERBS_H="$RDMA_INCLUDE_DIR/infiniband/verbs.h"
CM_H="$RDMA_INCLUDE_DIR/rdma/rdma_cma.h"

die() { echo "regenerate.sh: error: $*" >&2; exit 1; }
log() { echo "regenerate.sh: $*" >&2; }

# ---------------------------------------------------------------- locate tools
if [[ -n "${JEXTRACT:-}" ]]; then
    JX="$JEXTRACT"
elif command -v jextract >/dev/null 2>&1; then
    JX=$(command -v jextract)
else
    die "jextract not found: put it on PATH or set JEXTRACT=/path/to/bin/jextract (see jextract/README.md)"
fi
[[ -x "$JX" ]] || die "JEXTRACT=$JX is not executable"
[[ -f "$VERBS_H" ]] || die "$VERBS_H not found (apt-get install libibverbs-dev)"
[[ -f "$CM_H" ]] || die "$CM_H not found (apt-get install librdmacm-dev)"

JX_VERSION=$("$JX" --version 2>&1) || die "'$JX --version' failed: $JX_VERSION"
JX_NAME=$(printf '%s\n' "$JX_VERSION" | sed -n 's/^\(jextract .*\)$/\1/p' | head -n1)
CLANG_NAME=$(printf '%s\n' "$JX_VERSION" | sed -n 's/^LibClang version \(.*\)$/\1/p' | head -n1)
[[ -n "$JX_NAME" ]] || die "unexpected '$JX --version' output: $JX_VERSION"
RDMA_CORE=$(dpkg-query -W -f='${Version}' libibverbs-dev 2>/dev/null || true)
[[ -n "$RDMA_CORE" ]] || RDMA_CORE=unknown
if [[ "$RDMA_CORE" != 44.0-* ]]; then
    log "warning: bindings are maintained against rdma-core 44.0 headers; libibverbs-dev here is '$RDMA_CORE'"
fi
log "using $JX ($JX_NAME, ${CLANG_NAME:-libclang ?}), rdma-core headers $RDMA_CORE"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/panamaverbs-jextract.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
OUT="$WORK/out"
mkdir -p "$OUT"

argfiles() { local f; for f in "$@"; do [[ -f "$INCLUDES/$f.txt" ]] || die "missing $INCLUDES/$f.txt"; echo "@$INCLUDES/$f.txt"; done; }

# ---------------------------------------------------------------- 1. run jextract
log "jextract $VERBS_H -> $VERBS_PKG.$VERBS_CLASS"
# shellcheck disable=SC2046
"$JX" --output "$OUT" --target-package "$VERBS_PKG" --header-class-name "$VERBS_CLASS" \
      --library "$VERBS_LIB" $(argfiles "${VERBS_LISTS[@]}") "$VERBS_H"

log "jextract $CM_H -> $CM_PKG.$CM_CLASS"
# shellcheck disable=SC2046
"$JX" --output "$OUT" --target-package "$CM_PKG" --header-class-name "$CM_CLASS" \
      --library "$CM_LIB" $(argfiles "${CM_LISTS[@]}") "$CM_H"

GEN_VERBS="$OUT/${VERBS_PKG//.//}"
GEN_CM="$OUT/${CM_PKG//.//}"
[[ -f "$GEN_VERBS/$VERBS_CLASS.java" ]] || die "jextract produced no $VERBS_CLASS.java"
[[ -f "$GEN_CM/$CM_CLASS.java" ]] || die "jextract produced no $CM_CLASS.java"

# ---------------------------------------------------------------- 2. post-processing
# 2a. SymbolLookup.findOrThrow(String) is JDK 23+. Replace it with the exact
#     equivalent of its JDK implementation, so the output compiles with --release 22.
log "fix-up: SymbolLookup.findOrThrow(..) -> find(..).orElseThrow(..) (JDK 22 API)"
find "$OUT" -name '*.java' -print0 | xargs -0 sed -i -E \
    's/\.findOrThrow\(("[^"]*")\)/.find(\1).orElseThrow(() -> new java.util.NoSuchElementException("Symbol not found: " + \1))/g'
if grep -rl 'findOrThrow' "$OUT" >/dev/null; then
    die "findOrThrow still present after fix-up: $(grep -rl findOrThrow "$OUT" | tr '\n' ' ')"
fi

# 2b. librdmacm structs embed some ibv_* types by value; jextract had to generate them
#     in the rdmacm package too. Drop those copies and import the org.panamaverbs.ffi ones,
#     so each C type has exactly one Java class.
for name in $(sed -n -E 's/^--include-(struct|union)[[:space:]]+([A-Za-z0-9_]+).*/\2/p' "$INCLUDES/rdmacm-verbs-deps.txt"); do
    [[ -f "$GEN_VERBS/$name.java" ]] || die "$name is in rdmacm-verbs-deps.txt but not generated in $VERBS_PKG (add it to a verbs include list)"
    [[ -f "$GEN_CM/$name.java" ]] || die "$name not generated in $CM_PKG"
    log "fix-up: remove duplicate $CM_PKG.$name, use $VERBS_PKG.$name"
    rm -f "$GEN_CM/$name.java"
    for f in "$GEN_CM"/*.java; do
        if grep -qE "(^|[^A-Za-z0-9_.\$])$name\." "$f"; then
            sed -i -E "0,/^package [A-Za-z0-9_.]+;\$/s//&\n\nimport $VERBS_PKG.$name;/" "$f"
        fi
    done
done
if ls "$GEN_CM"/ibv_*.java >/dev/null 2>&1; then
    die "ibv_* classes left in $CM_PKG: $(cd "$GEN_CM" && ls ibv_*.java | tr '\n' ' ')"
fi

# 2c. "Generated ... DO NOT EDIT" marker as the first line of every file
#     (replaces jextract's own "// Generated by jextract" line, or is prepended).
mark() { # file header
    local m="// Generated by jextract ($JX_NAME, ${CLANG_NAME:-libclang}) from $2 (rdma-core $RDMA_CORE). DO NOT EDIT -- regenerate with jextract/regenerate.sh"
    local f=$1
    if head -n1 "$f" | grep -q '^// Generated by jextract'; then
        { printf '%s\n' "$m"; tail -n +2 "$f"; } > "$f.tmp"
    else
        { printf '%s\n' "$m"; cat "$f"; } > "$f.tmp"
    fi
    mv "$f.tmp" "$f"
}
log "fix-up: DO NOT EDIT marker"
for f in "$GEN_VERBS"/*.java; do mark "$f" "infiniband/verbs.h"; done
for f in "$GEN_CM"/*.java; do mark "$f" "rdma/rdma_cma.h"; done
for f in $(find "$OUT" -name '*.java'); do
    head -n1 "$f" | grep -q 'DO NOT EDIT -- regenerate with jextract/regenerate.sh' || die "marker missing in $f"
done

# ---------------------------------------------------------------- 3. compile check (--release 22)
if [[ -z "${JAVAC:-}" ]]; then
    if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/javac" ]]; then JAVAC="$JAVA_HOME/bin/javac"
    elif command -v javac >/dev/null 2>&1; then JAVAC=$(command -v javac)
    else JAVAC=""; fi
fi
JAVAC_MAJOR=0
if [[ -n "$JAVAC" ]]; then
    JAVAC_MAJOR=$("$JAVAC" -version 2>&1 | sed -n -E 's/^javac ([0-9]+).*/\1/p' | head -n1)
    JAVAC_MAJOR=${JAVAC_MAJOR:-0}
fi
if (( JAVAC_MAJOR >= 22 )); then
    log "compile check: $JAVAC --release 22"
    mkdir -p "$WORK/classes"
    find "$OUT" -name '*.java' > "$WORK/sources.txt"
    "$JAVAC" --release 22 -nowarn -d "$WORK/classes" "@$WORK/sources.txt" \
        || die "generated sources do not compile with --release 22 (a new fix-up is needed, see README.md)"
else
    log "warning: no javac >= 22 found (set JAVAC or JAVA_HOME); skipped the --release 22 compile check"
fi

# ---------------------------------------------------------------- 4. install
rm -rf "$FFI_DIR"
mkdir -p "$(dirname "$FFI_DIR")"
cp -R "$GEN_VERBS" "$FFI_DIR"
log "wrote $(find "$FFI_DIR" -name '*.java' | wc -l) files under ${FFI_DIR#"$ROOT"/}"
