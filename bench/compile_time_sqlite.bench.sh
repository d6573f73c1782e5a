#!/usr/bin/env bash
# Compile-time overhead of --dyncall-whole-program on SQLite's amalgamation,
# clang-19 and gcc-12 (bench/compile_time_sqlite.py; issue 13: <= 10 %).
# Environment: BUILD_DIR (default build), COMPILE_TIME_SQLITE_ARGS (e.g.
# "--rounds 5 --compilers clang-19").
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2086
exec python3 "$here/compile_time_sqlite.py" ${COMPILE_TIME_SQLITE_ARGS:-}
