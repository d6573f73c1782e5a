// Checks that a set-user-ID program ignores the DYNCALL_* environment
// (secure_getenv): an unprivileged user must not switch on checking mode or
// DYNCALL_STATS, whose reports print code addresses, nor turn patching off.
// The test runs as root, makes a set-user-ID-nobody copy of the program
// (the kernel then sets AT_SECURE, as for any set-user-ID program) and runs
// both copies with the same variables.
// REQUIRES: x86_64, root
// (REQUIRES x86_64: the hand-written sites of Inputs/dyncall_asm.inc;
// root: chown to another user.)
// RUN: %cc %libdyncall_cflags -I%S/Inputs -Wa,-I%S/Inputs -O1 %s -o %t %libdyncall_static
// RUN: rm -f %t.suid && cp %t %t.suid && chown nobody %t.suid && chmod 4755 %t.suid
// RUN: %t | FileCheck %s --check-prefixes=CHECK,PLAIN,ON
// RUN: env DYNCALL_DISABLE=1 %t | FileCheck %s --check-prefixes=CHECK,PLAIN,OFF
// RUN: env DYNCALL_STATS=1 DYNCALL_TEXT_WRITE=bogus %t 2>%t.err | FileCheck %s --check-prefixes=CHECK,PLAIN,ON
// RUN: FileCheck %s --check-prefix=REPORT < %t.err
// RUN: env DYNCALL_DISABLE=1 %t.suid | FileCheck %s --check-prefixes=CHECK,SECURE,ON
// RUN: env DYNCALL_STATS=1 DYNCALL_TEXT_WRITE=bogus %t.suid 2>%t.err | FileCheck %s --check-prefixes=CHECK,SECURE,ON
// RUN: FileCheck %s --check-prefix=QUIET --allow-empty --implicit-check-not=dyncall < %t.err
#include <stdio.h>
#include <sys/auxv.h>

#include "dyncall_test.h"

long target_a(long a, long b) { return a + b; }
long target_b(long a, long b) { return a * b; }
long (*fresh)(long, long) = target_a;

__asm__(".include \"dyncall_asm.inc\"\n"
	"DC_KEYCELL fresh_cell, fresh\n"
	"DC_KEY_ENTRY fresh_cell, fresh, 0\n"
	"DC_SITE fresh_site, fresh, fresh_cell, 3, DC_FRESH\n");
long fresh_site(long, long);

int main(void)
{
	printf("secure %lu\n", getauxval(AT_SECURE));
	// CHECK: secure
	// PLAIN-SAME: {{^}} 0
	// SECURE-SAME: {{^}} 1
	printf("status %d: %s\n", dyncall_status(), dyncall_status_string());
	// ON-NEXT: status 0: ok
	// OFF-NEXT: status -9: disabled by DYNCALL_DISABLE
	printf("calls %ld\n", fresh_site(2, 3));
	// CHECK-NEXT: calls 5
	__dyncall_store(&fresh, target_b);
	printf("stored %ld\n", fresh_site(2, 3));
	// CHECK-NEXT: stored 6
	return 0;
}
// The warning and the report at exit, only where the environment is
// honoured; nothing at all from the set-user-ID copy.
// REPORT: dyncall: warning: DYNCALL_TEXT_WRITE=bogus
// REPORT: dyncall: 1 sites
// QUIET-NOT: {{.}}
