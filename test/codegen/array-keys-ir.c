// Checks array keys in the IR (Clang): every call through an element of an annotated array (global, static const with the Expat shape, extern, 2-D, a struct field of a static const initialiser) is a guarded site of one type-like key named "<name>[]" (site flags TYPE_KEY, never FRESH; key flags ESCAPES|TYPE, never CONST); stores to elements stay plain stores; a call through a pointer into the array is not a site; an anonymous struct's key is named by its fields, without a path.
// REQUIRES: dyncall-pass
// RUN: %dyncall_clang --target=x86_64-linux-gnu -O2 -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s < %t.ll
// Site entries (kind, flags): every one TYPE_KEY (2), none FRESH (1).
// RUN: grep -o "__dyncall_sites\..*section" %t.ll | grep -o "i8 [12], i16 [0-9]*" | sort -u | FileCheck %s --check-prefix=SITES --implicit-check-not=i16
// SITES: i8 1, i16 2
// SITES: i8 2, i16 2
// RUN: %dyncall_clang --target=x86_64-linux-gnu -O0 -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --check-prefix=O0 < %t.O0.ll

/* Expat's xmltok.c shape. */
typedef struct encoding ENCODING;
typedef int (*SCANNER)(const ENCODING *, const char *, const char *,
                       const char **) __attribute__((dynamic_call));
struct encoding {
  SCANNER scanners[4];
  int minBytesPerChar;
};
int prologTok(const ENCODING *, const char *, const char *, const char **);
int contentTok(const ENCODING *, const char *, const char *, const char **);
static const SCANNER scanners[] = {prologTok, contentTok};
static const struct encoding latin1 = {{prologTok, contentTok, prologTok, contentTok}, 1};

typedef int (*handler_t)(int);
handler_t table[4] __attribute__((dynamic_call));
extern handler_t ext_table[] __attribute__((dynamic_call));
handler_t grid[2][3] __attribute__((dynamic_call));
struct { int a; handler_t f __attribute__((dynamic_call)); } anon;

// Names, then key entries: { cell, name, version 1, kind 3, flags, 0 }.
// CHECK-DAG: @[[N_SCAN:__dyncall_keyname[.0-9]*]] = private unnamed_addr constant [11 x i8] c"scanners[]\00"
// CHECK-DAG: @[[N_FIELD:__dyncall_keyname[.0-9]*]] = private unnamed_addr constant [27 x i8] c"struct encoding.scanners[]\00"
// CHECK-DAG: @[[N_TABLE:__dyncall_keyname[.0-9]*]] = private unnamed_addr constant [8 x i8] c"table[]\00"
// CHECK-DAG: @[[N_EXT:__dyncall_keyname[.0-9]*]] = private unnamed_addr constant [12 x i8] c"ext_table[]\00"
// CHECK-DAG: @[[N_GRID:__dyncall_keyname[.0-9]*]] = private unnamed_addr constant [7 x i8] c"grid[]\00"
// CHECK-DAG: @[[N_ANON:__dyncall_keyname[.0-9]*]] = private unnamed_addr constant [15 x i8] c"struct {a,f}.f\00"
// CHECK-DAG: {{.*}}@[[N_SCAN]]{{.*}}, i8 1, i8 3, i16 3, i32 0 }, section "__dyncall_keys"
// CHECK-DAG: {{.*}}@[[N_FIELD]]{{.*}}, i8 1, i8 3, i16 3, i32 0 }, section "__dyncall_keys"
// CHECK-DAG: {{.*}}@[[N_TABLE]]{{.*}}, i8 1, i8 3, i16 3, i32 0 }, section "__dyncall_keys"
// CHECK-DAG: {{.*}}@[[N_EXT]]{{.*}}, i8 1, i8 3, i16 3, i32 0 }, section "__dyncall_keys"
// CHECK-DAG: {{.*}}@[[N_GRID]]{{.*}}, i8 1, i8 3, i16 3, i32 0 }, section "__dyncall_keys"
// CHECK-DAG: {{.*}}@[[N_ANON]]{{.*}}, i8 1, i8 3, i16 2, i32 0 }, section "__dyncall_keys"
// The descriptors are named by the md5 of the key name, as with GCC:
// md5("scanners[]") and md5("struct encoding.scanners[]").
// CHECK-DAG: @__dyncall_tkey.f22cf33197db7a1dcedd7416736125de = linkonce_odr hidden global { ptr, i64 } zeroinitializer, comdat, align 8
// CHECK-DAG: @__dyncall_tkey.128de0932cee38bdfdc26ba5a66ff149 = linkonce_odr hidden global { ptr, i64 } zeroinitializer, comdat, align 8

// CHECK-LABEL: define {{.*}} @tok(
// CHECK: [[P:%.*]] = getelementptr inbounds [2 x ptr], ptr @scanners, i64 0, i64 %{{.*}}
// CHECK: [[F:%.*]] = load ptr, ptr [[P]]
// CHECK: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.{{[0-9]+}}(ptr nest [[F]],
int tok(int state, const char *p, const char *e, const char **n) {
  return scanners[state](&latin1, p, e, n);
}

// XmlTok(enc, state, ...) = enc->scanners[state](enc, ...), and (*...)().
// CHECK-LABEL: define {{.*}} @xml_tok(
// CHECK: [[A:%.*]] = {{.*}}call ptr @llvm.ptr.annotation.p0.p0(ptr
// CHECK: [[P:%.*]] = getelementptr inbounds [4 x ptr], ptr [[A]], i64 0, i64 %{{.*}}
// CHECK: [[F:%.*]] = load ptr, ptr [[P]]
// CHECK: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.{{[0-9]+}}(ptr nest [[F]],
// CHECK: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.{{[0-9]+}}(ptr nest
int xml_tok(const ENCODING *enc, int state, const char *p, const char *e,
            const char **n) {
  return enc->scanners[state](enc, p, e, n) + (*enc->scanners[0])(enc, p, e, n);
}
int latin1_tok(int state, const char *p, const char *e, const char **n) {
  return xml_tok(&latin1, state, p, e, n);
}

// CHECK-LABEL: define {{.*}} @call_tables(
// CHECK: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.{{[0-9]+}}(ptr nest
// CHECK: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.{{[0-9]+}}(ptr nest
// CHECK: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.{{[0-9]+}}(ptr nest
// CHECK: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.{{[0-9]+}}(ptr nest
// CHECK: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.{{[0-9]+}}(ptr nest
int call_tables(int i, int j) {
  return table[i](1) + table[0](2) + ext_table[i](3) + grid[i][j](4) +
         anon.f(5);
}

// A store to an element is a plain store: no runtime call.
// CHECK-LABEL: define {{.*}} @set_element(
// CHECK-NOT: call
// CHECK: store ptr %{{[0-9]+}}, ptr %{{[0-9]+}}
// CHECK-NOT: call
// CHECK: ret void
void set_element(int i, handler_t f) { table[i] = f; grid[1][i] = f; }

// A pointer into the array is not provably an element: an ordinary call.
// CHECK-LABEL: define {{.*}} @through_pointer(
// CHECK: call i32 %{{.*}}(i32
// CHECK-NOT: __dyncall_tramp
// CHECK: ret i32
int through_pointer(handler_t *p, int i) { return p[i](i); }

// At -O0 (no mem2reg), the same sites.
// O0-LABEL: define {{.*}} @tok(
// O0: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.{{[0-9]+}}(ptr nest
// O0-LABEL: define {{.*}} @xml_tok(
// O0: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.{{[0-9]+}}(ptr nest
// O0: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.{{[0-9]+}}(ptr nest
// O0-LABEL: define {{.*}} @set_element(
// O0-NOT: call
// O0: ret void
