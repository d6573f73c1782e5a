#!/usr/bin/env bash
# `make check`: install what is missing, configure, build, run the whole
# suite (lit over test/, pytest over rewriter/tests) and end with exactly one
# line `N passed, N failed[, N skipped]`. Exit status 1 when anything failed.
#
# Environment: BUILD_DIR (default build), LIT_ARGS (extra lit arguments,
# e.g. "--filter tools"), DYNCALL_LIT_TIMEOUT (seconds per test, default 900),
# DYNCALL_SKIP_DEPS=1 (do not run scripts/install-deps.sh).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
venv=$build/venv
results=$build/test-results
summarize=("$root/scripts/summarize-results.py")

step_failed() {
  echo "check: $1 failed" >&2
  rm -rf "$results"; mkdir -p "$results"
  python3 "${summarize[@]}" --failed-step "$1"
  exit 1
}

cd "$root"
if [ "${DYNCALL_SKIP_DEPS:-0}" != 1 ]; then
  scripts/install-deps.sh --venv "$venv" || step_failed "scripts/install-deps.sh"
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  if [ "$build" = "$root/build" ]; then
    cmake --preset default || step_failed "cmake --preset default"
  else
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      || step_failed "cmake configure"
  fi
fi
cmake --build "$build" || step_failed "build (cmake --build $build)"

# The real-world programs (test/realworld): unmodified SQLite and Expat from
# Debian's source archive, cached in $build/realworld/src. Never fails the
# check: without them the test is UNSUPPORTED (the fetch says why).
echo "check: scripts/realworld/fetch.sh"
BUILD_DIR="$build" "$root/scripts/realworld/fetch.sh" \
  || echo "check: real-world sources not available (test/realworld will be UNSUPPORTED)"

# The next Debian release's libgcc_s (GCC 14's b-tree frame registry), to
# run the unwind tests against it too; the same: never fails the check.
echo "check: scripts/fetch-libgcc-next.sh"
BUILD_DIR="$build" "$root/scripts/fetch-libgcc-next.sh" \
  || echo "check: the next release's libgcc_s not available (its RUN lines are skipped)"

rm -rf "$results"; mkdir -p "$results"
export PATH="/usr/lib/llvm-19/bin:$build/bin:$venv/bin:$PATH"

echo "check: lit $build/test"
# shellcheck disable=SC2086
"$venv/bin/lit" -sv ${LIT_ARGS:-} -o "$results/lit.json" "$build/test"
lit_status=$?
echo "check: lit exited with status $lit_status"

pytest_args=()
if [ -d "$root/rewriter/tests" ]; then
  echo "check: pytest rewriter/tests"
  # The rewriter package is imported from the source tree.
  pp="$root/rewriter"
  [ -d "$root/rewriter/src" ] && pp="$root/rewriter/src:$pp"
  (cd "$root/rewriter" && DYNCALL_BUILD_DIR="$build" DYNCALL_SRC_ROOT="$root" \
    PYTHONPATH="$pp${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1 \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider --junitxml="$results/pytest.xml" tests)
  status=$?
  # 5 = no tests collected: not a failure in itself.
  if [ $status -ne 0 ] && [ $status -ne 1 ] && [ $status -ne 5 ]; then
    echo "check: pytest exited with status $status" >&2
  fi
  pytest_args=(--pytest "$results/pytest.xml")
fi

"$venv/bin/python" "${summarize[@]}" --lit "$results/lit.json" "${pytest_args[@]}"
