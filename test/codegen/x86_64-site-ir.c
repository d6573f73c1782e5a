// Checks the IR the pass emits for a variable key on x86-64: the site becomes
// a direct call to a per-site trampoline with the loaded pointer as `nest`
// argument, a store becomes __dyncall_store, and the tables, key cell and
// registration constructor are emitted.
// REQUIRES: dyncall-pass
// RUN: %dyncall_clang --target=x86_64-linux-gnu -O2 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %dyncall_clang --target=x86_64-linux-gnu -O0 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=O0

typedef int (*handler_t)(int);
int dflt(int);
int fast(int);
handler_t on_event __attribute__((dynamic_call)) = dflt;

// The trampoline: int3 padding so the jmp's rel32 is 4-byte aligned, the
// patchable 5-byte jmp spelled as bytes, then the slow path through r10.
// CHECK: module asm "\09.pushsection .text.__dyncall_tramp,\22ax\22,@progbits"
// CHECK-NEXT: module asm "\09.p2align 3"
// CHECK-NEXT: module asm "\09.byte 0xcc,0xcc,0xcc"
// CHECK-NEXT: module asm "\09.globl [[T0:__dyncall_tramp\.[0-9a-f]{16}\.0]]"
// CHECK-NEXT: module asm "\09.hidden [[T0]]"
// CHECK-NEXT: module asm "\09.type [[T0]], @function"
// CHECK-NEXT: module asm "[[T0]]:"
// CHECK-NEXT: module asm "\09.byte 0xe9"
// CHECK-NEXT: module asm "\09.long 1f - . - 4"
// CHECK-NEXT: module asm "1:"
// CHECK-NEXT: module asm "\09jmp *%r10"

// The module registers its tables before any user constructor.
// CHECK: $__dyncall_module_ctor = comdat any
// CHECK: @__dyncall_key = private constant { i32, i32, i8, i8, i16, i32 } { i32 trunc (i64 sub (i64 ptrtoint (ptr @[[CELL:__dyncall_keycell\.[0-9a-f.]+]] to i64), i64 ptrtoint (ptr @__dyncall_key to i64)) to i32), {{.*}}, i8 1, i8 3, i16 0, i32 0 }, section "__dyncall_keys", align 4
// CHECK: @[[CELL]] = private constant ptr @on_event, align 8
// CHECK: @__start___dyncall_sites = extern_weak hidden global i8
// CHECK: @llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 100, ptr @__dyncall_module_ctor, ptr @__dyncall_module_ctor }]
// Site entries, one array per module: site 0 (discovered at run time),
// trampoline, key cell, func 0, version 1, kind 1 (call) / 2 (tail jump),
// flags 1 (fresh).
// CHECK: @__dyncall_sites.[[UNIT:[0-9a-f]+]] = private constant [2 x { i32, i32, i32, i32, i8, i8, i16 }] [{ i32, i32, i32, i32, i8, i8, i16 } { i32 0, i32 trunc (i64 sub (i64 ptrtoint (ptr @[[T0]] to i64), {{.*}}, i32 0, i32 0, i32 1) to i64)) to i32), {{.*}}, i32 0, i8 1, i8 1, i16 1 }, { i32, i32, i32, i32, i8, i8, i16 } { i32 0, i32 trunc (i64 sub (i64 ptrtoint (ptr @[[T1:__dyncall_tramp\.[0-9a-f]{16}\.1]] to i64), {{.*}}, i32 0, i8 1, i8 2, i16 1 }], section "__dyncall_sites", align 4
// CHECK: @llvm.used = appending global [2 x ptr] [ptr @__dyncall_key, ptr @__dyncall_sites.[[UNIT]]]

// CHECK-LABEL: define {{.*}}i32 @call_site(
// CHECK-NEXT: [[FP:%[0-9]+]] = load ptr, ptr @on_event
// CHECK-NEXT: [[R:%[0-9]+]] = tail call i32 @[[T0]](ptr nest [[FP]], i32 noundef %0)
// CHECK-NEXT: add nsw i32 [[R]], 1
int call_site(int v) { return on_event(v) + 1; }

// CHECK-LABEL: define {{.*}}i32 @tail_site(
// CHECK-NEXT: [[FP:%[0-9]+]] = load ptr, ptr @on_event
// CHECK-NEXT: [[R:%[0-9]+]] = tail call i32 @[[T1]](ptr nest [[FP]], i32 noundef %0)
// CHECK-NEXT: ret i32 [[R]]
int tail_site(int v) { return on_event(v); }

// CHECK-LABEL: define {{.*}}void @store_key(
// CHECK-NEXT: {{(tail )?}}call void @__dyncall_store(ptr {{(nonnull )?}}@on_event, ptr {{(nonnull )?}}@fast)
// CHECK-NEXT: ret void
void store_key(void) { on_event = fast; }

// CHECK: define linkonce_odr hidden void @__dyncall_module_ctor() {{.*}}comdat
// CHECK-NEXT: call void @__dyncall_register(ptr @__start___dyncall_sites, ptr @__stop___dyncall_sites, ptr @__start___dyncall_keys, ptr @__stop___dyncall_keys)
// CHECK: define linkonce_odr hidden void @__dyncall_module_dtor() {{.*}}comdat
// CHECK-NEXT: call void @__dyncall_unregister(
// CHECK: declare hidden i32 @[[T0]](ptr nest, i32)

// At -O0 the same calls are sites too (the pass is required at every level).
// O0-LABEL: define {{.*}}i32 @call_site(
// O0: [[FP:%[0-9]+]] = load ptr, ptr @on_event
// O0: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.0(ptr nest [[FP]], i32 noundef
// O0-LABEL: define {{.*}}void @store_key(
// O0: call void @__dyncall_store(ptr @on_event, ptr @fast)
