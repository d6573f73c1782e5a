#!/usr/bin/env bash
# dyncall-rewrite throughput: check + relax of a generated binary with
# 100,000 sites (bench/rewriter_throughput.py), then 10,000 fuzz cases
# (bench/rewriter_fuzz.py).  Environment: BUILD_DIR (default build).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${BUILD_DIR:-$(dirname "$here")/build}
py=$build/venv/bin/python3
[ -x "$py" ] || py=python3
export PATH="$build/bin:$PATH"
"$py" "$here/rewriter_throughput.py"
"$py" "$here/rewriter_fuzz.py" --build "$build"
