// Checks registration and patching of a direct (FRESH) call site, a tail site and a guarded (ESCAPES) site: the call/jmp and trampoline bytes before registration, after it, and after a store.
// REQUIRES: x86_64
// RUN: %cc %libdyncall_cflags -I%S/Inputs -Wa,-I%S/Inputs -O1 %s -o %t %libdyncall_ldflags
// RUN: %t | FileCheck %s
#define DC_TEST_NO_CTOR
#include "dyncall_test.h"

long target_a(long a, long b) { return a + b; }
long target_b(long a, long b) { return a * b; }
long (*fresh_key)(long, long) = target_a;
long (*esc_key)(long, long) = target_a;

__asm__(".include \"dyncall_asm.inc\"\n"
	"DC_KEYCELL fresh_cell, fresh_key\n"
	"DC_KEY_ENTRY fresh_cell, fresh_key, 0\n"
	"DC_KEYCELL esc_cell, esc_key\n"
	"DC_KEY_ENTRY esc_cell, esc_key, DC_ESCAPES\n"
	"DC_SITE call_fresh, fresh_key, fresh_cell, 3, DC_FRESH\n"
	"DC_SITE call_esc, esc_key, esc_cell, 3, DC_FRESH\n"
	"DC_TAIL_SITE tail_fresh, fresh_key, fresh_cell, 3, DC_FRESH\n"
	"DC_RETPOLINE_THUNK\n"
	"DC_SITE call_retp, esc_key, esc_cell, 3, DC_FRESH|DC_RETP, 1, 1\n");

long call_fresh(long, long), call_esc(long, long), tail_fresh(long, long),
	call_retp(long, long);
extern char call_fresh_call[], call_esc_call[], tail_fresh_jmp[];
extern char call_fresh_tramp[], call_esc_tramp[], tail_fresh_tramp[];

static void show_all(void)
{
	dc_show("fresh call ", call_fresh_call);
	dc_show("fresh tramp", call_fresh_tramp);
	dc_show("tail jmp   ", tail_fresh_jmp);
	dc_show("tail tramp ", tail_fresh_tramp);
	dc_show("esc call   ", call_esc_call);
	dc_show("esc tramp  ", call_esc_tramp);
}

int main(void)
{
	DC_NAME(target_a);
	DC_NAME(target_b);
	DC_NAME(call_fresh_tramp);
	DC_NAME(call_esc_tramp);
	DC_NAME(tail_fresh_tramp);
	DC_NAME(call_fresh);
	DC_NAME(call_esc);
	DC_NAME(call_retp);
	DC_NAME(tail_fresh);
	dc_name(call_fresh_tramp + 5, "slow");
	dc_name(call_esc_tramp + 5, "slow");
	dc_name(tail_fresh_tramp + 5, "slow");

	// CHECK-LABEL: before registration
	// CHECK-NEXT: fresh call : e8 {{[0-9a-f ]+}} -> call_fresh_tramp
	// CHECK-NEXT: fresh tramp: e9 00 00 00 00 -> slow
	// CHECK-NEXT: tail jmp   : e9 {{.*}} -> tail_fresh_tramp
	// CHECK-NEXT: tail tramp : e9 00 00 00 00 -> slow
	// CHECK-NEXT: esc call   : e8 {{.*}} -> call_esc_tramp
	// CHECK-NEXT: esc tramp  : e9 00 00 00 00 -> slow
	printf("before registration\n");
	show_all();
	printf("calls %ld %ld %ld\n", call_fresh(2, 3), tail_fresh(2, 3),
	       call_esc(2, 3));
	// CHECK: calls 5 5 5

	__dyncall_register(__start___dyncall_sites, __stop___dyncall_sites,
			   __start___dyncall_keys, __stop___dyncall_keys);
	// CHECK-LABEL: after registration
	// CHECK-NEXT: fresh call : e8 {{.*}} -> target_a
	// CHECK-NEXT: fresh tramp: e9 {{.*}} -> target_a
	// CHECK-NEXT: tail jmp   : e9 {{.*}} -> target_a
	// CHECK-NEXT: tail tramp : e9 {{.*}} -> target_a
	// CHECK-NEXT: esc call   : e8 {{.*}} -> stub
	// CHECK-NEXT: esc tramp  : e9 {{.*}} -> stub
	printf("after registration status=%d\n", dyncall_status());
	show_all();
	printf("calls %ld %ld %ld\n", call_fresh(2, 3), tail_fresh(2, 3),
	       call_esc(2, 3));
	// CHECK: calls 5 5 5
	dc_show_key("fresh", &fresh_key);
	// CHECK: fresh: key 'fresh_key' value=target_a sites=2 direct=2 guarded=0 slow=0 escapes=0
	dc_show_key("esc", &esc_key);
	// CHECK: esc: key 'esc_key' value=target_a sites=2 direct=0 guarded=2 slow=0 escapes=1
	// CHECK: site call_esc: state=guarded target=target_a ncalls=1 status=0

	__dyncall_store(&fresh_key, target_b);
	__dyncall_store(&esc_key, target_b);
	// CHECK-LABEL: after store
	// CHECK-NEXT: fresh call : e8 {{.*}} -> target_b
	// CHECK-NEXT: fresh tramp: e9 {{.*}} -> target_b
	// CHECK-NEXT: tail jmp   : e9 {{.*}} -> target_b
	// CHECK-NEXT: tail tramp : e9 {{.*}} -> target_b
	// CHECK-NEXT: esc call   : e8 {{.*}} -> stub
	// CHECK-NEXT: esc tramp  : e9 {{.*}} -> stub
	printf("after store\n");
	show_all();
	printf("calls %ld %ld %ld\n", call_fresh(2, 3), tail_fresh(2, 3),
	       call_esc(2, 3));
	// CHECK: calls 6 6 6
	dc_show_key("esc", &esc_key);
	// CHECK: esc: key 'esc_key' value=target_b {{.*}} guarded=2
	// CHECK: site call_esc: state=guarded target=target_b

	// A guarded site stays correct under a store it does not see (the
	// retpoline site's miss goes through the stub region's retpoline).
	printf("retpoline site: %ld\n", call_retp(2, 3));
	// CHECK: retpoline site: 6
	esc_key = target_a;
	printf("unseen store: %ld %ld\n", call_esc(2, 3), call_retp(2, 3));
	// CHECK: unseen store: 5 5

	// NULL: slow path everywhere.
	__dyncall_store(&fresh_key, NULL);
	printf("after null\n");
	show_all();
	// CHECK-LABEL: after null
	// CHECK-NEXT: fresh call : e8 {{.*}} -> call_fresh_tramp
	// CHECK-NEXT: fresh tramp: e9 00 00 00 00 -> slow

	__dyncall_unregister(__start___dyncall_sites, __stop___dyncall_sites,
			     __start___dyncall_keys, __stop___dyncall_keys);
	printf("after unregister\n");
	show_all();
	// CHECK-LABEL: after unregister
	// CHECK-NEXT: fresh call : e8 {{.*}} -> call_fresh_tramp
	// CHECK-NEXT: fresh tramp: e9 00 00 00 00 -> slow
	// CHECK-NEXT: tail jmp   : e9 {{.*}} -> tail_fresh_tramp
	// CHECK-NEXT: tail tramp : e9 00 00 00 00 -> slow
	// CHECK-NEXT: esc call   : e8 {{.*}} -> call_esc_tramp
	// CHECK-NEXT: esc tramp  : e9 00 00 00 00 -> slow
	return 0;
}
