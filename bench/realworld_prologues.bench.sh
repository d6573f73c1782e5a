#!/usr/bin/env bash
# Function-entry patching on a real program: SQLite speedtest1 built plain
# and with dyncall-cc --dyncall-prologues=all (the NOPs alone), and that
# build with every function hooked by an empty handler; interleaved rounds,
# CPU time medians, the cost per hooked call (bench/realworld_prologues.py,
# docs/prologues.md "On a real program"). Builds into $BUILD_DIR/realworld/.
#
# Environment: BUILD_DIR (default build), REALWORLD_PROLOGUES_ARGS (extra
# arguments of bench/realworld_prologues.py, e.g. "--rounds 9 --sqlite-size 50").
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${BUILD_DIR:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
py=python3
[ -x "$build/venv/bin/python" ] && py=$build/venv/bin/python
# shellcheck disable=SC2086
BUILD_DIR=$build exec "$py" "$here/realworld_prologues.py" --json "$build/realworld/bench-prologues.json" ${REALWORLD_PROLOGUES_ARGS:-}
