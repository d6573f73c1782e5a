#!/usr/bin/env bash
# Per-call cost of function-entry patching (x86-64; see prologue_cost.c and
# docs/prologues.md): no NOPs, NOPs, hooks relevant/irrelevant, k handlers,
# a redirect, and hooking 10,000 functions in one batch.
#
# Environment: BUILD_DIR (default build), CC (clang-19; gcc-12 works too),
# PROLOGUE_COST_ARGS ("<calls> <runs>", default "10000000 9").
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${BUILD_DIR:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
if [ "$(uname -m)" != x86_64 ]; then
  echo "prologue_cost: x86-64 only (aarch64, ppc64le: prologue_insns.bench.sh counts instructions)"
  exit 0
fi
cc=${CC:-clang-19}
out=$build/bench/prologue_cost/$(basename "$cc")
mkdir -p "$out"
dcc=("$build/bin/dyncall-cc" "$cc")
"${dcc[@]}" -O2 -c "$here/prologue_cost_fns.c" -o "$out/plain.o"
"${dcc[@]}" --dyncall-prologues -DPFE -O2 -c "$here/prologue_cost_fns.c" -o "$out/pfe.o"
# the same NOPs without the plugins: no __dyncall_fn_records record
"$cc" -fpatchable-function-entry=29,24 -falign-functions=8 -DNOREC -O2 -c "$here/prologue_cost_fns.c" -o "$out/norec.o"
# the wide-vector rows (the bench runs them only on a CPU with the ISA)
wide=()
for w in 256:-mavx2 512:-mavx512f; do
  "${dcc[@]}" "${w#*:}" -DW="${w%%:*}" -O2 -c "$here/prologue_cost_wide.c" -o "$out/wide${w%%:*}.o"
  "${dcc[@]}" --dyncall-prologues -DPFE "${w#*:}" -DW="${w%%:*}" -O2 -c "$here/prologue_cost_wide.c" -o "$out/wide${w%%:*}_pfe.o"
  wide+=("$out/wide${w%%:*}.o" "$out/wide${w%%:*}_pfe.o")
done
# every timed loop starts a 64-byte line, so that none straddles two: the
# loops are compared with each other, and on an AMD Zen 3 a loop whose
# closing branch crosses into the next line costs about one cycle more per
# call (GCC's "redirected call" loop read 1.3 x its twin "direct call" loop
# from that alone: docs/prologues.md, "On another x86-64 machine")
"${dcc[@]}" -O2 -falign-loops=64 -c "$here/prologue_cost.c" -o "$out/main.o"
# linked with --dyncall-prologues: the caller table (-Wl,--emit-relocs), so
# that the redirect rewrites the loop's call (docs/prologues.md)
"${dcc[@]}" --dyncall-prologues -O2 "$out/main.o" "$out/plain.o" "$out/pfe.o" "$out/norec.o" "${wide[@]}" -o "$out/prologue_cost"
# shellcheck disable=SC2086
"$out/prologue_cost" ${PROLOGUE_COST_ARGS:-}
