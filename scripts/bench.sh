#!/usr/bin/env bash
# `make bench`: run every bench/*.bench.sh in name order (a benchmark prints
# its own table; none is a pass/fail test). Exit status 1 if one failed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export BUILD_DIR=${BUILD_DIR:-$root/build}
failed=()
for b in "$root"/bench/*.bench.sh; do
  [ -e "$b" ] || continue
  name=$(basename "$b" .bench.sh)
  echo "=== bench: $name"
  if ! bash "$b"; then
    failed+=("$name")
  fi
  echo
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "bench: failed: ${failed[*]}" >&2
  exit 1
fi
