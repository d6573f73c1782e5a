#!/usr/bin/env bash
# Guest instructions per call of function-entry patching under qemu-user
# (aarch64, ppc64le; prologue_insns.c, docs/prologues.md): qemu runs every
# instruction as its own block and logs each (-singlestep -d
# exec,nochain); each mode runs with N1 and N2 calls, and the difference of
# the counts over N2 - N1 is the cost of one call (start-up and set-up
# cancel out).
#
# Environment: BUILD_DIR (default build), ARCHES (default "aarch64 ppc64le").
# ppc64le with clang-19: the XRay entry sleds of Clang's route.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${BUILD_DIR:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
n1=200
n2=1200
out=$build/bench/prologue_insns
mkdir -p "$out"
for arch in ${ARCHES:-aarch64 ppc64le}; do
  case $arch in
    aarch64) triple=aarch64-linux-gnu; ccs="aarch64-linux-gnu-gcc-12 clang-19" ;;
    ppc64le) triple=powerpc64le-linux-gnu; ccs="powerpc64le-linux-gnu-gcc-12 clang-19" ;;
  esac
  if ! command -v "qemu-$arch" > /dev/null || [ ! -f "$build/lib/$triple/libdyncall.so" ]; then
    echo "prologue_insns: $arch: no qemu-$arch or no cross runtime, skipped"
    continue
  fi
  for cc in $ccs; do
    target=()
    [ "$cc" = clang-19 ] && target=(--target="$triple")
    exe=$out/$arch-$cc
    # -Wl,--emit-relocs: the caller table (what --dyncall-prologues links
    # with), so that redirectsite measures a rewritten `bl` (aarch64, ppc64le)
    "$build/bin/dyncall-cc" "$cc" "${target[@]}" -O2 "$here/prologue_insns.c" -o "$exe" -Wl,--emit-relocs 2> /dev/null
    printf '%s %s:' "$arch" "$cc"
    for mode in plain nops hook hooknovec hook100 hook2 hook10 direct redirect directsite redirectsite nopsd hookd nopsd8 hookd8; do
      count() {
        qemu-"$arch" -E DYNCALL_TEXT_WRITE=mprotect -L "/usr/$triple" -singlestep \
          -d exec,nochain -D "$out/log" "$exe" "$mode" "$1" > /dev/null
        grep -c '^Trace' "$out/log"
      }
      a=$(count $n1)
      b=$(count $n2)
      printf ' %s %s' "$mode" "$(awk -v a="$a" -v b="$b" -v n=$((n2 - n1)) 'BEGIN { printf "%.1f", (b - a) / n }')"
    done
    echo
  done
  rm -f "$out/log"
done
