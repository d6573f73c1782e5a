#!/usr/bin/env bash
# Per-call cost of direct / dyncall / plain indirect / retpoline indirect
# calls, in a -mretpoline build and in a plain build (see call_cost.c).
#
# Environment: BUILD_DIR (default build), CALL_COST_BUILDS ("retpoline plain"),
# CALL_COST_ARGS ("<iters> <reps>", default "2000000 41"), CC (clang-19; with
# a GCC, e.g. CC=gcc-12, the retpoline build uses -mindirect-branch=thunk).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${BUILD_DIR:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
out=$build/bench/call_cost
cc=${CC:-clang-19}
out=$out/$(basename "$cc")
mkdir -p "$out"
case $("$cc" --version) in
  *clang*) retpoline=(-mretpoline) ;;
  *) retpoline=(-mindirect-branch=thunk) ;;
esac

flags=(-O2 -g -I"$here" -I"$root/include")
# The comparison units: never the plugin, so their loops are what they say.
"$cc" "${flags[@]}" -c "$here/call_cost_callee.c" -o "$out/callee.o"
"$cc" "${flags[@]}" -DLOOP=loop_plain_indirect -c "$here/call_cost_indirect.c" -o "$out/plain.o"
"$cc" "${flags[@]}" "${retpoline[@]}" -DLOOP=loop_retpoline_indirect \
  -c "$here/call_cost_indirect.c" -o "$out/retpoline.o"

for b in ${CALL_COST_BUILDS:-retpoline plain}; do
  case $b in
    retpoline) extra=("${retpoline[@]}") ;;
    plain) extra=() ;;
    *) echo "call_cost: unknown build '$b'" >&2; exit 2 ;;
  esac
  # The harness with the direct and dyncall loops, through the wrapper.
  "$build/bin/dyncall-cc" "$cc" "${flags[@]}" "${extra[@]}" -DBUILD_NAME="\"$b\"" \
    "$here/call_cost.c" "$out/callee.o" "$out/plain.o" "$out/retpoline.o" \
    -o "$out/call_cost-$b"
  # shellcheck disable=SC2086
  "$out/call_cost-$b" ${CALL_COST_ARGS:-}
  echo
done
