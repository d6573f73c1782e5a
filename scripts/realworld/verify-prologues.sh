#!/usr/bin/env bash
# Function-entry patching on SQLite and Expat (issue 15; docs/realworld.md,
# "Function-entry patching on SQLite and Expat"): the UNMODIFIED sources
# built with dyncall-cc --dyncall-prologues=all (build.sh variant pfe) and
# run in four modes against the plain build of the same compiler:
#
#   scripts/realworld/verify-prologues.sh [COMPILER...]   (default: clang-19 gcc-12)
#
# Modes (test/prologues/Inputs/hook-all.c, preloaded): nops (as built),
# hook (every registered function hooked before main by a handler that
# counts, writes every argument register back and clobbers the caller-saved
# registers), redirect (every function redirected to its own
# dyncall_fn_original), both. Checked per mode: speedtest1 --verify --size
# $REALWORLD_PFE_SIZE (default 25) prints the plain build's hash; Expat's
# runtests pass; xmlwf -d of a generated 1 MB document writes the plain
# build's output; the per-process report of hook-all.so says 0 refused,
# 0 failed, every function patched and (hook, both) handler calls > 0.
# dyncall-rewrite check passes on the three programs and every
# __patchable_function_entries record is hookable (list --prologues).
# Ends with `realworld-prologues: N passed, N failed`.
# Environment: BUILD_DIR (default build), REALWORLD_PFE_SIZE.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
size=${REALWORLD_PFE_SIZE:-25}
verify_setup "$@"
"$here/genxml.py" "$work/doc.xml" 1

hk=$rw/hook-all.so
if [ ! -f "$hk" ] || [ "$root/test/prologues/Inputs/hook-all.c" -nt "$hk" ] \
    || [ "$build/lib/libdyncall.so" -nt "$hk" ]; then
  cc -O2 -shared -fPIC -I"$root/include" "$root/test/prologues/Inputs/hook-all.c" -o "$hk" \
    -L"$build/lib" -ldyncall -Wl,-rpath,"$build/lib" -ldl -lpthread || { bad "hook-all.so build"; exit 1; }
fi

# report_ok LABEL FILE MODE: the hook-all.so lines of one program's runs
report_ok() {
  local t=$1 rep=$2 mode=$3 line
  if [ ! -s "$rep" ]; then bad "$t: no hook-all report"; return; fi
  line=$(awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                p++; if (v["fns"] > fns) fns = v["fns"]; if (v["patched"] > pat) pat = v["patched"]
                if (v["patched"] != v["fns"]) short++
                ref += v["refused"]; fail += v["failed"]; calls += v["calls"] }
              END { printf "%d processes, %d functions, %d patched, %d refused, %d failed, %d handler calls, %d short", p, fns, pat, ref, fail, calls, short }' "$rep")
  if [[ $line =~ \ ([0-9]+)\ patched,\ 0\ refused,\ 0\ failed,\ ([0-9]+)\ handler\ calls,\ 0\ short ]] \
      && [ "${BASH_REMATCH[1]}" -gt 0 ] && { [ "$mode" = redirect ] || [ "${BASH_REMATCH[2]}" -gt 0 ]; }; then
    ok "$t: ${line%, 0 short}"
  else bad "$t: $line"; fi
}

for c in "${compilers[@]}"; do
  for v in plain pfe; do
    "$here/build.sh" "$v" "$c" sqlite expat > "$work/build.log" 2>&1
    st=$?
    if [ $st = 3 ]; then tail -1 "$work/build.log"; echo "realworld-prologues: 0 passed, 0 failed"; exit 0; fi
    [ $st = 0 ] || { tail -20 "$work/build.log"; bad "$c/$v: build"; continue 2; }
  done
  p=$rw/$c/plain d=$rw/$c/pfe
  for f in "$d/sqlite/speedtest1" "$d/expat/runtests" "$d/expat/xmlwf"; do
    f=$(readlink -f "$f")
    if ! out=$("$build/bin/dyncall-rewrite" check "$f" 2>&1); then bad "$c/pfe: dyncall-rewrite check $f: $(tail -2 <<< "$out")"; continue; fi
    out=$("$build/bin/dyncall-rewrite" list --prologues "$f" 2>&1)
    n=$(grep -c '^#[0-9]' <<< "$out"); y=$(grep -c ' hookable=yes' <<< "$out")
    if [ "$n" -gt 0 ] && [ "$n" = "$y" ]; then ok "$c/pfe: $(basename "$f"): $n patchable entries, all hookable"
    else bad "$c/pfe: $(basename "$f"): $n patchable entries, $y hookable"; fi
  done
  (cd "$work" && "$p/sqlite/speedtest1" --verify --size "$size" 2>&1 | grep '^Verification Hash' > "$work/hash-plain")
  rm -rf "$work/out-plain"; mkdir -p "$work/out-plain"; "$p/expat/xmlwf" -d "$work/out-plain" "$work/doc.xml"
  for mode in nops hook redirect both; do
    t="$c/pfe ($mode)" rep=$work/$c-$mode.rep
    rm -f "$rep"
    envs=(); [ $mode = nops ] || envs=(LD_PRELOAD="$hk" HOOKALL_MODE=$mode HOOKALL_REPORT="$rep")
    (cd "$work" && env "${envs[@]}" "$d/sqlite/speedtest1" --verify --size "$size" > "$work/sq.out" 2> "$work/sq.err")
    if grep '^Verification Hash' "$work/sq.out" | cmp -s - "$work/hash-plain"; then ok "$t: speedtest1 --size $size hash"
    else bad "$t: speedtest1 --size $size hash differs from plain ($(tail -2 "$work/sq.err"))"; fi
    if env "${envs[@]}" "$d/expat/runtests" > "$work/rt.out" 2> "$work/rt.err"; then ok "$t: expat runtests ($(tail -1 "$work/rt.out"))"
    else bad "$t: expat runtests: $(tail -1 "$work/rt.out")"; fi
    rm -rf "$work/out"; mkdir -p "$work/out"
    env "${envs[@]}" "$d/expat/xmlwf" -d "$work/out" "$work/doc.xml" 2> /dev/null
    if cmp -s "$work/out/doc.xml" "$work/out-plain/doc.xml"; then ok "$t: xmlwf -d output"
    else bad "$t: xmlwf -d output differs from plain"; fi
    [ $mode = nops ] || report_ok "$t: hook-all" "$rep" $mode
  done
done
echo "realworld-prologues: $pass passed, $fail failed"
[ $fail = 0 ]
