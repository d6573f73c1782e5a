// Checks that a null-tested call whose argument is an aggregate copied by value from memory (`if (k) k(*p)`) is not folded into a conditional site when that memory may be unreadable: folded, the copy would run while k is NULL and fault on p == NULL (found by review: SIGSEGV with both compilers before the check). The same call with a local aggregate (always readable) still folds. The program prints what its build without the plugin prints, with k NULL and set.
// REQUIRES: x86_64, dyncall-pass, gcc-plugin, dyncall-runtime
// (x86_64: built for and run on the host; dyncall-pass, gcc-plugin: both compilers' plugins; dyncall-runtime: links libdyncall)
// RUN: %clang -O2 %libdyncall_cflags %s -o %t.ref
// RUN: %t.ref > %t.ref.out
// RUN: %dyncall_clang -O2 -DWITH_DYNCALL %s -o %t.clang %libdyncall_ldflags -Rpass=dynamic-call -Rpass-missed=dynamic-call 2>&1 | FileCheck %s --check-prefix=CLANG
// RUN: %t.clang > %t.clang.out
// RUN: diff %t.ref.out %t.clang.out
// RUN: %dyncall_clang -O2 -mretpoline -DWITH_DYNCALL %s -o %t.clang.r %libdyncall_ldflags
// RUN: %t.clang.r > %t.clang.r.out
// RUN: diff %t.ref.out %t.clang.r.out
// RUN: %dyncall_gcc -O2 -DWITH_DYNCALL -fplugin-arg-dyncall_gcc-verbose %s -o %t.gcc %libdyncall_ldflags 2>&1 | FileCheck %s --check-prefix=GCC
// RUN: %t.gcc > %t.gcc.out
// RUN: diff %t.ref.out %t.gcc.out
#include <stdio.h>
#ifdef WITH_DYNCALL
#include <dyncall.h>
#else
#define DYNCALL
#endif

struct small { long a, b; };        /* two registers (x86-64)   */
struct big { long a, b, c, d; };    /* byval: copied by the call */

void (*on_small)(struct small) DYNCALL;
void (*on_big)(struct big) DYNCALL;
static long seen;

static void take_small(struct small s) { seen += s.a + s.b; }
static void take_big(struct big s) { seen += s.a + s.b + s.c + s.d; }

// CLANG: [[@LINE+2]]:{{[0-9]+}}: remark: null-tested call through dynamic_call key 'on_small' stays behind its test: {{.*}}
// GCC: [[@LINE+1]]:{{[0-9]+}}: note: dyncall: null-tested call through {{.*}}on_small{{.*}} stays behind its test: the call copies an argument from memory that may not be readable when the pointer is null (a by-value aggregate)
__attribute__((noinline)) void fire_small(struct small *p) { if (on_small) on_small(*p); }
// CLANG: [[@LINE+2]]:{{[0-9]+}}: remark: null-tested call through dynamic_call key 'on_big' stays behind its test: the call copies an argument from memory that may not be readable when the pointer is null (a by-value aggregate)
// GCC: [[@LINE+1]]:{{[0-9]+}}: note: dyncall: null-tested call through {{.*}}on_big{{.*}} stays behind its test: the call copies an argument from memory that may not be readable when the pointer is null (a by-value aggregate)
__attribute__((noinline)) void fire_big(struct big *p) { if (on_big) on_big(*p); }
// A local aggregate is readable whatever the key holds: still one conditional site.
// CLANG: [[@LINE+2]]:{{[0-9]+}}: remark: call through dynamic_call key 'on_big' is now conditional site
// GCC: [[@LINE+1]]:{{[0-9]+}}: note: dyncall: call through {{.*}}on_big{{.*}} becomes a conditional call
__attribute__((noinline)) void fire_local(long x) { struct big b = {x, x, x, x}; if (on_big) on_big(b); }

int main(void)
{
	struct small s = {1, 2};
	struct big b = {1, 2, 3, 4};
	fire_small(NULL); /* keys NULL: nothing is read */
	fire_big(NULL);
	fire_local(5);
	printf("unset: %ld\n", seen);
	on_small = take_small;
	on_big = take_big;
	fire_small(&s);
	fire_big(&b);
	fire_local(5);
	printf("set: %ld\n", seen);
	on_small = NULL;
	on_big = NULL;
	fire_small(NULL);
	fire_big(NULL);
	printf("cleared: %ld\n", seen);
	return 0;
}
