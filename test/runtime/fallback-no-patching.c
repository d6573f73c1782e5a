// Checks the fallbacks: with mprotect to W+X refused (LD_PRELOAD interposer) when mprotect is the only text writer allowed (DYNCALL_TEXT_WRITE=mprotect; by default text is written without mprotect, see hostile-*.c), with membarrier unavailable (seccomp) and with DYNCALL_DISABLE=1, no byte is patched, dyncall_status() says why, and every call and store still works.
// REQUIRES: x86_64
// RUN: %cc -O1 -fPIC -shared %S/Inputs/deny-mprotect.c -o %t-deny-mprotect.so
// RUN: %cc -O1 %S/Inputs/deny-membarrier.c -o %t-deny-membarrier
// RUN: %cc %libdyncall_cflags -I%S/Inputs -Wa,-I%S/Inputs -O1 %s -o %t %libdyncall_ldflags
// RUN: %t | FileCheck %s --check-prefix=OK
// RUN: env DYNCALL_TEXT_WRITE=mprotect LD_PRELOAD=%t-deny-mprotect.so %t | FileCheck %s --check-prefixes=CHECK,MPROTECT
// RUN: %t-deny-membarrier %t | FileCheck %s --check-prefixes=CHECK,MEMBARRIER
// RUN: env DYNCALL_DISABLE=1 %t | FileCheck %s --check-prefixes=CHECK,DISABLE
// RUN: env LD_PRELOAD=%t-deny-mprotect.so %t | FileCheck %s --check-prefix=OK
// Boolean variables: 1/0, yes/no, true/false, on/off in any case; anything
// else is one warning line and the default (before issue 12, "false", "no"
// and "off" turned the feature on).
// RUN: env DYNCALL_DISABLE=no DYNCALL_CHECK=off %t | FileCheck %s --check-prefix=OK
// RUN: env DYNCALL_DISABLE=false %t | FileCheck %s --check-prefix=OK
// RUN: env DYNCALL_DISABLE=TRUE %t | FileCheck %s --check-prefixes=CHECK,DISABLE
// RUN: env DYNCALL_DISABLE=on %t | FileCheck %s --check-prefixes=CHECK,DISABLE
// RUN: env DYNCALL_DISABLE=maybe %t 2>&1 | FileCheck %s --check-prefixes=WARN,OK
// WARN: dyncall: warning: DYNCALL_DISABLE=maybe is not one of 1/0, yes/no, true/false, on/off; ignored
#include "dyncall_test.h"

long target_a(long a, long b) { return a + b; }
long target_b(long a, long b) { return a * b; }
long (*fresh)(long, long) = target_a;
long (*esc)(long, long) = target_a;

__asm__(".include \"dyncall_asm.inc\"\n"
	"DC_KEYCELL fresh_cell, fresh\n"
	"DC_KEY_ENTRY fresh_cell, fresh, 0\n"
	"DC_KEYCELL esc_cell, esc\n"
	"DC_KEY_ENTRY esc_cell, esc, DC_ESCAPES\n"
	"DC_SITE fresh_site, fresh, fresh_cell, 3, DC_FRESH\n"
	"DC_SITE disc_site, fresh, fresh_cell, 5, DC_FRESH, 0\n"
	"DC_SITE esc_site, esc, esc_cell, 3, DC_FRESH\n");
long fresh_site(long, long), disc_site(long, long), esc_site(long, long);
extern char fresh_site_call[], fresh_site_tramp[], esc_site_call[],
	esc_site_tramp[], disc_site_tramp[];

int main(void)
{
	DC_NAME(target_a);
	DC_NAME(target_b);
	DC_NAME(fresh_site_tramp);
	DC_NAME(esc_site_tramp);
	dc_name(fresh_site_tramp + 5, "slow");
	dc_name(esc_site_tramp + 5, "slow");
	dc_name(disc_site_tramp + 5, "slow");

	printf("status %d: %s\n", dyncall_status(), dyncall_status_string());
	// OK: status 0: ok
	// MPROTECT: status -4: mprotect(0x{{[0-9a-f]+}}, RWX) refused: Permission denied
	// MEMBARRIER: status -3: membarrier(SYNC_CORE) unavailable: Function not implemented
	// DISABLE: status -9: disabled by DYNCALL_DISABLE
	printf("calls %ld %ld %ld\n", fresh_site(2, 3), disc_site(2, 3),
	       esc_site(2, 3));
	// CHECK-NEXT: calls 5 5 5
	dc_show("fresh call ", fresh_site_call);
	dc_show("fresh tramp", fresh_site_tramp);
	dc_show("disc tramp ", disc_site_tramp);
	dc_show("esc call   ", esc_site_call);
	dc_show("esc tramp  ", esc_site_tramp);
	// CHECK-NEXT: fresh call : e8 {{.*}} -> fresh_site_tramp
	// CHECK-NEXT: fresh tramp: e9 00 00 00 00 -> slow
	// CHECK-NEXT: disc tramp : e9 00 00 00 00 -> slow
	// CHECK-NEXT: esc call   : e8 {{.*}} -> esc_site_tramp
	// CHECK-NEXT: esc tramp  : e9 00 00 00 00 -> slow
	// OK: fresh call : e8 {{.*}} -> target_a
	// OK: esc call   : e8 {{.*}} -> stub
	__dyncall_store(&fresh, target_b);
	__dyncall_store(&esc, target_b);
	printf("stored %ld %ld %ld\n", fresh_site(2, 3), disc_site(2, 3),
	       esc_site(2, 3));
	// CHECK-NEXT: stored 6 6 6
	// OK: stored 6 6 6
	dc_show_key("fresh", &fresh);
	// CHECK-NEXT: fresh: key 'fresh' value=target_b sites=2 direct=0 guarded=0 slow=2
	return 0;
}
