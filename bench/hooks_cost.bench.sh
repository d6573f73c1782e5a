#!/usr/bin/env bash
# Hook lists (docs/hooks.md): ns per call of DYNCALL_HOOKS_CALL with 0, 1,
# 2, 4, 8 handlers against the plain C loop over an array of function
# pointers (without and with retpolines) and a direct call, in one
# -mretpoline process (hooks_cost.c).
#
# Environment: BUILD_DIR (default build), HOOKS_COST_ARGS ("<iters> <reps>",
# default "2000000 41"), CC (clang-19: conditional sites).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${BUILD_DIR:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
out=$build/bench/hooks_cost
cc=${CC:-clang-19}
mkdir -p "$out"

flags=(-O2 -g -I"$here" -I"$root/include")
# The comparison units: never the plugin.
"$cc" "${flags[@]}" -c "$here/hooks_cost_loop.c" -o "$out/loop.o"
"$cc" "${flags[@]}" -mretpoline -DLOOP_NAME=loop_array_retp \
  -c "$here/hooks_cost_loop.c" -o "$out/loop_retp.o"
"$cc" "${flags[@]}" -mretpoline -c "$here/hooks_cost_handlers.c" -o "$out/handlers.o"
"$build/bin/dyncall-cc" "$cc" "${flags[@]}" -mretpoline \
  "$here/hooks_cost.c" "$out/loop.o" "$out/loop_retp.o" "$out/handlers.o" \
  -o "$out/hooks_cost"
# shellcheck disable=SC2086
"$out/hooks_cost" ${HOOKS_COST_ARGS:-}
