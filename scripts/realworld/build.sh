#!/usr/bin/env bash
# Build SQLite (speedtest1 + sqlite3.c), Expat (libexpat, xmlwf,
# tests/benchmark, runtests) and, when named, TinyXML-2 (C++: its xmltest
# and bench/tinyxml2_bench.cpp) in one variant with one compiler:
#
#   scripts/realworld/build.sh VARIANT COMPILER [sqlite|expat|tinyxml2]...
#
# (no program named: sqlite and expat). TinyXML-2 has no annotated copy: it
# is built in every variant but dyncall and pgo-dyncall (whole-program mode
# is its dyncall build).
#
# VARIANT   plain        -O2
#           plain-nojt   -O2 -fno-jump-tables
#           retpoline    -O2 + retpolines (clang: -mretpoline; gcc: -mindirect-branch=thunk)
#           dyncall      retpoline + build/bin/dyncall-cc + the annotated copy (annotate.py)
#           pgo          clang only: retpoline + -fprofile-use (profile of the pgo-gen build)
#           pgo-dyncall  clang only: dyncall + the profile of the pgo-gen-dyncall build
#           wp           retpoline + dyncall-cc --dyncall-whole-program, UNMODIFIED sources
#           wp-noig      wp without the inline guard (--dyncall-no-inline-guard)
#           pgo-wp       clang only: wp + the profile of pgo
#           pfe          -O2 + dyncall-cc --dyncall-prologues=all, UNMODIFIED sources, no
#                        retpolines: every function patchable (docs/prologues.md;
#                        scripts/realworld/verify-prologues.sh)
#           pgo-gen      clang only: the instrumented build (-fprofile-generate) pgo and pgo-wp use
#           pgo-gen-dyncall  clang only: the instrumented dyncall build (annotated
#                        copy through dyncall-cc) pgo-dyncall uses: the plugin's store
#                        phase changes the CFG of functions that store to keys before
#                        IR PGO instruments them, so a profile of the plain build
#                        does not match them (docs/realworld.md, "Build")
# COMPILER  clang-19 | gcc-12
#
# Output: build/realworld/<compiler>/<variant>/{sqlite/speedtest1, expat/xmlwf/xmlwf,
# expat/tests/runtests, expat/benchmark, tinyxml2/xmltest, tinyxml2/tinyxml2_bench}. Incremental: a program is rebuilt only
# when its inputs (sources, flags, the plugins for dyncall variants) changed.
# Fetches the sources first (fetch.sh); exit 3 when they cannot be fetched.
# Environment: BUILD_DIR (default build).
set -euo pipefail
shopt -s inherit_errexit
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() { echo "usage: $0 VARIANT COMPILER [sqlite|expat|tinyxml2]..." >&2; exit 2; }
[ $# -ge 2 ] || usage
variant=$1 compiler=$2; shift 2
programs=("$@"); [ ${#programs[@]} -gt 0 ] || programs=(sqlite expat)
say() { echo "realworld-build[$compiler/$variant]: $*"; }

case $compiler in
  clang-*) kind=clang; retpoline=(-mretpoline) ;;
  gcc-*) kind=gcc; retpoline=(-mindirect-branch=thunk) ;;
  *) echo "realworld: unknown compiler '$compiler' (clang-19 or gcc-12)" >&2; exit 2 ;;
esac
command -v "$compiler" >/dev/null || { echo "realworld: $compiler not found" >&2; exit 2; }
case $variant in
  plain|plain-nojt|retpoline|dyncall|wp|wp-noig|pfe) ;;
  pgo|pgo-dyncall|pgo-wp|pgo-gen|pgo-gen-dyncall)
    [ $kind = clang ] || { echo "realworld: variant $variant is Clang-only (IR PGO)" >&2; exit 2; } ;;
  *) usage ;;
esac

"$here/fetch.sh" || exit $?
src_sqlite=$rw/src/sqlite3
src_expat=$rw/src/expat/expat
src_tinyxml2=$rw/src/tinyxml2
out=$rw/$compiler/$variant
mkdir -p "$out"

# --- the amalgamation (generated once from the unmodified tree) -----------------
amal=$rw/sqlite3-amalgamation
"$here/amalgamation.sh" | sed "s/^realworld: /realworld-build[$compiler\/$variant]: /"

# --- the annotated copy -------------------------------------------------------------
# dyncall=1: built through dyncall-cc; annotated=1: from the annotated copy
# (the whole-program variants wp and pgo-wp compile the unmodified sources).
dyncall=0 annotated=0
case $variant in dyncall|pgo-dyncall|pgo-gen-dyncall) dyncall=1 annotated=1 ;; wp|wp-noig|pgo-wp|pfe) dyncall=1 ;; esac
if [ $annotated = 1 ]; then
  "$here/annotate.py" --build "$build" --compiler "$compiler"
  sqlite_dir=$rw/annotated/$compiler/sqlite3 expat_dir=$rw/annotated/$compiler/expat
else
  sqlite_dir=$amal expat_dir=$src_expat
fi

# IR PGO names a static function "<source path>;<name>", so the profile of
# pgo-gen (plain sources) only applies to the functions of pgo-dyncall
# (annotated copy) when both are compiled through the same path: the PGO
# variants compile through the symlink build/realworld/pgo-src/<compiler>/<program>,
# pointed at the plain or the annotated tree just before the build (so PGO
# builds of one compiler must not run concurrently).
pgo_path() {  # pgo_path PROGRAM DIR: print the path to compile DIR through
  case $variant in
    pgo|pgo-dyncall|pgo-wp|pgo-gen|pgo-gen-dyncall)
      local link=$rw/pgo-src/$compiler/$1
      mkdir -p "$(dirname "$link")"
      ln -sfn "$2" "$link"
      echo "$link" ;;
    *) echo "$2" ;;
  esac
}

# --- the compiler wrapper of this variant ------------------------------------------
flags=(-O2)
case $variant in
  plain) ;;
  plain-nojt) flags+=(-fno-jump-tables) ;;
  retpoline|dyncall) flags+=("${retpoline[@]}") ;;
  pgo-gen|pgo-gen-dyncall) flags+=("${retpoline[@]}" "-fprofile-generate=$out/profiles") ;;
  pgo|pgo-dyncall) flags+=("${retpoline[@]}") ;;  # + -fprofile-use per program
  wp) flags+=(--dyncall-whole-program "${retpoline[@]}") ;;
  wp-noig) flags+=(--dyncall-whole-program --dyncall-no-inline-guard "${retpoline[@]}") ;;
  pgo-wp) flags+=(--dyncall-whole-program "${retpoline[@]}") ;;  # + -fprofile-use
  pfe) flags+=(--dyncall-prologues=all) ;;
esac
cxx=${compiler/clang-/clang++-}; cxx=${cxx/gcc-/g++-}
front=(); [ $dyncall = 1 ] && front=("$build/bin/dyncall-cc")
write_wrapper() {  # write_wrapper FILE COMPILER EXTRA...: rewritten only on change
  local file=$1 cc=$2; shift 2
  local text
  text="#!/bin/sh
# $compiler/$variant compiler of scripts/realworld/build.sh
exec $(printf '%q ' "${front[@]}" "$cc" "${flags[@]}" "$@")\"\$@\""
  if [ ! -f "$file" ] || [ "$(cat "$file")" != "$text" ]; then
    printf '%s\n' "$text" > "$file"; chmod +x "$file"
  fi
}

# Inputs whose change means "rebuild": the wrappers, this script, and for
# dyncall variants the plugins and dyncall-cc.
deps=("$here/build.sh")
if [ $dyncall = 1 ]; then
  deps+=("$build/bin/dyncall-cc" "$build"/lib/dyncall/*.so)
fi
stale() {  # stale STAMP FILE...: true if STAMP is missing or older than a FILE
  local stamp=$1; shift
  [ -f "$stamp" ] || return 0
  local f
  for f in "$@" "${deps[@]}"; do [ "$f" -nt "$stamp" ] && return 0; done
  return 1
}

logged() {  # logged LOG CMD...: run CMD, its output appended to LOG; on failure show it
  local log=$1; shift
  echo "+ $*" >> "$log"
  "$@" >> "$log" 2>&1 || { echo "realworld: failed: $*" >&2; tail -30 "$log" >&2; exit 1; }
}

profile() {  # profile PROGRAM: the merged profile of the instrumented build (made if needed):
  # pgo-gen-dyncall's for pgo-dyncall, pgo-gen's for pgo and pgo-wp
  local prog=$1 gv=pgo-gen
  [ "$variant" = pgo-dyncall ] && gv=pgo-gen-dyncall
  local gen=$rw/$compiler/$gv
  local pd=$gen/$prog.profdata
  # always brought up to date (incremental), so a plugin change reaches the profile
  BUILD_DIR=$build "$here/build.sh" "$gv" "$compiler" "$prog" >&2
  if [ ! -f "$pd" ] || [ "$gen/.built-$prog" -nt "$pd" ] || [ "$here/train.sh" -nt "$pd" ]; then
    "$here/train.sh" "$compiler" "$prog" "$gv" >&2
  fi
  echo "$pd"
}

build_sqlite() {
  local o=$out/sqlite extra=() filter=()
  mkdir -p "$o"
  if [ "$variant" = pgo ] || [ "$variant" = pgo-dyncall ] || [ "$variant" = pgo-wp ]; then
    local pd; pd=$(profile sqlite) || exit 1
    extra=("-fprofile-use=$pd" -Wno-profile-instr-out-of-date -Wno-profile-instr-unprofiled)
  fi
  # The annotated build: the hot calls through locals and parameters (not
  # annotatable) become whole-program sites, selected by sqlite-locals.filter.
  [ $annotated = 1 ] && filter=("--dyncall-whole-program=$here/sqlite-locals.filter")
  write_wrapper "$o/cc" "$compiler" "${filter[@]}" "${extra[@]}"
  # speedtest1.c of the same release, from the tree (not in the amalgamation).
  local st=$src_sqlite/test/speedtest1.c
  [ $annotated = 1 ] && st=$sqlite_dir/speedtest1.c
  if stale "$o/.built" "$o/cc" "$sqlite_dir/sqlite3.c" "$st" ${extra[0]:+"${extra[0]#-fprofile-use=}"} \
      ${filter[0]:+"$here/sqlite-locals.filter"}; then
    say "sqlite: compiling sqlite3.c and speedtest1"
    local sd; sd=$(pgo_path sqlite "$sqlite_dir")
    local def=(-DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_MATH_FUNCTIONS -I"$sd")
    rm -f "$o/build.log"
    logged "$o/build.log" "$o/cc" "${def[@]}" -c "$sd/sqlite3.c" -o "$o/sqlite3.o"
    logged "$o/build.log" "$o/cc" "${def[@]}" -c "$st" -o "$o/speedtest1.o"
    logged "$o/build.log" "$o/cc" "$o/speedtest1.o" "$o/sqlite3.o" -o "$o/speedtest1" -lpthread -ldl -lm
    touch "$o/.built"
  fi
  case $variant in pgo-gen|pgo-gen-dyncall) touch "$out/.built-sqlite" ;; esac
  return 0
}

build_expat() {
  local o=$out/expat extra=()
  mkdir -p "$o"
  if [ "$variant" = pgo ] || [ "$variant" = pgo-dyncall ] || [ "$variant" = pgo-wp ]; then
    local pd; pd=$(profile expat) || exit 1
    extra=("-fprofile-use=$pd" -Wno-profile-instr-out-of-date -Wno-profile-instr-unprofiled)
  fi
  write_wrapper "$o/cc" "$compiler" "${extra[@]}"
  write_wrapper "$o/cxx" "$cxx" "${extra[@]}"
  local bsrc=$expat_dir/tests/benchmark/benchmark.c
  if stale "$o/.built" "$o/cc" "$expat_dir/lib/xmlparse.c" "$expat_dir/lib/xmltok.c" \
      "$expat_dir/lib/xmlrole.c" "$bsrc" ${extra[0]:+"${extra[0]#-fprofile-use=}"}; then
    say "expat: cmake build (libexpat, xmlwf, runtests) and tests/benchmark"
    rm -rf "$o/cmake"
    local ed; ed=$(pgo_path expat "$expat_dir")
    cmake -S "$ed" -B "$o/cmake" -G Ninja -DCMAKE_BUILD_TYPE=None \
      -DCMAKE_C_COMPILER="$o/cc" -DCMAKE_CXX_COMPILER="$o/cxx" \
      -DEXPAT_SHARED_LIBS=OFF -DEXPAT_BUILD_TESTS=ON -DEXPAT_BUILD_TOOLS=ON \
      -DEXPAT_BUILD_EXAMPLES=OFF -DEXPAT_BUILD_DOCS=OFF -DEXPAT_BUILD_PKGCONFIG=OFF \
      > "$o/cmake.log" 2>&1 || { echo "realworld: cmake of expat failed; see $o/cmake.log" >&2; exit 1; }
    cmake --build "$o/cmake" --target expat xmlwf runtests > "$o/build.log" 2>&1 \
      || { echo "realworld: expat build failed; see $o/build.log" >&2; tail -20 "$o/build.log" >&2; exit 1; }
    logged "$o/build.log" "$o/cc" -I"$ed/lib" -I"$o/cmake" -c "$ed/tests/benchmark/benchmark.c" -o "$o/benchmark.o"
    logged "$o/build.log" "$o/cc" "$o/benchmark.o" "$o/cmake/libexpat.a" -o "$o/benchmark" -lm
    ln -sf cmake/xmlwf/xmlwf "$o/xmlwf"
    ln -sf cmake/tests/runtests "$o/runtests"
    touch "$o/.built"
  fi
  case $variant in pgo-gen|pgo-gen-dyncall) touch "$out/.built-expat" ;; esac
  return 0
}

build_tinyxml2() {
  local o=$out/tinyxml2 extra=()
  if [ $annotated = 1 ]; then
    say "tinyxml2: no annotated copy (variant $variant); its dyncall build is wp"
    return 0
  fi
  mkdir -p "$o"
  if [ "$variant" = pgo ] || [ "$variant" = pgo-wp ]; then
    local pd; pd=$(profile tinyxml2) || exit 1
    extra=("-fprofile-use=$pd" -Wno-profile-instr-out-of-date -Wno-profile-instr-unprofiled)
  fi
  write_wrapper "$o/cxx" "$cxx" "${extra[@]}"
  local drv=$root/bench/tinyxml2_bench.cpp
  if stale "$o/.built" "$o/cxx" "$src_tinyxml2/tinyxml2.cpp" "$src_tinyxml2/tinyxml2.h" \
      "$src_tinyxml2/xmltest.cpp" "$drv" ${extra[0]:+"${extra[0]#-fprofile-use=}"}; then
    say "tinyxml2: compiling tinyxml2.cpp, xmltest and tinyxml2_bench"
    local td; td=$(pgo_path tinyxml2 "$src_tinyxml2")
    rm -f "$o/build.log"
    logged "$o/build.log" "$o/cxx" -I"$td" -c "$td/tinyxml2.cpp" -o "$o/tinyxml2.o"
    logged "$o/build.log" "$o/cxx" -I"$td" -c "$td/xmltest.cpp" -o "$o/xmltest.o"
    logged "$o/build.log" "$o/cxx" "$o/xmltest.o" "$o/tinyxml2.o" -o "$o/xmltest"
    logged "$o/build.log" "$o/cxx" -I"$td" -c "$drv" -o "$o/tinyxml2_bench.o"
    logged "$o/build.log" "$o/cxx" "$o/tinyxml2_bench.o" "$o/tinyxml2.o" -o "$o/tinyxml2_bench"
    touch "$o/.built"
  fi
  case $variant in pgo-gen|pgo-gen-dyncall) touch "$out/.built-tinyxml2" ;; esac
  return 0
}

# The exit reporter (dyncall_report.c) of the dyncall variants.
if [ $dyncall = 1 ]; then
  rep=$rw/dyncall-report.so
  if [ ! -f "$rep" ] || [ "$here/dyncall_report.c" -nt "$rep" ] || [ "$build/lib/libdyncall.so" -nt "$rep" ]; then
    "$compiler" -O2 -shared -fPIC -I"$root/include" "$here/dyncall_report.c" -o "$rep" \
      -L"$build/lib" -ldyncall -Wl,-rpath,"$build/lib" -ldl
  fi
fi

for p in "${programs[@]}"; do
  case $p in
    sqlite) build_sqlite ;;
    expat) build_expat ;;
    tinyxml2) build_tinyxml2 ;;
    *) usage ;;
  esac
done
