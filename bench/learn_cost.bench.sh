#!/usr/bin/env bash
# Per-call cost of one polymorphic call site (1..6 targets) as a learned
# dyncall site, a plain and a retpoline indirect call (see learn_cost.c), in
# a -mretpoline build, for DYNCALL_LEARN_TARGETS = 1, 2, 4 (what K buys).
#
# Environment: BUILD_DIR (default build), CC (clang-19; a GCC uses
# -mindirect-branch=thunk), LEARN_COST_ARGS ("<iters> <reps>").
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${BUILD_DIR:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
cc=${CC:-clang-19}
out=$build/bench/learn_cost/$(basename "$cc")
mkdir -p "$out"
case $("$cc" --version) in
  *clang*) retpoline=(-mretpoline) ;;
  *) retpoline=(-mindirect-branch=thunk) ;;
esac
flags=(-O2 -g -I"$here" -I"$root/include")
"$cc" "${flags[@]}" -DLOOP=loop_plain_indirect -DWITH_CALLEES \
  -c "$here/learn_cost_indirect.c" -o "$out/plain.o"
"$cc" "${flags[@]}" "${retpoline[@]}" -DLOOP=loop_retpoline_indirect \
  -c "$here/learn_cost_indirect.c" -o "$out/retpoline.o"
"$build/bin/dyncall-cc" "$cc" "${flags[@]}" "${retpoline[@]}" \
  -DBUILD_NAME="\"retpoline\"" "$here/learn_cost.c" "$out/plain.o" \
  "$out/retpoline.o" -o "$out/learn_cost" >/dev/null
for k in ${LEARN_COST_K:-1 2 4}; do
  # shellcheck disable=SC2086
  DYNCALL_LEARN_TARGETS=$k "$out/learn_cost" ${LEARN_COST_ARGS:-}
done
