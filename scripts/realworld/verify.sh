#!/usr/bin/env bash
# `make realworld`: build every variant of SQLite and Expat with each
# compiler and check the dyncall builds against the plain build, at the
# heavy sizes (the Clang variant at a small size runs in make check:
# test/realworld/sqlite-expat.test):
#
#   scripts/realworld/verify.sh [COMPILER...]     (default: clang-19 gcc-12)
#
# Checks per compiler, for dyncall, wp (whole-program, unmodified sources)
# and (Clang) pgo-dyncall, pgo-wp, each also under
# DYNCALL_CHECK=1: speedtest1 --verify --size $REALWORLD_SIZE (default 100)
# hash equal to the plain build's; Expat runtests pass; xmlwf -d output of a
# generated 4 MB document equal to the plain build's; dyncall-rewrite check
# clean (0 errors); the runtime's exit report (dyncall_report.c) says
# status=0 with modules registered (refused writes are printed, not checked).
# TinyXML-2 (C++), in wp (and Clang pgo-wp): its xmltest passes and writes the
# same files as the plain build's; tinyxml2_bench on a generated 4 MB document
# (no PIs) prints the same line; dyncall-rewrite check clean on both.
# Ends with `realworld: N passed, N failed`.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
size=${REALWORLD_SIZE:-100}
verify_setup "$@"
"$here/genxml.py" "$work/doc.xml" 4
"$here/genxml.py" --no-pi "$work/doc-nopi.xml" 4
tx_run() {  # tx_run DIR OUT ENV...: xmltest of DIR in a fresh copy of resources/ under OUT
  local d=$1 o=$2; shift 2
  rm -rf "$o"; mkdir -p "$o"; cp -r "$rw/src/tinyxml2/resources" "$o/"; mkdir -p "$o/resources/out"
  (cd "$o" && env "$@" "$d/tinyxml2/xmltest" > "$o/xmltest.out" 2> "$o/xmltest.err")
}

for c in "${compilers[@]}"; do
  variants=(plain dyncall wp); checked=(dyncall wp)
  case $c in clang-*) variants+=(pgo-dyncall pgo-wp); checked+=(pgo-dyncall pgo-wp) ;; esac
  for v in "${variants[@]}"; do
    "$here/build.sh" "$v" "$c" > "$work/build.log" 2>&1
    st=$?
    if [ $st = 3 ]; then tail -1 "$work/build.log"; echo "realworld: 0 passed, 0 failed"; exit 0; fi
    [ $st = 0 ] || { tail -20 "$work/build.log"; bad "$c/$v: build"; continue 2; }
    case $v in dyncall|pgo-dyncall) continue ;; esac
    "$here/build.sh" "$v" "$c" tinyxml2 > "$work/build.log" 2>&1 \
      || { tail -20 "$work/build.log"; bad "$c/$v: tinyxml2 build"; continue 2; }
  done
  p=$rw/$c/plain
  (cd "$work" && "$p/sqlite/speedtest1" --verify --size "$size" 2>&1 | grep '^Verification Hash' > "$work/hash-plain")
  rm -rf "$work/out-plain"; mkdir -p "$work/out-plain"; "$p/expat/xmlwf" -d "$work/out-plain" "$work/doc.xml"
  tx_run "$p" "$work/tx-plain"
  "$p/tinyxml2/tinyxml2_bench" "$work/doc-nopi.xml" 2 > "$work/txb-plain"
  for v in "${checked[@]}"; do
    d=$rw/$c/$v
    for mode in normal check; do
      envs=(LD_PRELOAD="$rw/dyncall-report.so"); [ $mode = check ] && envs+=(DYNCALL_CHECK=1)
      t="$c/$v ($mode)"
      (cd "$work" && env "${envs[@]}" "$d/sqlite/speedtest1" --verify --size "$size" > "$work/sq.out" 2> "$work/sq.err")
      if grep '^Verification Hash' "$work/sq.out" | cmp -s - "$work/hash-plain"; then ok "$t: speedtest1 --size $size hash"
      else bad "$t: speedtest1 --size $size hash differs from plain"; fi
      if grep -q "^dyncall-report: status=0 (ok) modules=[1-9]" "$work/sq.err"; then ok "$t: sqlite runtime report"
      else bad "$t: sqlite runtime report: $(grep dyncall-report "$work/sq.err")"; fi
      if env "${envs[@]}" "$d/expat/runtests" > "$work/rt.out" 2> "$work/rt.err"; then ok "$t: expat runtests ($(tail -1 "$work/rt.out"))"
      else bad "$t: expat runtests: $(tail -1 "$work/rt.out")"; fi
      if grep -q "^dyncall-report: status=0 (ok) modules=[1-9]" "$work/rt.err"; then ok "$t: expat runtime report"
      else bad "$t: expat runtime report: $(grep dyncall-report "$work/rt.err")"; fi
      rm -rf "$work/out"; mkdir -p "$work/out"
      env "${envs[@]}" "$d/expat/xmlwf" -d "$work/out" "$work/doc.xml" 2> /dev/null
      if cmp -s "$work/out/doc.xml" "$work/out-plain/doc.xml"; then ok "$t: xmlwf -d output"
      else bad "$t: xmlwf -d output differs from plain"; fi
    done
    case $v in
      wp|pgo-wp)
        for mode in normal check; do
          envs=(LD_PRELOAD="$rw/dyncall-report.so"); [ $mode = check ] && envs+=(DYNCALL_CHECK=1)
          t="$c/$v ($mode)"
          tx_run "$d" "$work/tx" "${envs[@]}"
          if tail -n 1 "$work/tx/xmltest.out" | grep -q "^Pass [1-9][0-9]*, Fail 0$" \
             && diff -r -q "$work/tx/resources/out" "$work/tx-plain/resources/out" > /dev/null; then
            ok "$t: tinyxml2 xmltest ($(tail -n 1 "$work/tx/xmltest.out"), same files)"
          else bad "$t: tinyxml2 xmltest: $(tail -n 1 "$work/tx/xmltest.out")"; fi
          if env "${envs[@]}" "$d/tinyxml2/tinyxml2_bench" "$work/doc-nopi.xml" 2 2> "$work/txb.err" \
             | cmp -s - "$work/txb-plain"; then ok "$t: tinyxml2_bench output"
          else bad "$t: tinyxml2_bench output differs from plain"; fi
          if grep -q "^dyncall-report: status=0 (ok) modules=[1-9]" "$work/txb.err"; then ok "$t: tinyxml2 runtime report"
          else bad "$t: tinyxml2 runtime report: $(grep dyncall-report "$work/txb.err")"; fi
        done
        for b in tinyxml2/xmltest tinyxml2/tinyxml2_bench; do
          if "$build/bin/dyncall-rewrite" check "$d/$b" 2>&1 | grep -q ': 0 errors'; then ok "$c/$v: dyncall-rewrite check $b"
          else bad "$c/$v: dyncall-rewrite check $b"; fi
        done ;;
    esac
    for b in sqlite/speedtest1 expat/xmlwf expat/benchmark; do
      if "$build/bin/dyncall-rewrite" check "$d/$b" 2>&1 | grep -q ': 0 errors'; then ok "$c/$v: dyncall-rewrite check $b"
      else bad "$c/$v: dyncall-rewrite check $b"; fi
    done
  done
done
echo "realworld: $pass passed, $fail failed"
[ $fail = 0 ]
