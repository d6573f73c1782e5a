// Checks redirects at the call sites (docs/prologues.md "Redirects at the call sites", x86-64, aarch64 and ppc64le): a redirect of a function with no handlers rewrites its direct calls and tail jumps in its module (from the relocations the linker kept: dyncall-cc --dyncall-prologues links with -Wl,--emit-relocs) to the target, byte-checked in memory; re-targeting, a handler added and removed, and restore move them back (restore: byte-identical); a recursive function's own call; a DSO's call of its own hidden function (rewritten) and of its default-visibility one (through its PLT: not listed, reached through the entry); a program linked without the table (--dyncall-no-caller-table), without a build-id, and a DSO whose file was replaced after the dlopen (another build-id) get no caller rewriting and the same results. Every function redirected to its own original gives the plain build's output. GCC 12, GCC 11, Clang; PIE and not; -fcf-protection; LTO (Clang with lld, GCC); aarch64 GCC 12 and Clang (BTI) under qemu; ppc64le GCC 12 (plugin) and Clang (XRay sleds) under qemu, PIE and not, where a site enters the target's local entry: targets without a TOC set-up (patchable or not) rewritten, a target whose symbol says it does not keep r2 and one of another module refused with the reason in skipped_status.
// REQUIRES: x86_64, dyncall-runtime
// (the x86-64 builds run natively; the aarch64 and ppc64le ones when qemu and the cross runtime and GCC plugin are there)
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O2 -fPIC -shared %S/Inputs/callers-lib.c -o %t/plain-lib.so
// RUN: %clang -O2 -I%src_root/include %s -o %t/plain -ldl %libdyncall_ldflags
// RUN: %t/plain %t/plain-lib.so | grep '^results' > %t/plain.out
//
// The linked program's bytes and relocations (what the runtime reads):
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 -ffunction-sections %s -o %t/gcc -ldl
// RUN: llvm-objdump -d --no-show-raw-insn --disassemble-symbols=caller,tail %t/gcc | FileCheck %s --check-prefix=DIS
// RUN: llvm-readelf -r %t/gcc | FileCheck %s --check-prefix=RELA
// DIS: <caller>:
// DIS: call{{.*}} <f>
// DIS: <tail>:
// DIS: jmp{{.*}} <f>
// RELA: Relocation section '.rela.text'
// RELA: R_X86_64_PLT32 {{.*}} f - 4
//
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 -fPIC -shared %S/Inputs/callers-lib.c -o %t/gcc-lib.so
// RUN: %t/gcc %t/gcc-lib.so > %t/gcc.out
// RUN: FileCheck %s --check-prefixes=CHECK,TABLE,RECSITE < %t/gcc.out
// RUN: grep '^results' %t/gcc.out | diff %t/plain.out -
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 -ffunction-sections -no-pie %s -o %t/gcc-nopie -ldl
// RUN: %t/gcc-nopie %t/gcc-lib.so | FileCheck %s --check-prefixes=CHECK,TABLE,RECSITE
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -fcf-protection=full -O2 -ffunction-sections %s -o %t/gcc-cet -ldl
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -fcf-protection=full -O2 -fPIC -shared %S/Inputs/callers-lib.c -o %t/gcc-cet-lib.so
// RUN: %t/gcc-cet %t/gcc-cet-lib.so > %t/gcc-cet.out
// RUN: FileCheck %s --check-prefixes=CHECK,TABLE,RECSITE < %t/gcc-cet.out
// RUN: grep '^results' %t/gcc-cet.out | diff %t/plain.out -
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -fcf-protection=full -O2 -ffunction-sections -no-pie %s -o %t/gcc-cet-nopie -ldl
// RUN: %t/gcc-cet-nopie %t/gcc-cet-lib.so | FileCheck %s --check-prefixes=CHECK,TABLE,RECSITE
// RUN: %if gcc11-plugin %{ %dyncall_cc gcc-11 --dyncall-prologues -O2 -ffunction-sections %s -o %t/gcc11 -ldl %}
// RUN: %if gcc11-plugin %{ %dyncall_cc gcc-11 --dyncall-prologues -O2 -fPIC -shared %S/Inputs/callers-lib.c -o %t/gcc11-lib.so %}
// RUN: %if gcc11-plugin %{ %t/gcc11 %t/gcc11-lib.so > %t/gcc11.out %}
// RUN: %if gcc11-plugin %{ FileCheck %s --check-prefixes=CHECK,TABLE,RECSITE < %t/gcc11.out %}
// RUN: %if gcc11-plugin %{ grep '^results' %t/gcc11.out | diff %t/plain.out - %}
// RUN: %if gcc11-plugin %{ %dyncall_cc gcc-11 --dyncall-prologues -fcf-protection=full -O2 -ffunction-sections -no-pie %s -o %t/gcc11-cet -ldl %}
// RUN: %if gcc11-plugin %{ %t/gcc11-cet %t/gcc11-lib.so | FileCheck %s --check-prefixes=CHECK,TABLE,RECSITE %}
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 -ffunction-sections %s -o %t/clang -ldl
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 -fPIC -shared %S/Inputs/callers-lib.c -o %t/clang-lib.so
// RUN: %t/clang %t/clang-lib.so > %t/clang.out
// RUN: FileCheck %s --check-prefixes=CHECK,TABLE,RECSITE < %t/clang.out
// RUN: grep '^results' %t/clang.out | diff %t/plain.out -
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 -ffunction-sections -no-pie %s -o %t/clang-nopie -ldl
// RUN: %t/clang-nopie %t/clang-lib.so | FileCheck %s --check-prefixes=CHECK,TABLE,RECSITE
// RUN: %dyncall_cc %clang --dyncall-prologues -fcf-protection=full -O2 -ffunction-sections %s -o %t/clang-cet -ldl
// RUN: %dyncall_cc %clang --dyncall-prologues -fcf-protection=full -O2 -fPIC -shared %S/Inputs/callers-lib.c -o %t/clang-cet-lib.so
// RUN: %t/clang-cet %t/clang-cet-lib.so > %t/clang-cet.out
// RUN: FileCheck %s --check-prefixes=CHECK,TABLE,RECSITE < %t/clang-cet.out
// RUN: grep '^results' %t/clang-cet.out | diff %t/plain.out -
// RUN: %dyncall_cc %clang --dyncall-prologues -fcf-protection=full -O2 -ffunction-sections -no-pie %s -o %t/clang-cet-nopie -ldl
// RUN: %t/clang-cet-nopie %t/clang-cet-lib.so | FileCheck %s --check-prefixes=CHECK,TABLE,RECSITE
//
// LTO: Clang with lld, GCC.
// RUN: %if lld %{ %dyncall_cc %clang --dyncall-prologues -flto -fuse-ld=lld -O2 -ffunction-sections %s -o %t/clang-lto -ldl %}
// RUN: %if lld %{ %t/clang-lto %t/clang-lib.so | FileCheck %s --check-prefixes=CHECK,TABLE,RECANY %}
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -flto -O2 -ffunction-sections %s -o %t/gcc-lto -ldl
// RUN: %t/gcc-lto %t/gcc-lib.so | FileCheck %s --check-prefixes=CHECK,TABLE,RECANY
//
// No caller table: linked without the relocations; without a build-id;
// a DSO whose file was replaced after the dlopen (the runtime must not read
// the new file's relocations for the old image).
// RUN: %dyncall_cc gcc-12 --dyncall-prologues --dyncall-no-caller-table -O2 -ffunction-sections %s -o %t/gcc-norel -ldl
// RUN: llvm-readelf -S %t/gcc-norel | FileCheck %s --check-prefix=NORELA
// NORELA-NOT: .rela.text
// RUN: %t/gcc-norel %t/gcc-lib.so > %t/gcc-norel.out
// RUN: FileCheck %s --check-prefixes=CHECK,NOREL < %t/gcc-norel.out
// RUN: grep '^results' %t/gcc-norel.out | diff %t/plain.out -
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 -ffunction-sections %s -o %t/clang-nobid -ldl -Wl,--build-id=none
// RUN: %t/clang-nobid %t/clang-lib.so | FileCheck %s --check-prefixes=CHECK,NOBID
// RUN: cp %t/gcc-lib.so %t/swapped-lib.so
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -DVARIANT -O2 -fPIC -shared %S/Inputs/callers-lib.c -o %t/variant-lib.so
// RUN: %t/gcc %t/swapped-lib.so %t/variant-lib.so | FileCheck %s --check-prefixes=CHECK,TABLE-MAIN,SWAPPED,RECSITE
//
// A site another patcher changed (the test writes it: with the mprotect
// writer, which its own mprotect write does not bypass) is never written:
// restore is refused and f stays redirected (the site goes where the other
// patcher put it, every other call reaches g through f's entry).
// RUN: env DYNCALL_TEXT_WRITE=mprotect CALLERS_FOREIGN=1 %t/gcc %t/gcc-lib.so | FileCheck %s --check-prefixes=CHECK,TABLE,RECSITE,FOREIGN
//
// aarch64 under qemu (GCC 12 and Clang, BTI): `bl`/`b` rewritten by one
// 32-bit store each.
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %dyncall_cc aarch64-linux-gnu-gcc-12 --dyncall-prologues -O2 -ffunction-sections %s -o %t/a64-gcc -ldl %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %dyncall_cc aarch64-linux-gnu-gcc-12 --dyncall-prologues -O2 -fPIC -shared %S/Inputs/callers-lib.c -o %t/a64-gcc-lib.so %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %qemu_aarch64 %t/a64-gcc %t/a64-gcc-lib.so > %t/a64-gcc.out %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ FileCheck %s --check-prefixes=CHECK,TABLE,RECSITE < %t/a64-gcc.out %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ grep '^results' %t/a64-gcc.out | diff %t/plain.out - %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %qemu_aarch64 -E CALLERS_FOREIGN=1 %t/a64-gcc %t/a64-gcc-lib.so | FileCheck %s --check-prefixes=CHECK,TABLE,RECSITE,FOREIGN %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %dyncall_cc %clang --target=aarch64-linux-gnu --dyncall-prologues -mbranch-protection=standard -O2 -ffunction-sections %s -o %t/a64-clang -ldl %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %dyncall_cc %clang --target=aarch64-linux-gnu --dyncall-prologues -mbranch-protection=standard -O2 -fPIC -shared %S/Inputs/callers-lib.c -o %t/a64-clang-lib.so %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %qemu_aarch64 %t/a64-clang %t/a64-clang-lib.so > %t/a64-clang.out %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ FileCheck %s --check-prefixes=CHECK,TABLE,RECSITE < %t/a64-clang.out %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ grep '^results' %t/a64-clang.out | diff %t/plain.out - %}
//
// ppc64le under qemu (GCC 12 with the plugin, Clang's XRay sleds; PIE and
// -no-pie): the linker sent `bl f`/`b f` to f's local entry, past its TOC
// set-up (R_PPC64_REL24 to f + 0, the branch to f+8); rewritten by one
// 32-bit store each to the target's local entry when the target has the
// caller's TOC (the lines checked with the PPC64LE prefix: targets without a
// TOC set-up, patchable or not, and the ones refused: a function whose
// symbol says it does not keep r2, one of another module).
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 -ffunction-sections %s -o %t/ppc-gcc -ldl %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ llvm-objdump -d --no-show-raw-insn --disassemble-symbols=caller,tail %t/ppc-gcc | FileCheck %s --check-prefix=DIS-PPC64LE %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ llvm-readelf -r %t/ppc-gcc | FileCheck %s --check-prefix=RELA-PPC64LE %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 -fPIC -shared %S/Inputs/callers-lib.c -o %t/ppc-gcc-lib.so %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %qemu_ppc64le %t/ppc-gcc %t/ppc-gcc-lib.so > %t/ppc-gcc.out %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ FileCheck %s --check-prefixes=CHECK,TABLE,RECSITE,PPC64LE < %t/ppc-gcc.out %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ grep '^results' %t/ppc-gcc.out | diff %t/plain.out - %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 -ffunction-sections -no-pie %s -o %t/ppc-gcc-nopie -ldl %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %qemu_ppc64le -E CALLERS_FOREIGN=1 %t/ppc-gcc-nopie %t/ppc-gcc-lib.so | FileCheck %s --check-prefixes=CHECK,TABLE,RECSITE,FOREIGN,PPC64LE %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 -ffunction-sections %s -o %t/ppc-clang -ldl %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ llvm-objdump -d --no-show-raw-insn --disassemble-symbols=caller,tail %t/ppc-clang | FileCheck %s --check-prefix=DIS-PPC64LE %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 -fPIC -shared %S/Inputs/callers-lib.c -o %t/ppc-clang-lib.so %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %qemu_ppc64le %t/ppc-clang %t/ppc-clang-lib.so > %t/ppc-clang.out %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ FileCheck %s --check-prefixes=CHECK,TABLE,RECSITE,PPC64LE < %t/ppc-clang.out %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ grep '^results' %t/ppc-clang.out | diff %t/plain.out - %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 -ffunction-sections -no-pie %s -o %t/ppc-clang-nopie -ldl %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %qemu_ppc64le -E CALLERS_FOREIGN=1 %t/ppc-clang-nopie %t/ppc-clang-lib.so | FileCheck %s --check-prefixes=CHECK,TABLE,RECSITE,FOREIGN,PPC64LE %}
// DIS-PPC64LE: <caller>:
// DIS-PPC64LE: bl {{.*}} <f+0x8>
// DIS-PPC64LE: <tail>:
// DIS-PPC64LE: b {{.*}} <f+0x8>
// RELA-PPC64LE: Relocation section '.rela.text'
// RELA-PPC64LE: R_PPC64_REL24 {{.*}} f + 0
//
// Without -ffunction-sections GNU as resolves GCC's `jmp f` to a function
// of the same section itself: no relocation, so the tail jump is not
// listed and keeps reaching the target through f's entry.
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 %s -o %t/gcc-onesec -ldl
// RUN: llvm-objdump -d --no-show-raw-insn --disassemble-symbols=caller,tail %t/gcc-onesec | FileCheck %s --check-prefix=DIS
// RUN: llvm-readelf -r %t/gcc-onesec | FileCheck %s --check-prefix=RELA
// RUN: %t/gcc-onesec %t/gcc-lib.so > %t/gcc-onesec.out
// RUN: FileCheck %s --check-prefixes=CHECK,GASJMP,RECSITE < %t/gcc-onesec.out
// RUN: grep '^results' %t/gcc-onesec.out | diff %t/plain.out -

// CHECK: sites found: caller 1 tail 1 rec 1 lcaller 1
// CHECK-NEXT: redirect f -> g: 0
// CHECK-NEXT: caller 1016 tail 1018 pointer 1015
// TABLE-NEXT: bytes: caller->g 1 tail->g 1
// TABLE-NEXT: f: table 0 all-rewritten 1 skipped 0
// TABLE-MAIN-NEXT: bytes: caller->g 1 tail->g 1
// TABLE-MAIN-NEXT: f: table 0 all-rewritten 1 skipped 0
// GASJMP-NEXT: bytes: caller->g 1 tail->g 0
// GASJMP-NEXT: f: table 0 all-rewritten 1 skipped 0
// NOREL-NEXT: bytes: caller->g 0 tail->g 0
// NOREL-NEXT: f: table -17 all-rewritten 0 skipped 0
// NOBID-NEXT: bytes: caller->g 0 tail->g 0
// NOBID-NEXT: f: table -18 all-rewritten 0 skipped 0
// CHECK-NEXT: redirect f -> g2: 0
// CHECK-NEXT: caller 2016 tail 2018 pointer 2015
// TABLE-NEXT: bytes: caller->g2 1 tail->g2 1
// TABLE-MAIN-NEXT: bytes: caller->g2 1 tail->g2 1
// GASJMP-NEXT: bytes: caller->g2 1 tail->g2 0
// NOREL-NEXT: bytes: caller->g2 0 tail->g2 0
// NOBID-NEXT: bytes: caller->g2 0 tail->g2 0
// CHECK-NEXT: hook f: 0
// CHECK-NEXT: caller 2016 tail 2018 pointer 2015 handled 3
// CHECK-NEXT: bytes: caller->f 1 tail->f 1
// CHECK-NEXT: unhook f: 0
// CHECK-NEXT: caller 2016 tail 2018 pointer 2015 handled 3
// TABLE-NEXT: bytes: caller->g2 1 tail->g2 1
// TABLE-MAIN-NEXT: bytes: caller->g2 1 tail->g2 1
// GASJMP-NEXT: bytes: caller->g2 1 tail->g2 0
// NOREL-NEXT: bytes: caller->g2 0 tail->g2 0
// NOBID-NEXT: bytes: caller->g2 0 tail->g2 0
// CHECK-NEXT: restore f: 0
// CHECK-NEXT: caller 16 tail 18 pointer 15
// CHECK-NEXT: bytes: caller, tail as built 1 1
// CHECK-NEXT: redirect rec -> rec_v2: 0 rec(12) ok 1
// RECSITE-NEXT: rec: rewritten 1
// RECANY-NEXT: rec: rewritten {{[01]}}
// NOREL-NEXT: rec: rewritten 0
// NOBID-NEXT: rec: rewritten 0
// CHECK-NEXT: restore rec: 0 rec(12) ok 1 as built 1
// CHECK-NEXT: redirect lf -> lg: 0
// CHECK-NEXT: lcaller 142 lpubcaller 12
// TABLE-NEXT: bytes: lcaller->lg 1
// TABLE-NEXT: lf: table 0 sites 1 rewritten 1 skipped 0
// GASJMP-NEXT: bytes: lcaller->lg 1
// GASJMP-NEXT: lf: table 0 sites 1 rewritten 1 skipped 0
// NOREL-NEXT: bytes: lcaller->lg 1
// NOREL-NEXT: lf: table 0 sites 1 rewritten 1 skipped 0
// NOBID-NEXT: bytes: lcaller->lg 1
// NOBID-NEXT: lf: table 0 sites 1 rewritten 1 skipped 0
// SWAPPED-NEXT: bytes: lcaller->lg 0
// SWAPPED-NEXT: lf: table -18 sites 0 rewritten 0 skipped 0
// CHECK-NEXT: redirect lpub -> lg: 0
// CHECK-NEXT: lcaller 142 lpubcaller 142
// CHECK-NEXT: lpub: table {{-?[0-9]+}} sites 0 rewritten 0 skipped 0
// CHECK-NEXT: restore lf, lpub: 0 0
// CHECK-NEXT: lcaller 16 lpubcaller 12
// CHECK-NEXT: bytes: lcaller as built 1
// FOREIGN-NEXT: foreign write: restore f -6 still redirected 1
// FOREIGN-NEXT: caller 2016 tail 1018 pointer 1015
// FOREIGN-NEXT: f: table 0 all-rewritten 1 skipped 1
// FOREIGN-NEXT: put back: restore f 0
// FOREIGN-NEXT: caller 16 tail 18 pointer 15
// FOREIGN-NEXT: bytes: caller, tail as built 1 1
// PPC64LE-NEXT: ppc: f sets up a TOC 1, g 1, f_notoc 0, g_notoc 0
// PPC64LE-NEXT: redirect f -> g_notoc: 0 caller 3026
// PPC64LE-NEXT: bytes: caller->g_notoc 1
// PPC64LE-NEXT: f: table 0 sites [[N:[0-9]+]] rewritten [[N]] skipped 0 why 0
// PPC64LE-NEXT: redirect f_notoc -> g: 0 caller_notoc 1016
// PPC64LE-NEXT: bytes: caller_notoc->g 1
// PPC64LE-NEXT: f_notoc: table 0 sites 1 rewritten 1 skipped 0 why 0
// PPC64LE-NEXT: redirect f -> g_plain: 0 caller 4016
// PPC64LE-NEXT: bytes: caller->g_plain 1
// PPC64LE-NEXT: f: table 0 sites [[N]] rewritten [[N]] skipped 0 why 0
// PPC64LE-NEXT: redirect f -> g_r2: -1 caller 4016
// PPC64LE-NEXT: bytes: caller->f 0
// PPC64LE-NEXT: f: table 0 sites [[N]] rewritten [[N]] skipped 0 why 0
// PPC64LE-NEXT: redirect f -> lnotoc: 0 caller 5016
// PPC64LE-NEXT: bytes: caller->f 1
// PPC64LE-NEXT: f: table 0 sites [[N]] rewritten 0 skipped [[N]] why -1
// PPC64LE-NEXT: restore f, f_notoc: 0 0 caller 16 caller_notoc 26
// PPC64LE-NEXT: bytes: caller->f 1 caller_notoc->f_notoc 1
// CHECK-NEXT: every function redirected to its original: 0
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <dyncall.h>

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noipa))
#endif

volatile long sink;

NOINLINE long f(long x) { sink++; return x * 3; }
NOINLINE long g(long x) { sink++; return x * 3 + 1000; }
NOINLINE long g2(long x) { sink++; return x * 3 + 2000; }
NOINLINE long caller(long x) { return f(x) + 1; }
NOINLINE long tail(long x) { return f(x + 1); }
NOINLINE long rec(long n) { sink++; return n < 2 ? n : (rec(n - 1) ^ n) + 1; }
NOINLINE long rec_v2(long n)
{
	long (*orig)(long) = (long (*)(long))dyncall_fn_original(rec);

	return 1 + orig(n);
}

/* ppc64le: functions that set up no TOC (local entry = global entry: no
 * global variable), one of them not patchable; the empty asm keeps Clang
 * from inferring them pure and merging calls across a redirect */
#define IMPURE() __asm__ volatile("" ::: "memory")
NOINLINE long f_notoc(long x) { IMPURE(); return x * 5; }
NOINLINE long g_notoc(long x) { IMPURE(); return x * 5 + 3000; }
NOINLINE long caller_notoc(long x) { return f_notoc(x) + 1; }
DYNCALL_NOT_PATCHABLE NOINLINE long g_plain(long x)
{
	IMPURE();
	return x * 3 + 4000;
}
#ifdef __powerpc64__
/* a function whose symbol says it does not keep r2 (st_other local-entry
 * field 1; it does keep it): a TOC caller may reach it only through the
 * linker's TOC-save stub, so a site is never sent there, and it is no
 * redirect target either (arch_fentry_target_ok: DYNCALL_ERR_INVAL, f
 * stays redirected to g_plain; target-toc-ppc64le.c) */
long g_r2(long x);
__asm__(".text\n.globl g_r2\n.type g_r2, @function\n.p2align 2\n"
	"g_r2:\n.localentry g_r2, 1\n\tmulli 3, 3, 3\n"
	"\taddi 3, 3, 6000\n\tblr\n.size g_r2, .-g_r2\n");
#endif

/* what rec(n) returns while redirected to rec_v2: its own calls (listed
 * sites or not) reach rec_v2 too */
static long rec_ref(long n)
{
	return 1 + (n < 2 ? n : (rec_ref(n - 1) ^ n) + 1);
}

static long rec_plain(long n)
{
	return n < 2 ? n : (rec_plain(n - 1) ^ n) + 1;
}

static long handled;

static void handler(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	handled++;
	(void)fn, (void)ret, (void)data, (void)r;
}

#if defined(__x86_64__)
#define OP_CALL 0xe8 /* call rel32 */
#define OP_JMP 0xe9  /* jmp rel32 */
#define INSN_LEN 5

/* The first `op rel32` in fn's first 256 bytes that goes to dest. */
static unsigned char *find_site(void *fn, void *dest, unsigned op)
{
	unsigned char *p = fn;

	for (int i = 0; i < 256; i++) {
		int32_t d;

		memcpy(&d, p + i + 1, 4);
		if (p[i] == op && p + i + 5 + d == (unsigned char *)dest)
			return p + i;
	}
	return NULL;
}

/* Does the branch at site go to dest? */
static int goes(const unsigned char *site, void *dest)
{
	int32_t d;

	if (!site)
		return 0;
	memcpy(&d, site + 1, 4);
	return site + 5 + d == (const unsigned char *)dest;
}

/* The branch at site, as another patcher would write it, to dest. */
static void encode(unsigned char *insn, const unsigned char *site,
		   void *dest)
{
	int32_t d = (int32_t)((unsigned char *)dest - (site + 5));

	insn[0] = site[0];
	memcpy(insn + 1, &d, 4);
}
#else
/* aarch64 and ppc64le: b and bl, one word, an offset field in bits 0-25
 * (aarch64: imm26 in words; ppc64le: li24 in bytes, AA and LK below it) */
#define INSN_LEN 4
#ifdef __aarch64__
#define OP_CALL 0x94000000u /* bl */
#define OP_JMP 0x14000000u  /* b */
#define OP_MASK 0xfc000000u /* b or bl */
#define B_MASK 0x7c000000u  /* either of them */
#define B_ANY 0x14000000u
#define OFF_MASK 0x03ffffffu
#define OFF_UNIT 4
#define ENTRY(fn) ((unsigned char *)(fn))
#else
#define OP_CALL 0x48000001u /* bl */
#define OP_JMP 0x48000000u  /* b */
#define OP_MASK 0xfc000003u
#define B_MASK 0xfc000002u /* either of them (AA 0) */
#define B_ANY 0x48000000u
#define OFF_MASK 0x03fffffcu
#define OFF_UNIT 1
#define ENTRY(fn) local_entry(fn)

/* A direct b/bl enters a function at its local entry: past the
 * `addis r2,r12` (PIE, DSO) or `lis r2` (-no-pie) + `addi r2,r2` TOC
 * set-up when it has one. */
static unsigned char *local_entry(void *fn)
{
	uint32_t w[2];

	memcpy(w, fn, 8);
	if (((w[0] & 0xffff0000u) == 0x3c4c0000u ||
	     (w[0] & 0xffff0000u) == 0x3c400000u) &&
	    (w[1] & 0xffff0000u) == 0x38420000u)
		return (unsigned char *)fn + 8;
	return fn;
}
#endif

static unsigned char *b_dest(const unsigned char *p)
{
	uint32_t w;

	memcpy(&w, p, 4);
	return (unsigned char *)p +
	       (int64_t)((int32_t)((w & OFF_MASK) << 6) >> 6) * OFF_UNIT;
}

static unsigned char *find_site(void *fn, void *dest, unsigned op)
{
	unsigned char *p = fn;

	for (int i = 0; i < 256; i += 4) {
		uint32_t w;

		memcpy(&w, p + i, 4);
		if ((w & OP_MASK) == op && b_dest(p + i) == ENTRY(dest))
			return p + i;
	}
	return NULL;
}

static int goes(const unsigned char *site, void *dest)
{
	uint32_t w;

	if (!site)
		return 0;
	memcpy(&w, site, 4);
	return (w & B_MASK) == B_ANY && b_dest(site) == ENTRY(dest);
}

static void encode(unsigned char *insn, const unsigned char *site,
		   void *dest)
{
	uint32_t w;

	memcpy(&w, site, 4);
	w = (w & OP_MASK) |
	    ((uint32_t)((ENTRY(dest) - site) / OFF_UNIT) & OFF_MASK);
	memcpy(insn, &w, 4);
}
#endif

/* f: its sites are caller's, tail's and however many calls of f the
 * compiler left in main's results() */
static void callers_all(const char *name, void *fn)
{
	struct dyncall_fn_callers c;
	int s = dyncall_fn_callers(fn, &c);

	printf("%s: table %d all-rewritten %d skipped %u\n", name,
	       s ? s : c.status, c.sites >= 2 && c.redirected == c.sites,
	       c.skipped);
}

static void callers(const char *name, void *fn)
{
	struct dyncall_fn_callers c;
	int s = dyncall_fn_callers(fn, &c);

	printf("%s: table %d sites %u rewritten %u skipped %u\n", name,
	       s ? s : c.status, c.sites, c.redirected, c.skipped);
}

static long (*volatile fp)(long) = f;

static void calls(void)
{
	printf("caller %ld tail %ld pointer %ld", caller(5), tail(5), fp(5));
}

/* The workload of the plain build's comparison. */
static void results(long (*lcaller)(long), long (*lpubcaller)(long))
{
	printf("results:");
	for (long i = 0; i < 6; i++)
		printf(" %ld %ld %ld %ld %ld %ld", f(i), caller(i), tail(i),
		       rec(i + 5), lcaller(i), lpubcaller(i));
	printf("\n");
}

/* Another patcher's write: the branch at site goes to dest. */
static void foreign_write(unsigned char *site, void *dest)
{
	uintptr_t pg = (uintptr_t)site & ~(uintptr_t)4095;
	unsigned char insn[INSN_LEN];

	encode(insn, site, dest);
	mprotect((void *)pg, 8192, PROT_READ | PROT_WRITE | PROT_EXEC);
	memcpy(site, insn, INSN_LEN);
	__builtin___clear_cache((char *)site, (char *)site + INSN_LEN);
	mprotect((void *)pg, 8192, PROT_READ | PROT_EXEC);
}

/* f's caller site rewritten by someone else while f is redirected: the
 * restore that would need it back is refused. */
static void foreign(unsigned char *sc, const unsigned char *bc,
		    const unsigned char *st, const unsigned char *bt)
{
	struct dyncall_fn_info info;
	int r;

	dyncall_fn_redirect(f, g);
	foreign_write(sc, g2);
	r = dyncall_fn_restore(f);
	dyncall_fn_info(f, &info);
	printf("foreign write: restore f %d still redirected %d\n", r,
	       info.redirect == (void *)g);
	calls();
	printf("\n");
	callers_all("f", f);
	foreign_write(sc, g);
	printf("put back: restore f %d\n", dyncall_fn_restore(f));
	calls();
	printf("\nbytes: caller, tail as built %d %d\n", !memcmp(sc, bc, INSN_LEN),
	       !memcmp(st, bt, INSN_LEN));
}

#ifdef __powerpc64__
static void why(const char *name, void *fn)
{
	struct dyncall_fn_callers c;
	int s = dyncall_fn_callers(fn, &c);

	printf("%s: table %d sites %u rewritten %u skipped %u why %d\n", name,
	       s ? s : c.status, c.sites, c.redirected, c.skipped,
	       c.skipped_status);
}

/* Which targets a site may branch to directly (arch_caller_target): the
 * local entry of a function of the module with the caller's TOC. */
static void ppc_targets(const unsigned char *sc, long (*lnotoc)(long))
{
	const unsigned char *sn = find_site(caller_notoc, f_notoc, OP_CALL);
	int r, r2;

	/* each: redirect fn -> target, then call `call` (its site: site)
	 * and say whether the site goes to `to` (the target, or fn where the
	 * target is refused and the sites stay `bl f+8`) and why */
	const struct {
		const char *fn_name, *target_name, *call_name, *to_name;
		void *fn, *target, *to;
		long (*call)(long);
		const unsigned char *site;
	} cases[] = {
		{ "f", "g_notoc", "caller", "g_notoc", f, g_notoc, g_notoc,
		  caller, sc },
		{ "f_notoc", "g", "caller_notoc", "g", f_notoc, g, g,
		  caller_notoc, sn },
		{ "f", "g_plain", "caller", "g_plain", f, g_plain, g_plain,
		  caller, sc },
		/* refused: its symbol says it does not keep r2 (_BYTES) */
		{ "f", "g_r2", "caller", "f", f, g_r2, f, caller, sc },
		/* refused: another module (_INVAL) */
		{ "f", "lnotoc", "caller", "f", f, (void *)lnotoc, f, caller,
		  sc },
	};

	printf("ppc: f sets up a TOC %d, g %d, f_notoc %d, g_notoc %d\n",
	       local_entry(f) != (void *)f, local_entry(g) != (void *)g,
	       local_entry(f_notoc) != (void *)f_notoc,
	       local_entry(g_notoc) != (void *)g_notoc);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r = dyncall_fn_redirect(cases[i].fn, cases[i].target);
		printf("redirect %s -> %s: %d %s %ld\n", cases[i].fn_name,
		       cases[i].target_name, r, cases[i].call_name,
		       cases[i].call(5));
		printf("bytes: %s->%s %d\n", cases[i].call_name,
		       cases[i].to_name, goes(cases[i].site, cases[i].to));
		why(cases[i].fn_name, cases[i].fn);
	}
	r = dyncall_fn_restore(f);
	r2 = dyncall_fn_restore(f_notoc);
	printf("restore f, f_notoc: %d %d caller %ld", r, r2, caller(5));
	printf(" caller_notoc %ld\n", caller_notoc(5));
	printf("bytes: caller->f %d caller_notoc->f_notoc %d\n", goes(sc, f),
	       goes(sn, f_notoc));
}
#endif

int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);
	void *(*lib_fn)(int) = h ? (void *(*)(int))dlsym(h, "lib_fn") : NULL;
	unsigned char *sc, *st, *sr, *sl, bc[5], bt[5], br[5], bl[5];
	long (*lcaller)(long), (*lpubcaller)(long);
	void *lf, *lg, *lpub, *all[64];
	size_t n;

	if (!lib_fn) {
		fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
		return 1;
	}
	lf = lib_fn(0);
	lg = lib_fn(1);
	lcaller = (long (*)(long))lib_fn(2);
	lpub = lib_fn(3);
	lpubcaller = (long (*)(long))lib_fn(4);
	if (argc > 2 && rename(argv[2], argv[1])) { /* replace the file */
		perror("rename");
		return 1;
	}
	results(lcaller, lpubcaller);
	sc = find_site(caller, f, OP_CALL);
	st = find_site(tail, f, OP_JMP);
	sr = find_site(rec, rec, OP_CALL);
	sl = find_site(lcaller, lf, OP_CALL);
	printf("sites found: caller %d tail %d rec %d lcaller %d\n", !!sc, !!st,
	       !!sr, !!sl);
	if (!sc || !st || !sr || !sl)
		return 1;
	memcpy(bc, sc, INSN_LEN);
	memcpy(bt, st, INSN_LEN);
	memcpy(br, sr, INSN_LEN);
	memcpy(bl, sl, INSN_LEN);

	printf("redirect f -> g: %d\n", dyncall_fn_redirect(f, g));
	calls();
	printf("\nbytes: caller->g %d tail->g %d\n", goes(sc, g), goes(st, g));
	callers_all("f", f);
	printf("redirect f -> g2: %d\n", dyncall_fn_redirect(f, g2));
	calls();
	printf("\nbytes: caller->g2 %d tail->g2 %d\n", goes(sc, g2),
	       goes(st, g2));
	printf("hook f: %d\n", dyncall_fn_hook(f, handler, NULL));
	calls();
	printf(" handled %ld\n", handled);
	printf("bytes: caller->f %d tail->f %d\n", goes(sc, f), goes(st, f));
	printf("unhook f: %d\n", dyncall_fn_unhook(f, handler));
	calls();
	printf(" handled %ld\n", handled);
	printf("bytes: caller->g2 %d tail->g2 %d\n", goes(sc, g2),
	       goes(st, g2));
	printf("restore f: %d\n", dyncall_fn_restore(f));
	calls();
	printf("\nbytes: caller, tail as built %d %d\n", !memcmp(sc, bc, INSN_LEN),
	       !memcmp(st, bt, INSN_LEN));

	printf("redirect rec -> rec_v2: %d", dyncall_fn_redirect(rec, rec_v2));
	printf(" rec(12) ok %d\n", rec(12) == rec_ref(12));
	printf("rec: rewritten %d\n", goes(sr, rec_v2));
	printf("restore rec: %d", dyncall_fn_restore(rec));
	printf(" rec(12) ok %d as built %d\n", rec(12) == rec_plain(12),
	       !memcmp(sr, br, INSN_LEN));

	printf("redirect lf -> lg: %d\n", dyncall_fn_redirect(lf, lg));
	printf("lcaller %ld lpubcaller %ld\n", lcaller(1), lpubcaller(1));
	printf("bytes: lcaller->lg %d\n", goes(sl, lg));
	callers("lf", lf);
	printf("redirect lpub -> lg: %d\n", dyncall_fn_redirect(lpub, lg));
	printf("lcaller %ld lpubcaller %ld\n", lcaller(1), lpubcaller(1));
	callers("lpub", lpub);
	printf("restore lf, lpub: %d", dyncall_fn_restore(lf));
	printf(" %d\n", dyncall_fn_restore(lpub));
	printf("lcaller %ld lpubcaller %ld\n", lcaller(1), lpubcaller(1));
	printf("bytes: lcaller as built %d\n", !memcmp(sl, bl, INSN_LEN));

	if (getenv("CALLERS_FOREIGN"))
		foreign(sc, bc, st, bt);
#ifdef __powerpc64__
	ppc_targets(sc, (long (*)(long))lib_fn(5));
#endif

	/* every function to its own original: the plain build's results */
	n = dyncall_fn_list(all, 64);
	int err = 0;

	for (size_t i = 0; i < n && i < 64; i++) {
		void *o = dyncall_fn_original(all[i]);

		if (o && dyncall_fn_redirect(all[i], o))
			err++;
	}
	printf("every function redirected to its original: %d\n", err);
	results(lcaller, lpubcaller);
	return 0;
}
