#!/usr/bin/env bash
# Compile-time overhead of the plugins: a generated C file with thousands of
# annotated calls (compile_time_gen.py), compiled at -O2 without the
# plugins, with the attribute plugin only, and with both; then the same
# program without annotations (--plain) compiled without the plugins, with
# both, and with both in whole-program mode (every indirect call a site,
# docs/whole-program.md); best of N runs.
#
# Environment: BUILD_DIR (default build), COMPILE_TIME_SITES (default 6000),
# COMPILE_TIME_REPS (default 3), CC (clang-19).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${BUILD_DIR:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
out=$build/bench/compile_time
cc=${CC:-clang-19}
sites=${COMPILE_TIME_SITES:-6000}
reps=${COMPILE_TIME_REPS:-3}
plugins=$build/lib/dyncall
mkdir -p "$out"
python3 "$here/compile_time_gen.py" "$sites" > "$out/big.c"
python3 "$here/compile_time_gen.py" "$sites" --plain > "$out/plain.c"

best() { # best <label> <source> <compiler args...>: best wall time of $reps runs, in ns
  local label=$1 src=$2 t best=
  shift 2
  for _ in $(seq "$reps"); do
    t0=$(date +%s%N)
    "$@" -O2 -c "$src" -o "$out/big.o"
    t=$(( $(date +%s%N) - t0 ))
    if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
  done
  echo "$label $best"
}

{
  best none "$out/big.c" "$cc" -I"$root/include"
  best attr "$out/big.c" "$cc" -fplugin="$plugins/dyncall_clang.so" -I"$root/include"
  best both "$out/big.c" "$cc" -fplugin="$plugins/dyncall_clang.so" -fpass-plugin="$plugins/dyncall_llvm.so" -I"$root/include"
  best plain_none "$out/plain.c" "$cc"
  best plain_both "$out/plain.c" "$cc" -fplugin="$plugins/dyncall_clang.so" -fpass-plugin="$plugins/dyncall_llvm.so"
  # (the pass plugin also as -fplugin=, so that clang knows its -mllvm
  # options: what dyncall-cc --dyncall-whole-program adds)
  best plain_wp "$out/plain.c" "$cc" -fplugin="$plugins/dyncall_clang.so" -fpass-plugin="$plugins/dyncall_llvm.so" \
    -fplugin="$plugins/dyncall_llvm.so" -mllvm -dyncall-whole-program
} > "$out/times.txt"

lines=$(wc -l < "$out/big.c")
awk -v sites="$sites" -v lines="$lines" -v reps="$reps" '
  { t[$1] = $2 / 1e9 }
  END {
    printf "compile time, clang-19 -O2 -c, %d annotated call sites (%d lines), best of %d\n", sites, lines, reps
    printf "  %-28s %8s %10s\n", "configuration", "seconds", "vs none"
    printf "  %-28s %8.3f %9.2fx\n", "no plugin", t["none"], 1
    printf "  %-28s %8.3f %9.2fx\n", "attribute plugin", t["attr"], t["attr"] / t["none"]
    printf "  %-28s %8.3f %9.2fx\n", "attribute + pass plugins", t["both"], t["both"] / t["none"]
    printf "the same program unannotated (%d indirect calls), best of %d\n", sites, reps
    printf "  %-28s %8.3f %9.2fx\n", "no plugin", t["plain_none"], 1
    printf "  %-28s %8.3f %9.2fx\n", "attribute + pass plugins", t["plain_both"], t["plain_both"] / t["plain_none"]
    printf "  %-28s %8.3f %9.2fx\n", "... whole-program", t["plain_wp"], t["plain_wp"] / t["plain_none"]
  }' "$out/times.txt"
