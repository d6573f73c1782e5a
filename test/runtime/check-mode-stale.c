// Checks DYNCALL_CHECK=1: every site (even a fresh one) is guarded, a store from code built without the plugin is reported once per site with the key name, site symbol, loaded pointer and patched target, and the call still goes to the loaded pointer.
// REQUIRES: x86_64
// RUN: %cc %libdyncall_cflags -I%S/Inputs -Wa,-I%S/Inputs -O1 -rdynamic %s -o %t %libdyncall_ldflags
// RUN: env DYNCALL_CHECK=1 %t 2>&1 | FileCheck %s
// RUN: %t 2>&1 | FileCheck %s --check-prefix=NOCHECK
#include "dyncall_test.h"

long target_a(long a, long b) { return a + b; }
long target_b(long a, long b) { return a * b; }
long (*handler)(long, long) = target_a;

__asm__(".include \"dyncall_asm.inc\"\n"
	"DC_KEYCELL cell, handler\n"
	"DC_KEY_ENTRY cell, handler, 0\n"
	"DC_SITE stale_site, handler, cell, 3, DC_FRESH\n"
	"DC_SITE other_site, handler, cell, 5, DC_FRESH\n");

long stale_site(long, long), other_site(long, long);

/* "Code without the plugin": a plain store the compiler cannot report. */
__attribute__((noinline)) static void legacy_store(void *volatile *p,
						   void *v)
{
	*p = v;
}

int main(void)
{
	DC_NAME(target_a);
	DC_NAME(target_b);
	DC_NAME(stale_site);
	DC_NAME(other_site);
	dc_show_key("start", &handler);
	// CHECK: start: key 'handler' value=target_a sites=2 direct=0 guarded=2
	// NOCHECK: start: key 'handler' value=target_a sites=2 direct=2 guarded=0
	fflush(stdout);

	legacy_store((void *volatile *)&handler, (void *)target_b);
	printf("first: %ld\n", stale_site(2, 3));
	fflush(stdout);
	printf("again: %ld\n", stale_site(2, 3));
	fflush(stdout);
	// CHECK: dyncall: stale key 'handler' at stale_site+0x{{[0-9a-f]+}} (0x{{[0-9a-f]+}}): called 0x{{[0-9a-f]+}}, sites patched to 0x{{[0-9a-f]+}}
	// CHECK-NEXT: first: 6
	// CHECK-NEXT: again: 6
	// The contract was broken without checking mode: a direct site
	// keeps calling the old target until dyncall_update().
	// NOCHECK: first: 5

	printf("other: %ld\n", other_site(2, 3));
	// CHECK: dyncall: stale key 'handler' at other_site+0x
	// CHECK-NEXT: other: 6

	dyncall_update(&handler);
	printf("updated: %ld %ld\n", stale_site(2, 3), other_site(2, 3));
	// CHECK-NEXT: updated: 6 6
	// NOCHECK: updated: 6 6
	struct dyncall_stats st;
	dyncall_get_stats(&st);
	printf("guard misses: %lu\n", (unsigned long)st.guard_misses);
	// CHECK-NEXT: guard misses: 3
	// CHECK-NOT: stale key
	return 0;
}
