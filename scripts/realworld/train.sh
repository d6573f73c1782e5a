#!/usr/bin/env bash
# The training run of the Clang IR PGO variants: run the instrumented
# (pgo-gen) build of PROGRAM on a training workload and merge its profile:
#
#   scripts/realworld/train.sh COMPILER sqlite|expat|tinyxml2 [pgo-gen|pgo-gen-dyncall]
#
# sqlite: speedtest1 --size 20;  expat: tests/benchmark and xmlwf -d on a
# generated 1 MB document (smaller than the 4 MB benchmark input);
# tinyxml2: its xmltest and tinyxml2_bench on that document (--no-pi), 3 loops.
# Output: build/realworld/<compiler>/<gen variant>/<program>.profdata (llvm-profdata-19
# merge). pgo-gen's profile (the default) serves pgo and pgo-wp; pgo-gen-dyncall's
# (the instrumented dyncall build of the annotated copy) serves pgo-dyncall.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
[ $# = 2 ] || [ $# = 3 ] || { echo "usage: $0 COMPILER sqlite|expat|tinyxml2 [pgo-gen|pgo-gen-dyncall]" >&2; exit 2; }
compiler=$1 prog=$2
gen=$build/realworld/$compiler/${3:-pgo-gen}
major=${compiler#clang-}
profdata=llvm-profdata-$major
raw=$gen/profiles/$prog
rm -rf "$raw"; mkdir -p "$raw"
export LLVM_PROFILE_FILE=$raw/%p.profraw
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
case $prog in
  sqlite)
    (cd "$work" && "$gen/sqlite/speedtest1" --size 20 > /dev/null) ;;
  expat)
    "$here/genxml.py" "$work/train.xml" 1
    "$gen/expat/benchmark" "$work/train.xml" 4096 3 > /dev/null
    mkdir -p "$work/out"
    "$gen/expat/xmlwf" -d "$work/out" "$work/train.xml" ;;
  tinyxml2)
    "$here/genxml.py" --no-pi "$work/train.xml" 1
    cp -r "$build/realworld/src/tinyxml2/resources" "$work/" && mkdir -p "$work/resources/out"
    (cd "$work" && "$gen/tinyxml2/xmltest" > /dev/null)
    "$gen/tinyxml2/tinyxml2_bench" "$work/train.xml" 3 > /dev/null ;;
  *) echo "train: unknown program $prog" >&2; exit 2 ;;
esac
"$profdata" merge -o "$gen/$prog.profdata" "$raw"/*.profraw
echo "realworld-train[$compiler]: $gen/$prog.profdata"
