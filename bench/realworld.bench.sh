#!/usr/bin/env bash
# Real-world benchmark: SQLite speedtest1 and Expat (tests/benchmark, xmlwf -d)
# built plain, plain -fno-jump-tables, retpoline, retpoline + dyncall
# (annotated), retpoline + whole-program dyncall (wp, unmodified sources), and
# (clang) IR PGO + retpoline alone, with dyncall and with wp; interleaved
# rounds, CPU time medians with IQR, overhead recovered, retpolines left
# (callgrind).
# See docs/realworld.md. Builds into $BUILD_DIR/realworld/.
#
# Environment: BUILD_DIR (default build), REALWORLD_ARGS (extra arguments of
# bench/realworld.py, e.g. "--rounds 7 --sqlite-size 50 --compilers clang-19").
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${BUILD_DIR:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
py=python3
[ -x "$build/venv/bin/python" ] && py=$build/venv/bin/python
# shellcheck disable=SC2086
BUILD_DIR=$build exec "$py" "$here/realworld.py" ${REALWORLD_ARGS:-}
