// Checks array keys in GCC's assembly (x86-64): a call through an element of an annotated array (static const with Expat's shape, a struct field, a global) is a site of a type-like key "<name>[]" (key flags ESCAPES|TYPE = 3, site flags TYPE_KEY = 2, never FRESH), with the same descriptor symbol (md5 of the name) as Clang; a store to an element stays a plain store; a call through a pointer into the array is not a site; an anonymous struct's key is named by its fields.
// REQUIRES: gcc-plugin, x86_64
// (gcc-plugin: needs dyncall_gcc.so; x86_64: checks x86-64 assembly)
// RUN: %dyncall_gcc -O2 -S %s -o - | FileCheck %s
// RUN: %if gcc11-plugin %{ %dyncall_gcc11 -O2 -S %s -o - | FileCheck %s %}
// RUN: %dyncall_gcc -O0 -S %s -o - | FileCheck %s --check-prefix=O0
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
struct { int a; handler_t f __attribute__((dynamic_call)); } anon;
int tok(int state, const char *p, const char *e, const char **n) {
  return scanners[state](&latin1, p, e, n);
}
int xml_tok(const ENCODING *enc, int state, const char *p, const char *e, const char **n) {
  return enc->scanners[state](enc, p, e, n);
}
int call_table(int i) { return table[i](1) + anon.f(2); }
void set_element(int i, handler_t f) { table[i] = f; }
int through_pointer(handler_t *p, int i) { return p[i](i); }

// Key entries: { cell, name, 1, 3 (key), flags }.
// CHECK: .long __dyncall_keycell.[[U:[0-9a-f]+]].0 - .
// CHECK-NEXT: .long .Ldyncall_name.[[U]].0 - .
// CHECK-NEXT: .byte 1, 3
// CHECK-NEXT: .short 3
// CHECK: .string "scanners[]"
// CHECK: .short 3
// CHECK: .string "struct encoding.scanners[]"
// CHECK: .short 3
// CHECK: .string "table[]"
// CHECK: .short 2
// CHECK: .string "struct {a,f}.f"

// CHECK-LABEL: tok:
// CHECK: leaq scanners(%rip), %rax
// CHECK-NEXT: movq (%rax,%rdi,8), %r10
// CHECK: jmp __dyncall_tramp.[[U]].0
// CHECK: .long __dyncall_keycell.[[U]].0 - .
// CHECK-NEXT: .long .Ldyncall_func{{[0-9]+}} - .
// CHECK-NEXT: .byte 1, 2
// CHECK-NEXT: .short 2

// CHECK-LABEL: xml_tok:
// CHECK: movq (%rdi,%{{r[a-z0-9]+}},8), %r10
// CHECK: jmp __dyncall_tramp.[[U]].1
// CHECK: .long __dyncall_keycell.[[U]].1 - .
// CHECK-NEXT: .long .Ldyncall_func{{[0-9]+}} - .
// CHECK-NEXT: .byte 1, 2
// CHECK-NEXT: .short 2

// CHECK-LABEL: call_table:
// CHECK: leaq table(%rip), %rax
// CHECK-NEXT: movq (%rax,%rdi,8), %r10
// CHECK: call __dyncall_tramp.[[U]].2
// CHECK: .long __dyncall_keycell.[[U]].2 - .
// CHECK-NEXT: .long .Ldyncall_func{{[0-9]+}} - .
// CHECK-NEXT: .byte 1, 1
// CHECK-NEXT: .short 2

// CHECK-LABEL: set_element:
// CHECK: movslq %edi, %rdi
// CHECK-NEXT: leaq table(%rip), %rax
// CHECK-NEXT: movq %rsi, (%rax,%rdi,8)
// CHECK-NEXT: ret

// CHECK-LABEL: through_pointer:
// CHECK-NOT: __dyncall_tramp
// CHECK: jmp *{{.*}}
// CHECK: .size through_pointer

// The descriptors, shared with Clang (test/codegen/array-keys-ir.c).
// CHECK-DAG: .quad __dyncall_tkey.f22cf33197db7a1dcedd7416736125de
// CHECK-DAG: .quad __dyncall_tkey.128de0932cee38bdfdc26ba5a66ff149

// O0-LABEL: tok:
// O0: __dyncall_tramp.{{[0-9a-f]+}}.0
// O0-LABEL: set_element:
// O0-NOT: call
// O0: ret
