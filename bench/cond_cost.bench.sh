#!/usr/bin/env bash
# Conditional sites (docs/hooks.md): ns per iteration of `if (k) k(i)`
# through a DYNCALL key, unset and set, against an empty loop, the plain
# `if (k) k(i)` and a direct call, in one -mretpoline process (cond_cost.c).
#
# Environment: BUILD_DIR (default build), COND_COST_ARGS ("<iters> <reps>",
# default "2000000 41"), CC (clang-19; the GCC plugin has no conditional
# sites yet).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${BUILD_DIR:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
out=$build/bench/cond_cost
cc=${CC:-clang-19}
mkdir -p "$out"

flags=(-O2 -g -mretpoline -I"$here" -I"$root/include")
# The comparison unit: never the plugin.
"$cc" "${flags[@]}" -c "$here/cond_cost_plain.c" -o "$out/plain.o"
"$build/bin/dyncall-cc" "$cc" "${flags[@]}" -DBUILD_NAME='"retpoline"' \
  "$here/cond_cost.c" "$out/plain.o" -o "$out/cond_cost"
# shellcheck disable=SC2086
"$out/cond_cost" ${COND_COST_ARGS:-}
