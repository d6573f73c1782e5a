#!/usr/bin/env bash
# What each part of an x86-64 hooked call costs: copies of the jump
# function with parts left out (prologue_parts.S/.c, docs/prologues.md).
#
# Environment: BUILD_DIR (default build), CC (clang-19),
# PROLOGUE_PARTS_ARGS ("<calls> <runs>", default "200000 51").
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${BUILD_DIR:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
if [ "$(uname -m)" != x86_64 ]; then
  echo "prologue_parts: x86-64 only"
  exit 0
fi
cc=${CC:-clang-19}
out=$build/bench/prologue_parts
mkdir -p "$out"
"$cc" -O2 -no-pie "$here/prologue_parts.c" "$here/prologue_parts.S" -o "$out/prologue_parts"
# shellcheck disable=SC2086
"$out/prologue_parts" ${PROLOGUE_PARTS_ARGS:-}
