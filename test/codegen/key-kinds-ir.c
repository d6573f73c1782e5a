// Checks how each kind of key and use is compiled: fresh vs guarded sites,
// escaping keys, atomic read-modify-writes, extern keys, const keys, annotated
// fields (type keys) and annotated typedefs.
// REQUIRES: dyncall-pass
// RUN: %dyncall_clang --target=x86_64-linux-gnu -O2 -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s < %t.ll
// RUN: FileCheck %s --check-prefix=SITES < %t.ll

#include <stdatomic.h>
typedef int (*handler_t)(int);
typedef int (*hook_t)(int) __attribute__((dynamic_call));
int dflt(int);
int fast(int);
void opaque(void);
void publish(handler_t *);

handler_t plain __attribute__((dynamic_call)) = dflt;
handler_t escapes __attribute__((dynamic_call)) = dflt;
_Atomic handler_t atomic_key __attribute__((dynamic_call)) = dflt;
extern handler_t ext __attribute__((dynamic_call));
handler_t const fixed __attribute__((dynamic_call)) = dflt;
hook_t via_typedef = dflt; // every object of an annotated typedef is a key
struct ops {
  handler_t on_read __attribute__((dynamic_call));
  hook_t on_write; // a field of annotated typedef type is a type key too
};

// Key entries: flags 1 = escapes, 2 = type key, 4 = const.
// CHECK-DAG: @[[N_PLAIN:__dyncall_keyname[.0-9]*]] = private unnamed_addr constant [6 x i8] c"plain\00"
// CHECK-DAG: @[[N_ESC:__dyncall_keyname[.0-9]*]] = private unnamed_addr constant [8 x i8] c"escapes\00"
// CHECK-DAG: @[[N_ATOM:__dyncall_keyname[.0-9]*]] = private unnamed_addr constant [11 x i8] c"atomic_key\00"
// CHECK-DAG: @[[N_READ:__dyncall_keyname[.0-9]*]] = private unnamed_addr constant [19 x i8] c"struct ops.on_read\00"
// CHECK-DAG: @[[N_WRITE:__dyncall_keyname[.0-9]*]] = private unnamed_addr constant [20 x i8] c"struct ops.on_write\00"
// CHECK-DAG: {{.*}}@[[N_PLAIN]]{{.*}}, i8 1, i8 3, i16 0, i32 0 }, section "__dyncall_keys"
// CHECK-DAG: {{.*}}@[[N_ESC]]{{.*}}, i8 1, i8 3, i16 1, i32 0 }, section "__dyncall_keys"
// CHECK-DAG: {{.*}}@[[N_ATOM]]{{.*}}, i8 1, i8 3, i16 1, i32 0 }, section "__dyncall_keys"
// CHECK-DAG: {{.*}}@[[N_READ]]{{.*}}, i8 1, i8 3, i16 2, i32 0 }, section "__dyncall_keys"
// CHECK-DAG: {{.*}}@[[N_WRITE]]{{.*}}, i8 1, i8 3, i16 2, i32 0 }, section "__dyncall_keys"
// Type-key descriptors: hidden COMDAT, named by the md5 of the key name.
// CHECK-DAG: @__dyncall_tkey.{{[0-9a-f]+}} = linkonce_odr hidden global { ptr, i64 } zeroinitializer, comdat, align 8

// Fresh: nothing between the load and the call.
// CHECK-LABEL: define {{.*}} @fresh(
// CHECK: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.[[S_FRESH:[0-9]+]](ptr nest
int fresh(int v) { return plain(v) * 2; }

// Fresh: a null test of the loaded value does not matter.
// CHECK-LABEL: define {{.*}} @null_tested(
// CHECK: icmp eq ptr [[FP:%[0-9]+]], null
// CHECK: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.[[S_NULL:[0-9]+]](ptr nest [[FP]]
int null_tested(int v) { handler_t f = plain; return f ? f(v) * 2 : 0; }

// Guarded: a call between the load and the call may store to the key.
// CHECK-LABEL: define {{.*}} @across_call(
// CHECK: call void @opaque()
// CHECK: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.[[S_ACROSS:[0-9]+]](ptr nest
int across_call(int v) { handler_t f = plain; opaque(); return f(v) * 2; }

// Guarded: an atomic load whose value is used for more than a null test.
// CHECK-LABEL: define {{.*}} @atomic_used(
// CHECK: load atomic ptr, ptr @atomic_key seq_cst
// CHECK: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.[[S_ATOM:[0-9]+]](ptr nest
handler_t seen;
int atomic_used(int v) { handler_t f = atomic_key; seen = f; return f(v) * 2; }

// Stores go through the runtime; an escaping address is recorded.
// CHECK-LABEL: define {{.*}} @stores(
// CHECK: call void @__dyncall_store(ptr {{.*}}@plain, ptr {{.*}}@fast)
// CHECK: call void @__dyncall_store(ptr {{.*}}@atomic_key, ptr {{.*}}@fast)
// CHECK: call void @publish(ptr {{.*}}@escapes)
void stores(void) { plain = fast; atomic_store(&atomic_key, fast); publish(&escapes); }

// Passing a key to the runtime's API does not let it escape: `plain` keeps
// flags 0 above.
int dyncall_update(void *key);
void resync(void) { dyncall_update(&plain); }

// An atomic exchange stays, followed by a resync.
// CHECK-LABEL: define {{.*}} @exchange(
// CHECK: atomicrmw xchg ptr @atomic_key, i64 ptrtoint (ptr @fast to i64) seq_cst
// CHECK-NEXT: call void @__dyncall_resync(ptr {{.*}}@atomic_key)
handler_t exchange(void) { return atomic_exchange(&atomic_key, fast); }

// Extern keys, typedef-annotated globals.
// CHECK-LABEL: define {{.*}} @other_keys(
// CHECK: load ptr, ptr @ext
// CHECK: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.{{[0-9]+}}(ptr nest
// CHECK: load ptr, ptr @via_typedef
// CHECK: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.{{[0-9]+}}(ptr nest
int other_keys(int v) { return ext(v) + via_typedef(v); }

// A const key's load folds to a direct call: nothing to patch.
// CHECK-LABEL: define {{.*}} @const_key(
// CHECK: call i32 @dflt(
int const_key(int v) { return fixed(v) * 2; }

// Annotated fields: the load goes through llvm.ptr.annotation; a store
// notifies the runtime when the value differs from the type key's last one.
// CHECK-LABEL: define {{.*}} @field_call(
// CHECK: [[A:%[0-9]+]] = {{.*}}call ptr @llvm.ptr.annotation.p0.p0(
// CHECK: [[F:%[0-9]+]] = load ptr, ptr [[A]]
// CHECK: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.[[S_FIELD:[0-9]+]](ptr nest [[F]]
int field_call(struct ops *o, int v) { return o->on_read(v) * 2; }
// CHECK-LABEL: define {{.*}} @field_store(
// CHECK: store ptr @fast, ptr [[A:%[0-9]+]]
// CHECK-NEXT: [[LAST:%.*]] = load atomic ptr, ptr @[[TK:__dyncall_tkey\.[0-9a-f]+]] monotonic
// CHECK-NEXT: [[NE:%.*]] = icmp {{eq|ne}} ptr [[LAST]], @fast
// CHECK-NEXT: br i1 [[NE]]
// CHECK: call void @__dyncall_note(ptr {{.*}}@[[TK]], ptr {{.*}}@fast)
void field_store(struct ops *o) { o->on_write = fast; }

// Site entries (one array, in source order): flags 1 = fresh, 2 = type key;
// the const key's call folded to a direct call and has no site.
// SITES: @__dyncall_sites.{{[0-9a-f]+}} = private constant [7 x { i32, i32, i32, i32, i8, i8, i16 }] [
// SITES-SAME: i8 1, i8 1, i16 1 },
// SITES-SAME: i8 1, i8 1, i16 1 },
// SITES-SAME: i8 1, i8 1, i16 0 },
// SITES-SAME: i8 1, i8 1, i16 0 },
// SITES-SAME: i8 1, i8 1, i16 1 },
// SITES-SAME: i8 1, i8 1, i16 1 },
// SITES-SAME: i8 1, i8 1, i16 2 }], section "__dyncall_sites"
