// Checks run-time discovery of Clang sites (site field 0): the trampoline goes to a discovery thunk, each call instruction reaching it is verified and patched on first run (two calls of one trampoline, one misaligned), a jump to the trampoline fails verification and still calls correctly.
// REQUIRES: x86_64
// RUN: %cc %libdyncall_cflags -I%S/Inputs -Wa,-I%S/Inputs -O1 %s -o %t %libdyncall_ldflags
// RUN: %t | FileCheck %s
#include "dyncall_test.h"

long target_a(long a, long b) { return a + b; }
long target_b(long a, long b) { return a * b; }
long (*key)(long, long) = target_a;

__asm__(".include \"dyncall_asm.inc\"\n"
	"DC_KEYCELL cell, key\n"
	"DC_KEY_ENTRY cell, key, 0\n"
	/* one site entry, site = 0; a second call instruction (as after
	 * inlining) and a jump reach the same trampoline */
	"DC_SITE disc_one, key, cell, 3, DC_FRESH, 0\n"
	"DC_CALLER disc_two, key, disc_one_tramp, 5\n"
	"DC_TAIL_CALLER jumper, key, disc_one_tramp, 0\n");

long disc_one(long, long), disc_two(long, long), jumper(long, long);
extern char disc_one_call[], disc_two_call[], disc_one_tramp[];

static void show(const char *label)
{
	struct dyncall_stats st;

	dyncall_get_stats(&st);
	printf("%s: discoveries=%lu failures=%lu\n", label,
	       (unsigned long)st.discoveries,
	       (unsigned long)st.verify_failures);
	dc_show("one  ", disc_one_call);
	dc_show("two  ", disc_two_call);
	dc_show("tramp", disc_one_tramp);
	dc_show_key("key", &key);
}

int main(void)
{
	DC_NAME(target_a);
	DC_NAME(target_b);
	DC_NAME(disc_one_tramp);
	DC_NAME(disc_one);
	dc_name(disc_one_tramp + 5, "slow");

	show("registered");
	// CHECK-LABEL: registered: discoveries=0 failures=0
	// CHECK-NEXT: one  : e8 {{.*}} -> disc_one_tramp
	// CHECK-NEXT: two  : e8 {{.*}} -> disc_one_tramp
	// CHECK-NEXT: tramp: e9 {{.*}} -> stub
	// CHECK: site disc_one: state=slow target=null ncalls=0 status=0 discovering

	printf("call one: %ld\n", disc_one(2, 3));
	// CHECK: call one: 5
	show("after one");
	// CHECK-LABEL: after one: discoveries=1 failures=0
	// CHECK-NEXT: one  : e8 {{.*}} -> target_a
	// CHECK-NEXT: two  : e8 {{.*}} -> disc_one_tramp
	// CHECK-NEXT: tramp: e9 {{.*}} -> stub
	// CHECK: site disc_one: state=direct target=target_a ncalls=1 status=0 discovering

	printf("call two: %ld\n", disc_two(2, 3));
	// CHECK: call two: 5
	printf("jump: %ld\n", jumper(2, 3));
	// CHECK: jump: 5
	show("after two");
	// CHECK-LABEL: after two: discoveries=2 failures=1
	// CHECK-NEXT: one  : e8 {{.*}} -> target_a
	// CHECK-NEXT: two  : e8 {{.*}} -> target_a
	// CHECK-NEXT: tramp: e9 {{.*}} -> stub
	// CHECK: site disc_one: state=direct target=target_a ncalls=2 status=0 discovering

	__dyncall_store(&key, target_b);
	show("stored");
	printf("calls: %ld %ld %ld\n", disc_one(2, 3), disc_two(2, 3),
	       jumper(2, 3));
	// CHECK-LABEL: stored:
	// CHECK-NEXT: one  : e8 {{.*}} -> target_b
	// CHECK-NEXT: two  : e8 {{.*}} -> target_b
	// CHECK-NEXT: tramp: e9 {{.*}} -> stub
	// CHECK: calls: 6 6 6

	/* Enough failed verifications end discovery: the trampoline gets
	 * the final state. */
	for (int i = 0; i < 8; i++)
		jumper(2, 3);
	show("gave up");
	// CHECK-LABEL: gave up: discoveries=2 failures=8
	// CHECK-NEXT: one  : e8 {{.*}} -> target_b
	// CHECK-NEXT: two  : e8 {{.*}} -> target_b
	// CHECK-NEXT: tramp: e9 {{.*}} -> target_b
	printf("jump: %ld\n", jumper(4, 5));
	// CHECK: jump: 20
	return 0;
}
