# Sourced by the scripts of scripts/realworld/ (not run on its own): the
# paths they share, and the PASS/FAIL counters of the verify scripts.
#
#   . "$(dirname "${BASH_SOURCE[0]}")/common.sh"
#
# Sets here (scripts/realworld), root (the checkout), build (BUILD_DIR,
# default build, made absolute and exported) and rw ($build/realworld).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
export BUILD_DIR=$build
rw=$build/realworld

# verify_setup ARGS...: compilers (ARGS, default clang-19 gcc-12), the
# counters pass and fail with ok/bad, and a scratch directory work removed
# at exit.
verify_setup() {
  compilers=("$@"); [ ${#compilers[@]} -gt 0 ] || compilers=(clang-19 gcc-12)
  pass=0 fail=0
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
}
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
