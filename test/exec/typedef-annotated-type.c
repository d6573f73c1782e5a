// Checks an annotated typedef used for a global variable (a variable key, direct sites) and for a struct field (a type key, guarded sites): both call what they hold, exactly as in the unannotated program.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: built for and run on the host, which is x86-64 in this suite (the aarch64 and ppc64le runtimes run under qemu in test/arch/); dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
// RUN: %clang -O2 %libdyncall_cflags -I%exec_inputs %s -o %t.ref
// RUN: %t.ref > %t.ref.out
// RUN: %dyncall_clang -O2 -DWITH_DYNCALL -I%exec_inputs %s %exec_inputs/tkeys.c -DTKEY_CONN_ON_DATA -o %t.dc %libdyncall_ldflags
// RUN: %t.dc > %t.dc.out
// RUN: diff %t.ref.out %t.dc.out
// RUN: FileCheck %s < %t.dc.out
// RUN: %dyncall_clang -O1 -DWITH_DYNCALL -I%exec_inputs %s %exec_inputs/tkeys.c -DTKEY_CONN_ON_DATA -o %t.dc1 %libdyncall_ldflags
// RUN: %t.dc1 > %t.dc1.out
// RUN: diff %t.ref.out %t.dc1.out
#include "expect.h"

typedef int (*handler_t)(const char *) DYNCALL;

static int h_upper(const char *s) { printf("  upper %s\n", s); return 1; }
static int h_lower(const char *s) { printf("  lower %s\n", s); return 2; }
static int h_count(const char *s) { return (int)strlen(s); }

handler_t on_data = h_upper; /* a variable key through the typedef */

struct conn {
	int id;
	handler_t on_data; /* a type key through the typedef */
};

/* The type key's descriptor (Inputs/tkeys.c). */
void **tkey_conn_on_data(void);

__attribute__((noinline)) static int global_call(const char *s) { return on_data(s) * 10; }
__attribute__((noinline)) static int conn_call(struct conn *c, const char *s) { return c->on_data(s) + c->id; }

int main(void)
{
	struct conn c1 = { 100, h_lower }, c2 = { 200, h_count };

	// CHECK:        upper x
	// CHECK-NEXT: global 10
	printf("global %d\n", global_call("x"));
	// CHECK-NEXT:   lower y
	// CHECK-NEXT: conn 102 205
	int r1 = conn_call(&c1, "y"), r2 = conn_call(&c2, "hello");
	printf("conn %d %d\n", r1, r2);
	on_data = h_count;
	c2.on_data = h_upper;
	// CHECK-NEXT: global 30
	printf("global %d\n", global_call("abc"));
	// CHECK-NEXT:   lower z
	// CHECK-NEXT:   upper w
	// CHECK-NEXT: conn 102 201
	r1 = conn_call(&c1, "z");
	r2 = conn_call(&c2, "w");
	printf("conn %d %d\n", r1, r2);
	EXPECT_KEY(on_data, 1, DYNCALL_STATE_DIRECT, 1);
	EXPECT_KEY_NAMED(*tkey_conn_on_data(), "struct conn.on_data", 1, ST_ANY, 1);
	EXPECT_STATS(2, 2);
	return 0;
}
