// Checks that a call instruction straddling a page boundary, whose second page the runtime already writes through a memfd alias, is patched without hiding later writes: the straddling write joins the pages into one alias instead of writing the executing (private) mapping, which would copy the page on write and leave the other site's later patches invisible (a direct site calling a stale target: found in Expat's xmlwf).
// REQUIRES: x86_64
// (x86_64: hand-written x86-64 sites and the native runtime.)
// RUN: %cc %libdyncall_cflags -I%S/Inputs -Wa,-I%S/Inputs -O1 %s -o %t %libdyncall_ldflags
// RUN: %t | FileCheck %s
// RUN: env DYNCALL_TEXT_WRITE=alias %t | FileCheck %s
#define DC_TEST_NO_CTOR
#include "dyncall_test.h"

long target_a(long a, long b) { return a + b; }
long target_b(long a, long b) { return a * b; }
long (*key)(long, long) = target_a;

/* Page P ends with `straddle`, whose call starts 2 bytes before the end of
 * P; `near` follows on page P + 1.  The table lists `near` first, so
 * registration writes page P + 1 before the straddling call. */
__asm__(".include \"dyncall_asm.inc\"\n"
	"DC_KEYCELL key_cell, key\n"
	"DC_KEY_ENTRY key_cell, key, 0\n"
	"	DC_TRAMP near_tramp\n"
	"	DC_TRAMP straddle_tramp\n"
	"	.text\n"
	"	.balign 4096\n"
	"	.skip 4096 - 16, 0xcc\n"
	"	.globl straddle\n"
	"straddle:\n"
	"straddle_func:\n"
	"	sub $8, %rsp\n"
	"	mov key(%rip), %r10\n"
	"	.skip 3, 0x90\n"
	"	.globl straddle_call\n"
	"straddle_call:\n"
	"	.byte 0xe8\n"
	"	.long straddle_tramp - . - 4\n"
	"	add $8, %rsp\n"
	"	ret\n"
	"	.globl near\n"
	"near:\n"
	"near_func:\n"
	"	sub $8, %rsp\n"
	"	mov key(%rip), %r10\n"
	"	.balign 8, 0x90\n"
	"	.skip 3, 0x90\n"
	"	.globl near_call\n"
	"near_call:\n"
	"	.byte 0xe8\n"
	"	.long near_tramp - . - 4\n"
	"	add $8, %rsp\n"
	"	ret\n"
	"DC_SITE_ENTRY near_call, near_tramp, key_cell, near_func, DC_CALL, DC_FRESH\n"
	"DC_SITE_ENTRY straddle_call, straddle_tramp, key_cell, straddle_func, DC_CALL, DC_FRESH\n");

long straddle(long, long), near(long, long);
extern char straddle_call[], near_call[];

int main(void)
{
	uintptr_t page = 4096;

	// CHECK: straddles: 1, near on the next page: 1
	printf("straddles: %d, near on the next page: %d\n",
	       (uintptr_t)straddle_call / page !=
		       ((uintptr_t)straddle_call + 4) / page,
	       (uintptr_t)near_call / page ==
		       ((uintptr_t)straddle_call + 4) / page);
	__dyncall_register(__start___dyncall_sites, __stop___dyncall_sites,
			   __start___dyncall_keys, __stop___dyncall_keys);
	// CHECK-NEXT: registered: near 5 straddle 5
	printf("registered: near %ld straddle %ld\n", near(2, 3),
	       straddle(2, 3));
	for (int i = 0; i < 4; i++) {
		dyncall_set((void *)&key, i & 1 ? (void *)target_a :
						  (void *)target_b);
		printf("store %d: near %ld straddle %ld\n", i, near(2, 3),
		       straddle(2, 3));
	}
	// CHECK-NEXT: store 0: near 6 straddle 6
	// CHECK-NEXT: store 1: near 5 straddle 5
	// CHECK-NEXT: store 2: near 6 straddle 6
	// CHECK-NEXT: store 3: near 5 straddle 5
	// CHECK-NEXT: status: ok
	printf("status: %s\n", dyncall_status_string());
	return 0;
}
