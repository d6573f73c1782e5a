#!/usr/bin/env bash
# Held-out programs (issue 13): Debian source packages the project had not
# used, built UNMODIFIED in whole-program mode with both compilers, several
# -O levels, retpolines, PIE, LTO and for three arches, each checked with its
# own test suite against its plain build (docs/realworld.md, "Held-out programs").
#
#   scripts/heldout/run.sh [PROGRAM...]      (default: all eight below)
#
# PROGRAM   jansson   C (Debian source package jansson): a JSON library; its
#                     ctest suite (16 API test programs, ~250 json_process runs)
#           muparser  C++ (muparser): a math parser library (shared); its
#                     ctest suite t_ParserTest (virtual calls, pointers to
#                     member functions, callbacks)
#           pcre2     C (pcre2): regular expressions, with its JIT (machine
#                     code it generates, called through pointers); its
#                     ctest suite: RunTest (pcre2test over testdata/, the
#                     output compared with the expected files), RunGrepTest,
#                     pcre2posix_test
#           json-c    C (json-c): a JSON library whose objects carry their
#                     own serializer and destructor pointers; its ctest
#                     suite (23 scripts comparing outputs with .expected
#                     files; cross: they run the programs through wrappers)
#           brotli    C (brotli): the compression library and its command;
#                     its ctest suite (round trips at qualities 1, 6, 9, 11 and
#                     the decompression of reference files)
#           libuv1    C (libuv1): the event loop library: callbacks through
#                     pointers everywhere, threads, signals, fork, child
#                     processes; its ctest suite (uv_test and uv_test_a: the
#                     ~410 tests against the shared and the static library,
#                     each test in a child process of the runner)
#           cjson     C (cjson): a small JSON library with pluggable
#                     allocators (malloc/free through pointers); its ctest
#                     suite (the Unity tests and the parse_examples files)
#           pugixml   C++ (pugixml): an XML DOM and XPath library: virtual
#                     calls (xml_writer, xml_tree_walker), the allocator
#                     functions, exceptions out of XPath; its ctest suite
#                     (one test: its own runner over ~1,000 cases)
#
# Configurations (HELDOUT_CONFIGS="name ..." picks some; `run.sh --list`):
#   ref-<cc>            -O2, no retpoline, no dyncall: the reference outputs
#                       (<cc>: clang, gcc = GCC 12, gcc11 = GCC 11)
#   wp-<cc>-O0/-O2/-Os  dyncall-cc <cc> --dyncall-whole-program, retpolines
#                       (clang: -mretpoline, gcc: -mindirect-branch=thunk), -fPIE -pie
#   wp-<cc>-O2-lto      the same with -flto=thin (clang, lld) / -flto (gcc)
#   wp-<cc>-<arch>-O2   cross-built for aarch64 and ppc64le, -fPIE -pie, run
#                       under qemu-user (no retpolines there: x86-only flags)
#   pfe-<cc>-O0/-O2     dyncall-cc <cc> --dyncall-prologues=all, -fPIE -pie,
#                       -fcf-protection=full (x86-64) / -mbranch-protection=standard
#                       (aarch64): function-entry patching (issue 15)
#   pfe-<cc>-O2-lto, pfe-<cc>-<arch>-O2   the same with LTO, cross-built
# Every pfe configuration runs the suite four times: as built (nops), and
# with test/prologues/Inputs/hook-all.c preloaded (built here per arch):
# every registered function of every module hooked (hook), redirected to its
# own original (redirect), both; each test must print what it prints in
# ref-<cc>, no patch may be refused or fail, handler calls must be > 0; every
# __patchable_function_entries record must pass dyncall-rewrite check and be
# hookable.
# Every wp configuration runs the suite three times: as is, with
# DYNCALL_CHECK=1 and with DYNCALL_LEARN=0; each test must exit 0 and print
# exactly what it prints in ref-<cc> (cross: ref-<cc> of x86-64). Every ELF
# file built (programs, shared libraries) must pass `dyncall-rewrite check`.
#
# Output: build/heldout/<config>/<program>/ (cmake tree, logs, results-*.json),
# build/heldout/summary.txt. Last line: `heldout: N passed, N failed`.
# Sources: scripts/realworld/fetch.sh PACKAGE (build/realworld/src/<package>).
# Environment: BUILD_DIR (default build), HELDOUT_CONFIGS, HELDOUT_DIR (the
# output directory, default build/heldout: two runs at once need two).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
export BUILD_DIR=$build
ho=${HELDOUT_DIR:-$build/heldout}
case $ho in /*) ;; *) ho=$PWD/$ho ;; esac
src=$build/realworld/src
dcc=$build/bin/dyncall-cc
rewrite=$build/bin/dyncall-rewrite

# name  compiler  arch  flags  [lto]
all_configs() {
  cat <<'EOF'
ref-clang   clang-19 x86_64  -O2
ref-gcc     gcc-12   x86_64  -O2
ref-gcc11   gcc-11   x86_64  -O2
wp-clang-O0 clang-19 x86_64  -O0 -mretpoline
wp-clang-O2 clang-19 x86_64  -O2 -mretpoline
wp-clang-Os clang-19 x86_64  -Os -mretpoline
wp-clang-O2-lto clang-19 x86_64 -O2 -mretpoline -flto=thin
wp-gcc-O0   gcc-12   x86_64  -O0 -mindirect-branch=thunk
wp-gcc-O2   gcc-12   x86_64  -O2 -mindirect-branch=thunk
wp-gcc-Os   gcc-12   x86_64  -Os -mindirect-branch=thunk
wp-gcc-O2-lto gcc-12 x86_64  -O2 -mindirect-branch=thunk -flto
wp-gcc11-O2 gcc-11   x86_64  -O2 -mindirect-branch=thunk
wp-clang-aarch64-O2 clang-19 aarch64 -O2
wp-gcc-aarch64-O2   gcc-12   aarch64 -O2
wp-clang-ppc64le-O2 clang-19 ppc64le -O2
wp-gcc-ppc64le-O2   gcc-12   ppc64le -O2
pfe-clang-O0 clang-19 x86_64 -O0 -fcf-protection=full
pfe-clang-O2 clang-19 x86_64 -O2 -fcf-protection=full
pfe-clang-O2-lto clang-19 x86_64 -O2 -fcf-protection=full -flto=thin
pfe-gcc-O0   gcc-12   x86_64 -O0 -fcf-protection=full
pfe-gcc-O2   gcc-12   x86_64 -O2 -fcf-protection=full
pfe-gcc-O2-lto gcc-12 x86_64 -O2 -fcf-protection=full -flto
pfe-gcc11-O2 gcc-11  x86_64 -O2 -fcf-protection=full
pfe-clang-aarch64-O2 clang-19 aarch64 -O2 -mbranch-protection=standard
pfe-gcc-aarch64-O2   gcc-12   aarch64 -O2 -mbranch-protection=standard
pfe-gcc-ppc64le-O2   gcc-12   ppc64le -O2
pfe-clang-ppc64le-O2 clang-19 ppc64le -O2
EOF
}
if [ "${1:-}" = --list ]; then all_configs; exit 0; fi

programs=("$@"); [ ${#programs[@]} -gt 0 ] || programs=(jansson muparser pcre2 json-c brotli libuv1 cjson pugixml)
for p in "${programs[@]}"; do
  case $p in jansson|muparser|pcre2|json-c|brotli|libuv1|cjson|pugixml) ;; *) echo "usage: $0 [--list] [jansson|muparser|pcre2|json-c|brotli|libuv1|cjson|pugixml]..." >&2; exit 2 ;; esac
done
[ -x "$dcc" ] && [ -x "$rewrite" ] || { echo "heldout: build first (make build): no $dcc or $rewrite" >&2; exit 2; }
"$root/scripts/realworld/fetch.sh" "${programs[@]}" || exit $?

mkdir -p "$ho"
summary=$ho/summary.txt
: > "$summary"
npass=0 nfail=0
note() { echo "heldout: $*" | tee -a "$summary"; }
ok() { npass=$((npass + 1)); note "ok   $*"; }
bad() { nfail=$((nfail + 1)); note "FAIL $*"; }

triple_of() { case $1 in aarch64) echo aarch64-linux-gnu ;; ppc64le) echo powerpc64le-linux-gnu ;; esac; }

# write_wrapper FILE WORDS...: a compiler wrapper script (the exact command line)
write_wrapper() {
  local file=$1; shift
  printf '#!/bin/sh\n# compiler of scripts/heldout/run.sh\nexec %s"$@"\n' "$(printf '%q ' "$@")" > "$file"
  chmod +x "$file"
}

# configure_build CONFIG PROGRAM: cmake + build into $ho/CONFIG/PROGRAM/cmake
configure_build() {
  local name=$1 prog=$2 compiler=$3 arch=$4; shift 4
  local flags=("$@")
  local o=$ho/$name/$prog
  rm -rf "$o"; mkdir -p "$o"
  local kind=gcc; case $compiler in clang-*) kind=clang ;; esac
  local cc cxx cross=() front=() ld=() lto=0 f
  for f in "${flags[@]}"; do case $f in -flto*) lto=1 ;; esac; done
  if [ "$arch" = x86_64 ]; then
    cc=$compiler; cxx=${compiler/clang-/clang++-}; cxx=${cxx/gcc-/g++-}
  else
    local t; t=$(triple_of "$arch")
    cross=(-DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR="$arch")
    if [ $kind = clang ]; then
      cc=$compiler; cxx=${compiler/clang-/clang++-}; flags+=(--target="$t")
    else
      cc=$t-$compiler; cxx=$t-${compiler/gcc-/g++-}
    fi
  fi
  [ "${name#wp-}" != "$name" ] && front=("$dcc") flags+=(--dyncall-whole-program -fPIE) ld=(-pie)
  [ "${name#pfe-}" != "$name" ] && front=("$dcc") flags+=(--dyncall-prologues=all -fPIE) ld=(-pie)
  [ $kind = clang ] && { [ $lto = 1 ] || [ "$arch" != x86_64 ]; } && ld+=(-fuse-ld=lld)
  write_wrapper "$o/cc" "${front[@]}" "$cc" "${flags[@]}"
  write_wrapper "$o/cxx" "${front[@]}" "$cxx" "${flags[@]}"
  local tools=()
  if [ $lto = 1 ] && [ $kind = clang ]; then
    tools=(-DCMAKE_AR="$(command -v llvm-ar-19)" -DCMAKE_RANLIB="$(command -v llvm-ranlib-19)")
  elif [ $lto = 1 ]; then
    tools=(-DCMAKE_AR="$(command -v gcc-ar-12)" -DCMAKE_RANLIB="$(command -v gcc-ranlib-12)")
  fi
  local opts=()
  case $prog in
    jansson) opts=(-DJANSSON_BUILD_DOCS=OFF -DJANSSON_EXAMPLES=OFF) ;;
    # OpenMP (its bulk mode runs the parser on several threads) where the
    # compiler has it: GCC's libgomp; Debian's clang-19 has no libomp here.
    muparser) opts=(-DENABLE_SAMPLES=OFF -DENABLE_OPENMP=$([ $kind = gcc ] && echo ON || echo OFF)) ;;
    # The JIT on; pcre2grep's callouts that fork a command off: their
    # output interleaves with pcre2grep's own as the scheduler decides
    # (RunGrepTest failed so in a reference build under load).
    pcre2) opts=(-DPCRE2_SUPPORT_JIT=ON -DPCRE2GREP_SUPPORT_CALLOUT_FORK=OFF) ;;
    # json-c builds with -Werror; Clang 19 warns about its unprototyped
    # `json_util_get_last_err()` (-Wstrict-prototypes), unrelated to dyncall
    json-c) opts=(-DDISABLE_WERROR=ON) ;;
    # cJSON_Utils too (JSON patch and pointer: more code through pointers)
    cjson) opts=(-DENABLE_CJSON_UTILS=ON) ;;
    pugixml) opts=(-DPUGIXML_BUILD_TESTS=ON) ;;
    # brotli's tests are CMake scripts that run the brotli program behind
    # BROTLI_WRAPPER (it sets one only for compilers named like
    # aarch64-linux-gnu-gcc: the wrapper here is named cc)
    brotli) [ "$arch" = x86_64 ] || opts=(-DBROTLI_WRAPPER="qemu-$arch"
              -DBROTLI_WRAPPER_LD_PREFIX="/usr/$(triple_of "$arch")") ;;
  esac
  # json-c's version script names json_number_chars, which it never
  # defines: lld (undefined versions are errors by default since LLVM 16)
  # refuses what GNU ld accepts
  [ "$prog" = json-c ] && [[ " ${ld[*]} " == *" -fuse-ld=lld "* ]] && ld+=(-Wl,--undefined-version)
  local dir=$src/$prog
  cmake -S "$dir" -B "$o/cmake" -G Ninja -DCMAKE_BUILD_TYPE=None \
    -DCMAKE_C_COMPILER="$o/cc" -DCMAKE_CXX_COMPILER="$o/cxx" "${cross[@]}" "${tools[@]}" \
    -DCMAKE_EXE_LINKER_FLAGS="${ld[*]}" -DCMAKE_SHARED_LINKER_FLAGS="${ld[*]/-pie/}" \
    "${opts[@]}" > "$o/cmake.log" 2>&1 || { bad "$name/$prog: cmake failed (see $o/cmake.log)"; return 1; }
  if ! cmake --build "$o/cmake" -j 2 > "$o/build.log" 2>&1; then
    bad "$name/$prog: build failed (see $o/build.log)"; tail -20 "$o/build.log"; return 1
  fi
  ok "$name/$prog: built"
}

# emulator_wrappers CONFIG PROGRAM ARCH: json-c's test scripts run
# $top_builddir/tests/<program>, with no emulator option: for a cross build,
# $ho/CONFIG/PROGRAM/emu/tests/<program> runs the built program under qemu
# (the guest's variables come from QEMU_SET_ENV, run_suite)
emulator_wrappers() {
  local o=$ho/$1/$2 arch=$3 f t
  t=$(triple_of "$arch")
  mkdir -p "$o/emu/tests"
  for f in "$o"/cmake/tests/*; do
    [ -f "$f" ] && [ -x "$f" ] || continue
    printf '#!/bin/sh\nexec qemu-%s -L /usr/%s %q "$@"\n' "$arch" "$t" "$f" > "$o/emu/tests/${f##*/}"
    chmod +x "$o/emu/tests/${f##*/}"
  done
}

# check_elves CONFIG PROGRAM: dyncall-rewrite check on every ELF program and
# shared library of the build, and at least one dyncall site in them.
check_elves() {
  local name=$1 prog=$2 o=$ho/$1/$2 f sites=0 n=0 line
  while IFS= read -r f; do
    head -c 4 "$f" | grep -q 'ELF' || continue
    n=$((n + 1))
    line=$("$rewrite" check "$f" 2>&1 | tail -n 1)
    if [[ $line == *": no dyncall tables" ]]; then
      continue  # no indirect call of its own (a test driver over a shared library)
    elif [[ $line == *" 0 errors"* ]]; then
      sites=$((sites + $(sed -n 's/.*: \([0-9][0-9]*\) sites.*/\1/p' <<< "$line")))
    else
      bad "$name/$prog: dyncall-rewrite check $f: $line"; return 1
    fi
  done < <(find "$o/cmake" -type f \( -perm -u+x -o -name '*.so*' \) ! -name '*.o' ! -name '*.sh' ! -path '*/CMakeFiles/*')
  if [ "$sites" -gt 0 ]; then ok "$name/$prog: dyncall-rewrite check: $n ELF files, $sites sites, 0 errors"
  else bad "$name/$prog: no dyncall site in $n ELF files"; return 1; fi
}

# check_prologues CONFIG PROGRAM: dyncall-rewrite check (exit 0: every
# __patchable_function_entries record has the runtime's layout) on every ELF
# file of a pfe build, and the records counted with list --prologues (x86-64:
# each must be statically hookable; the cross arches: the runtime's report).
check_prologues() {
  local name=$1 prog=$2 arch=$3 o=$ho/$1/$2 f n=0 recs=0 yes=0 out
  while IFS= read -r f; do
    head -c 4 "$f" | grep -q 'ELF' || continue
    n=$((n + 1))
    if ! out=$("$rewrite" check "$f" 2>&1); then
      bad "$name/$prog: dyncall-rewrite check $f: $(tail -n 3 <<< "$out")"; return 1
    fi
    out=$("$rewrite" list --prologues "$f" 2>&1)
    recs=$((recs + $(grep -c '^#[0-9]' <<< "$out")))
    yes=$((yes + $(grep -c ' hookable=yes' <<< "$out")))
  done < <(find "$o/cmake" -type f \( -perm -u+x -o -name '*.so*' \) ! -name '*.o' ! -name '*.sh' ! -path '*/CMakeFiles/*')
  [ "$arch" = x86_64 ] || yes=$recs
  if [ "$recs" -gt 0 ] && [ "$yes" = "$recs" ]; then
    ok "$name/$prog: dyncall-rewrite check: $n ELF files, $recs patchable entries, all hookable"
  else bad "$name/$prog: $n ELF files, $recs patchable entries, $yes hookable"; return 1; fi
}

# hookall_lib CONFIG COMPILER ARCH: build test/prologues/Inputs/hook-all.c
# (the LD_PRELOAD library that patches every function) for the config's arch
# into $ho/CONFIG/hook-all.so; prints its path.
hookall_lib() {
  local name=$1 compiler=$2 arch=$3 cc=$2 lib=$build/lib t=()
  if [ "$arch" != x86_64 ]; then
    t=(--target="$(triple_of "$arch")"); lib=$build/lib/$(triple_of "$arch")
    case $compiler in gcc-*) cc=$(triple_of "$arch")-$compiler t=() ;; esac
  fi
  local out=$ho/$name/hook-all.so
  "$cc" "${t[@]}" -O2 -shared -fPIC -I"$root/include" "$root/test/prologues/Inputs/hook-all.c" \
    -o "$out" -L"$lib" -ldyncall -Wl,-rpath,"$lib" -ldl -lpthread >&2 || return 1
  echo "$out"
}

# hookall_sum CONFIG PROGRAM LABEL REPORT: the per-process lines of hook-all.so
# summed; fails when a function was refused or a patch failed, when nothing
# was patched or (modes with a handler) when no handler ran.
hookall_sum() {
  local name=$1 prog=$2 label=$3 rep=$4 line
  if [ ! -s "$rep" ]; then bad "$name/$prog: $label: no hook-all report"; return 1; fi
  line=$(awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                p++; if (v["fns"] > fns) fns = v["fns"]; if (v["patched"] > pat) pat = v["patched"]
                ref += v["refused"]; fail += v["failed"]; calls += v["calls"] }
              END { printf "%d processes, up to %d functions registered, %d patched, %d refused, %d failed, %d handler calls", p, fns, pat, ref, fail, calls }' "$rep")
  echo "$line" > "${rep%.txt}.sum"
  local pat ref fail calls
  pat=$(sed -n 's/.* \([0-9]*\) patched.*/\1/p' <<< "$line")
  ref=$(sed -n 's/.* \([0-9]*\) refused.*/\1/p' <<< "$line")
  fail=$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' <<< "$line")
  calls=$(sed -n 's/.* \([0-9]*\) handler calls/\1/p' <<< "$line")
  # refused: registered with a status (dyncall_fn_info), e.g. a function
  # whose slot is not 8-byte aligned (DYNCALL_ERR_ALIGN)
  if [ "$pat" -gt 0 ] && [ "$ref" = 0 ] && [ "$fail" = 0 ] \
      && { [ "$label" = redirect ] || [ "$calls" -gt 0 ]; }; then
    ok "$name/$prog: $label: $line"
  else bad "$name/$prog: $label: $line"; return 1; fi
}

# run_suite CONFIG PROGRAM ARCH LABEL ENV...: the program's own tests
run_suite() {
  local name=$1 prog=$2 arch=$3 label=$4; shift 4
  local o=$ho/$name/$prog prefix=() args=() kv compiler=${name#*-}
  compiler=${compiler%%-*}
  local guest=()  # brotli and json-c, cross: the guest's variables (QEMU_SET_ENV)
  if [ "$arch" != x86_64 ]; then
    local t; t=$(triple_of "$arch")
    # qemu-user sees writes to code only through the code's own address
    # (docs/runtime.md): mprotect is the runtime's writer under it.
    if [ "$prog" = brotli ] || [ "$prog" = json-c ]; then
      # their tests are host scripts that start the programs themselves
      # (brotli: qemu as BROTLI_WRAPPER; json-c: the wrappers of
      # emulator_wrappers): qemu takes the guest's variables from QEMU_SET_ENV
      guest=(DYNCALL_TEXT_WRITE=mprotect)
      [ "$prog" = json-c ] && args+=(--env "top_builddir=$o/emu")
    else
      prefix=(--prefix "qemu-$arch -E DYNCALL_TEXT_WRITE=mprotect -L /usr/$t")
    fi
  fi
  for kv in "$@"; do
    # the guest's LD_PRELOAD goes through qemu (the host's would preload
    # a foreign library into qemu itself)
    if [ "$arch" != x86_64 ] && [[ $kv == LD_PRELOAD=* ]]; then
      if [ ${#guest[@]} -gt 0 ]; then guest+=("$kv"); else prefix[1]+=" -E $kv"; fi
      continue
    fi
    args+=(--env "$kv")
  done
  [ ${#guest[@]} = 0 ] || args+=(--env "QEMU_SET_ENV=$(IFS=,; echo "${guest[*]}")")
  # json-c's test scripts run each test program under valgrind when it is
  # installed (USE_VALGRIND defaults to 1)
  [ "$prog" = json-c ] && args+=(--env USE_VALGRIND=0)
  # libuv's runner refuses root unless UV_RUN_AS_ROOT is set (CI runs as
  # root; a few cases then fail in every build, the reference's too, and
  # connects to unroutable addresses depend on the machine's network). Its
  # two tests print TAP: compared case by case (runtests.py --tap), not as
  # stdout, which carries pids, times, memory and the children's output cut
  # where the pipe's reads fell. Debian's rules set the same resolver
  # option (no DNS) and timeout multiplier.
  [ "$prog" = libuv1 ] && args+=(--env UV_RUN_AS_ROOT=1 --env RES_OPTIONS=attempts:0
    --env UV_TEST_TIMEOUT_MULTIPLIER=2 --tap uv_test --tap uv_test_a)
  if [ "$prog" = pcre2 ]; then
    # RunTest and RunGrepTest find testdata/ through $srcdir. Cross:
    # RunTest runs pcre2test behind an emulator given as -sim, but for its
    # test 0 (checkspecial ignores -sim: ~0 leaves it out, so its report
    # differs from the reference's by that test; it still checks every
    # output against testdata/ and fails on a difference); RunGrepTest has
    # no such option. The JIT test prints the JIT's target CPU.
    args+=(--env "srcdir=$src/pcre2" --ignore-line '^  target CPU of SLJIT compiler: ')
    [ "$arch" = x86_64 ] || args+=(--script-arg='~0' --script-sim=-sim
      --exit-only "pcre2_test:RunTest without its test 0, checked against testdata/"
      --skip "pcre2_grep_test:RunGrepTest has no emulator option")
  fi
  local ref=$ho/ref-$compiler/$prog/results-plain.json
  [ "${name#ref-}" = "$name" ] && args+=(--compare "$ref")
  local res
  res=$("$here/runtests.py" "$o/cmake" "$o/results-$label.json" "${prefix[@]}" "${args[@]}" 2>&1)
  local rc=$?
  echo "$res" > "$o/tests-$label.log"
  if [ $rc = 0 ]; then ok "$name/$prog: tests ($label): $(tail -n 1 <<< "$res" | sed 's/^heldout: //')"
  else bad "$name/$prog: tests ($label): $(tail -n 1 <<< "$res" | sed 's/^heldout: //')"; grep FAIL <<< "$res" | head -5; fi
}

sel=" ${HELDOUT_CONFIGS:-} "
while read -r name compiler arch flagstr; do
  [ -n "$name" ] || continue
  [ "$sel" = "  " ] || [[ $sel == *" $name "* ]] || [[ $name == ref-* ]] || continue
  if [ "$arch" != x86_64 ]; then
    t=$(triple_of "$arch")
    if ! command -v "qemu-$arch" >/dev/null || [ ! -d "$build/lib/$t" ]; then
      note "skip $name: no qemu-$arch or no $arch runtime (build/lib/$t)"; continue
    fi
    if [ "$compiler" = gcc-12 ] && [ ! -f "$build/lib/dyncall/$t/dyncall_gcc.so" ] \
        && [ ! -f "$build/lib/dyncall/dyncall_gcc-$t.so" ]; then
      note "skip $name: no GCC plugin for $t"; continue
    fi
  fi
  read -ra flags <<< "$flagstr"
  for prog in "${programs[@]}"; do
    # libuv's runner starts each case by executing its own program again:
    # under qemu-user without binfmt_misc that is "Exec format error" for
    # every case (tried: pfe-gcc-aarch64-O2, 401 of 410 cases failed so)
    if [ "$prog" = libuv1 ] && [ "$arch" != x86_64 ]; then
      note "skip $name/$prog: its runner re-executes itself per case, which qemu-user does not follow"
      continue
    fi
    configure_build "$name" "$prog" "$compiler" "$arch" "${flags[@]}" || continue
    [ "$prog" = json-c ] && [ "$arch" != x86_64 ] && emulator_wrappers "$name" "$prog" "$arch"
    if [[ $name == ref-* ]]; then
      run_suite "$name" "$prog" "$arch" plain
      continue
    fi
    if [[ $name == pfe-* ]]; then
      check_prologues "$name" "$prog" "$arch"
      run_suite "$name" "$prog" "$arch" nops
      hk=$(hookall_lib "$name" "$compiler" "$arch") || { bad "$name/$prog: hook-all.so build"; continue; }
      for mode in hook redirect both; do
        rm -f "$ho/$name/$prog/hookall-$mode.txt"
        run_suite "$name" "$prog" "$arch" "$mode" LD_PRELOAD="$hk" HOOKALL_MODE=$mode \
          HOOKALL_REPORT="$ho/$name/$prog/hookall-$mode.txt"
        hookall_sum "$name" "$prog" "$mode" "$ho/$name/$prog/hookall-$mode.txt"
      done
      continue
    fi
    check_elves "$name" "$prog"
    run_suite "$name" "$prog" "$arch" wp
    run_suite "$name" "$prog" "$arch" check DYNCALL_CHECK=1
    run_suite "$name" "$prog" "$arch" nolearn DYNCALL_LEARN=0
  done
done < <(all_configs)

echo "heldout: $npass passed, $nfail failed" | tee -a "$summary"
[ $nfail = 0 ]
