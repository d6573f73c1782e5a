#!/usr/bin/env bash
# `make demo` (after the build): compile examples/ with the plugin in a
# -mretpoline build, run it, then print the per-call cost table
# (direct / dyncall / plain indirect / retpoline indirect, one process).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
out=$build/examples
mkdir -p "$out"

cmd=("$build/bin/dyncall-cc" clang-19 -O2 -mretpoline "$root/examples/event_dispatch.c" -o "$out/event_dispatch")
echo "== examples/event_dispatch.c"
echo "\$ ${cmd[*]#"$root/"}"
"${cmd[@]}"
EVENT_DISPATCH_STATUS=1 "$out/event_dispatch"
echo
echo "== per-call cost (bench/call_cost.c, see bench/README.md)"
BUILD_DIR=$build CALL_COST_BUILDS=retpoline bash "$root/bench/call_cost.bench.sh"
