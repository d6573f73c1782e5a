// Checks that `return key(x);` stays a tail call (a jmp to the trampoline, and 5,000,000-deep mutual recursion through keys runs in constant stack), plain and -mretpoline, exactly as in the unannotated program.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: built for and run on the host, which is x86-64 in this suite (the aarch64 and ppc64le runtimes run under qemu in test/arch/); -mretpoline is an x86-64 option; dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
// RUN: %clang -O2 %libdyncall_cflags -I%exec_inputs %s -o %t.ref
// RUN: %t.ref > %t.ref.out
// RUN: %dyncall_clang -O2 -DWITH_DYNCALL -I%exec_inputs %s -o %t.dc %libdyncall_ldflags
// RUN: %t.dc > %t.dc.out
// RUN: diff %t.ref.out %t.dc.out
// RUN: FileCheck %s < %t.dc.out
// RUN: llvm-objdump -d --no-show-raw-insn --disassemble-symbols=ping %t.dc | FileCheck --check-prefix=PING %s
// RUN: llvm-objdump -d --no-show-raw-insn --disassemble-symbols=pong %t.dc | FileCheck --check-prefix=PONG %s
// RUN: llvm-objdump -d --no-show-raw-insn --disassemble-symbols=forward %t.dc | FileCheck --check-prefix=FWD %s
// RUN: %dyncall_clang -O2 -mretpoline -DWITH_DYNCALL -I%exec_inputs %s -o %t.rp %libdyncall_ldflags
// RUN: %t.rp > %t.rp.out
// RUN: diff %t.ref.out %t.rp.out
// RUN: llvm-objdump -d --no-show-raw-insn --disassemble-symbols=ping %t.rp | FileCheck --check-prefix=PING %s
// RUN: llvm-objdump -d --no-show-raw-insn --disassemble-symbols=pong %t.rp | FileCheck --check-prefix=PONG %s
// RUN: llvm-objdump -d --no-show-raw-insn --disassemble-symbols=forward %t.rp | FileCheck --check-prefix=FWD %s
#include "expect.h"

typedef long (*step_t)(long, long);

static long ping(long n, long acc);
static long pong(long n, long acc);

step_t DYNCALL to_pong = pong;
step_t DYNCALL to_ping = ping;

/* Each is a tail call through a key: 5,000,000 levels would need ~80 MB of
 * stack (more than the 8 MB default) if they were not. */
// PING:      <ping>:
// PING-NOT:  call
// PING:      movq {{.*}}(%rip), %r10 {{.*}}<to_pong>
// PING-NOT:  call
// PING:      jmp {{.*}} <__dyncall_tramp.{{[0-9a-f]+}}.{{[0-9]+}}>
__attribute__((noinline)) static long ping(long n, long acc)
{
	if (n == 0)
		return acc;
	return to_pong(n - 1, acc + 1);
}

// PONG:      <pong>:
// PONG-NOT:  call
// PONG:      movq {{.*}}(%rip), %r10 {{.*}}<to_ping>
// PONG-NOT:  call
// PONG:      jmp {{.*}} <__dyncall_tramp.{{[0-9a-f]+}}.{{[0-9]+}}>
__attribute__((noinline)) static long pong(long n, long acc)
{
	if (n == 0)
		return -acc;
	return to_ping(n - 1, acc + 2);
}

static long dbl(long n, long acc) { return 2 * (n + acc); }

// FWD:       <forward>:
// FWD-NOT:   call
// FWD:       jmp {{.*}} <__dyncall_tramp.
__attribute__((noinline)) long forward(long n) { return to_ping(n, 0); }

int main(void)
{
	// CHECK: ping 7500000
	printf("ping %ld\n", forward(5000000));
	// CHECK-NEXT: ping -7500001
	printf("ping %ld\n", forward(5000001));
	EXPECT_KEY(to_pong, 1, DYNCALL_STATE_DIRECT, 1);
	EXPECT_KEY(to_ping, 2, DYNCALL_STATE_DIRECT, 2);
	to_ping = dbl;
	// CHECK-NEXT: dbl 20
	printf("dbl %ld\n", forward(10));
	EXPECT_KEY(to_ping, 2, DYNCALL_STATE_DIRECT, 2);
	return 0;
}
