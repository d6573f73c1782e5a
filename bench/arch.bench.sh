#!/usr/bin/env bash
# Per-call cost and update latency on aarch64 and ppc64le under qemu-user
# (bench/arch_call_cost.sh; ratios only, see docs/arches.md).
# Environment: BUILD_DIR (default build).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${BUILD_DIR:-$(dirname "$here")/build}
exec bash "$here/arch_call_cost.sh" "$build"
