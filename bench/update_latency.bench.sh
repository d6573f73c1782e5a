#!/usr/bin/env bash
# Key update latency with 1, 100 and 10,000 sites (bench/update_latency.c,
# built by the runtime's CMake target bench-update-latency).
# Environment: BUILD_DIR (default build).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${BUILD_DIR:-$(dirname "$here")/build}
cmake --build "$build" --target bench-update-latency >/dev/null
"$build/bin/bench-update-latency"
