// Checks whole-program mode in the IR (-mllvm -dyncall-whole-program) on x86_64, aarch64 and ppc64le: every indirect call (through a field, a local, a parameter, a returned pointer, an array element, a cast, a tail call) becomes a call to its own trampoline with the callee as `nest` argument 0, a guarded site (flags TYPE_KEY, never FRESH) of the unit's whole-program key (descriptor __dyncall_wpkey.<unit>, key flags ESCAPES|TYPE|WHOLE_PROGRAM, name "(indirect call)"); a call through an annotated key keeps its key and stays fresh; direct calls stay direct; musttail, inline asm and (x86_64) ms_abi calls are left alone with a remark naming the reason.
// REQUIRES: dyncall-pass
// RUN: %dyncall_clang --target=x86_64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program -mllvm -dyncall-inline-guard=0 -O2 -S -emit-llvm %s -o %t.x86_64.ll -Rpass-missed=dynamic-call 2> %t.x86_64.remarks
// RUN: FileCheck %s --check-prefixes=CHECK,X86_64 < %t.x86_64.ll
// RUN: FileCheck %s --check-prefixes=REMARK,REMARK-MUSTTAIL,REMARK-X86_64 --implicit-check-not=remark: < %t.x86_64.remarks
// RUN: %dyncall_clang --target=aarch64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program -O2 -S -emit-llvm %s -o %t.aarch64.ll -Rpass-missed=dynamic-call 2> %t.aarch64.remarks
// RUN: FileCheck %s --check-prefixes=CHECK,AARCH64 < %t.aarch64.ll
// RUN: FileCheck %s --check-prefixes=REMARK,REMARK-MUSTTAIL --implicit-check-not=remark: < %t.aarch64.remarks
// RUN: %dyncall_clang --target=powerpc64le-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program -O2 -S -emit-llvm %s -o %t.ppc64le.ll -Rpass-missed=dynamic-call 2> %t.ppc64le.remarks
// RUN: FileCheck %s --check-prefixes=CHECK,PPC64LE < %t.ppc64le.ll
// RUN: FileCheck %s --check-prefixes=REMARK --implicit-check-not=remark: < %t.ppc64le.remarks
// Site entries (kind, flags): the keyed site FRESH (1), every other one
// TYPE_KEY (2), calls (1) and the tail calls (2).
// RUN: grep -o "__dyncall_sites\..*section" %t.x86_64.ll | grep -o "i8 [12], i16 [0-9]*" | sort | uniq -c | FileCheck %s --check-prefix=SITES --implicit-check-not=i16
// RUN: grep -o "__dyncall_sites\..*section" %t.aarch64.ll | grep -o "i8 [12], i16 [0-9]*" | sort | uniq -c | FileCheck %s --check-prefix=SITES --implicit-check-not=i16
// SITES: 1 i8 1, i16 1
// SITES: 6 i8 1, i16 2
// SITES: 2 i8 2, i16 2
// At -O0 (no mem2reg: every callee is a load from a stack slot) the same.
// RUN: %dyncall_clang --target=x86_64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program -O0 -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --check-prefix=O0 < %t.O0.ll
// O0-LABEL: define {{.*}} @field(
// O0: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.{{[0-9]+}}(ptr nest %{{[0-9]+}}, i32 noundef %{{[0-9]+}})
// O0-LABEL: define {{.*}} @musttail_call(
// O0: musttail call i32 %{{[0-9]+}}(
// Without the option: only the annotated key's site, no whole-program key.
// RUN: %dyncall_clang --target=x86_64-linux-gnu -O2 -S -emit-llvm %s -o %t.off.ll
// RUN: grep -c "call .*@__dyncall_tramp" %t.off.ll | FileCheck %s --check-prefix=OFF
// OFF: {{^}}1{{$}}
// RUN: not grep -q __dyncall_wpkey %t.off.ll

typedef int (*fn_t)(int);
struct ops {
  fn_t read;
  fn_t write;
};
fn_t table[4];
fn_t pick(int);
int target(int);
fn_t key __attribute__((dynamic_call)) = target;

// The unit's whole-program key: a type-key descriptor, hidden, COMDAT.
// CHECK-DAG: @__dyncall_wpkey.[[UNIT:[0-9a-f]+]] = linkonce_odr hidden global { ptr, i64 } zeroinitializer, comdat, align 8
// CHECK-DAG: @[[CELL:__dyncall_keycell[.0-9a-f]*]] = private constant ptr @__dyncall_wpkey.[[UNIT]], align 8
// CHECK-DAG: @[[NAME:__dyncall_keyname[.0-9]*]] = private unnamed_addr constant [16 x i8] c"(indirect call)\00", align 1
// Its entry: flags 11 = ESCAPES (1) | TYPE (2) | WHOLE_PROGRAM (8).
// CHECK-DAG: @{{__dyncall_key[.0-9]*}} = private constant { i32, i32, i8, i8, i16, i32 } { i32 trunc (i64 sub (i64 ptrtoint (ptr @[[CELL]] to i64), {{.*}}@[[NAME]]{{.*}}, i8 1, i8 3, i16 11, i32 0 }, section "__dyncall_keys"
// The annotated key keeps its own entry (flags 0).
// CHECK-DAG: @[[KNAME:__dyncall_keyname[.0-9]*]] = private unnamed_addr constant [4 x i8] c"key\00", align 1
// CHECK-DAG: {{.*}}@[[KNAME]]{{.*}}, i8 1, i8 3, i16 0, i32 0 }, section "__dyncall_keys"

// CHECK-LABEL: define {{.*}} @field(
// CHECK: [[FP:%[0-9]+]] = load ptr, ptr %0
// CHECK-NEXT: [[R:%[0-9]+]] = tail call {{(signext )?}}i32 @__dyncall_tramp.[[UNIT]].{{[0-9]+}}(ptr nest [[FP]], i32 noundef {{(signext )?}}%1)
// CHECK-NEXT: add nsw i32 [[R]], 1
int field(struct ops *o, int x) { return o->read(x) + 1; }

// CHECK-LABEL: define {{.*}} @local(
// CHECK: [[FP:%[0-9]+]] = {{phi|select}} {{.*}}ptr
// CHECK: call {{(signext )?}}i32 @__dyncall_tramp.[[UNIT]].{{[0-9]+}}(ptr nest [[FP]], i32 noundef {{(signext )?}}%0)
int local(int x) {
  fn_t f = x > 3 ? pick(x) : table[1];
  return f(x) + 1;
}

// CHECK-LABEL: define {{.*}} @param(
// CHECK: call {{(signext )?}}i32 @__dyncall_tramp.[[UNIT]].{{[0-9]+}}(ptr nest %0, i32 noundef {{(signext )?}}%1)
int param(fn_t f, int x) { return f(x) + 1; }

// The call of pick() itself is direct and stays so.
// CHECK-LABEL: define {{.*}} @returned(
// CHECK: [[FP:%[0-9]+]] = tail call ptr @pick(i32 noundef {{(signext )?}}%0)
// CHECK-NEXT: call {{(signext )?}}i32 @__dyncall_tramp.[[UNIT]].{{[0-9]+}}(ptr nest [[FP]], i32 noundef {{(signext )?}}%0)
int returned(int x) { return pick(x)(x) + 1; }

// CHECK-LABEL: define {{.*}} @element(
// CHECK: [[FP:%[0-9]+]] = load ptr, ptr %{{[0-9]+}}
// CHECK-NEXT: call {{(signext )?}}i32 @__dyncall_tramp.[[UNIT]].{{[0-9]+}}(ptr nest [[FP]], i32 noundef {{(signext )?}}%1)
int element(int i, int x) { return table[i](x) + 1; }

// A cast keeps the type of the call: (long) -> long.
// CHECK-LABEL: define {{.*}} @cast(
// CHECK: call i64 @__dyncall_tramp.[[UNIT]].{{[0-9]+}}(ptr nest %0, i64 noundef %1)
long cast(void (*g)(void), long x) { return ((long (*)(long))g)(x) + 1; }

// A tail call stays a tail call (site kind TAIL).
// CHECK-LABEL: define {{.*}} @tail(
// CHECK: [[R:%[0-9]+]] = tail call {{(signext )?}}i32 @__dyncall_tramp.[[UNIT]].{{[0-9]+}}(ptr nest %0, i32 noundef {{(signext )?}}%1)
// CHECK-NEXT: ret i32 [[R]]
int tail(fn_t f, int x) { return f(x); }

// CHECK-LABEL: define {{.*}} @tail_void(
// CHECK: tail call void @__dyncall_tramp.[[UNIT]].{{[0-9]+}}(ptr nest %0)
// CHECK-NEXT: ret void
void tail_void(void (*f)(void)) { f(); }

// An annotated key wins: its own (fresh) site.
// CHECK-LABEL: define {{.*}} @annotated(
// CHECK: [[FP:%[0-9]+]] = load ptr, ptr @key
// CHECK-NEXT: call {{(signext )?}}i32 @__dyncall_tramp.[[UNIT]].{{[0-9]+}}(ptr nest [[FP]], i32 noundef {{(signext )?}}%0)
int annotated(int x) { return key(x) + 1; }

// CHECK-LABEL: define {{.*}} @direct(
// CHECK: call {{(signext )?}}i32 @target(i32 noundef {{(signext )?}}%0)
int direct(int x) { return target(x) + 1; }

// Left alone, with a remark (ppc64le cannot musttail an indirect call).
#ifndef __powerpc64__
// X86_64-LABEL: define {{.*}} @musttail_call(
// X86_64: [[FP:%[0-9]+]] = load ptr, ptr @hook
// X86_64-NEXT: musttail call i32 [[FP]](i32 noundef %0)
// AARCH64-LABEL: define {{.*}} @musttail_call(
// AARCH64: [[FP:%[0-9]+]] = load ptr, ptr @hook
// AARCH64-NEXT: musttail call i32 [[FP]](i32 noundef %0)
fn_t hook;
// REMARK-MUSTTAIL: whole-program-ir.c:[[@LINE+1]]:{{[0-9]+}}: remark: indirect call left alone (whole-program): musttail calls cannot gain the static-chain argument [-Rpass-missed=dynamic-call]
int musttail_call(int x) { __attribute__((musttail)) return hook(x); }
#endif

// CHECK-LABEL: define {{.*}} @inline_asm(
// CHECK: call void asm sideeffect
// REMARK: whole-program-ir.c:[[@LINE+1]]:{{[0-9]+}}: remark: inline asm left alone (whole-program): its calls, if any, are not visible to the compiler [-Rpass-missed=dynamic-call]
void inline_asm(void) { __asm__ volatile("" ::: "memory"); }

#ifdef __x86_64__
int(__attribute__((ms_abi)) * ms_fn)(int);
// X86_64-LABEL: define {{.*}} @ms_call(
// X86_64: call win64cc i32 %{{[0-9]+}}(i32 noundef %0)
// REMARK-X86_64: whole-program-ir.c:[[@LINE+1]]:{{[0-9]+}}: remark: indirect call left alone (whole-program): the call does not use the C calling convention [-Rpass-missed=dynamic-call]
int ms_call(int x) { return ms_fn(x) + 1; }
#endif

// The trampolines: hidden and dso_local, except on ppc64le, where they
// clobber the TOC pointer (so the call is `bl; nop`).
// X86_64: declare hidden i32 @__dyncall_tramp.[[UNIT]].0(ptr nest, i32)
// AARCH64: declare hidden i32 @__dyncall_tramp.[[UNIT]].0(ptr nest, i32)
// PPC64LE: declare i32 @__dyncall_tramp.[[UNIT]].0(ptr nest, i32)
