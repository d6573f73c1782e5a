// Checks Clang's -fsanitize=function (part of -fsanitize=undefined) with patchable prologues (llvm-pass/FnRecords.cpp freePreEntry, docs/prologues.md "Sanitizers"): a patchable function gets no type signature (it would sit between the pre-entry NOPs and the entry, where the runtime's slot and jumps are), a DYNCALL_NOT_PATCHABLE one keeps it (x86-64 and aarch64 assembly); the program links (the check accepts every record), a call through a pointer of the wrong type to a patchable function is not checked (no report) before and after it is hooked, the handler runs, and such a call to the not-patchable function is still reported.  Fails without freePreEntry: the signature comes right before the patchable function and the link's check refuses its record (DC063: no function starts within its NOPs).
// REQUIRES: x86_64, dyncall-runtime, dyncall-pass
// RUN: %dyncall_cc %clang --dyncall-prologues -O1 -fsanitize=function -S %s -o %t.x86_64.s
// RUN: FileCheck %s --check-prefix=ASM < %t.x86_64.s
// RUN: grep -B1 "^patched:" %t.x86_64.s | FileCheck %s --check-prefix=BEFORE
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %dyncall_cc %clang --target=aarch64-linux-gnu --dyncall-prologues -O1 -fsanitize=function -S %s -o %t.aarch64.s %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ FileCheck %s --check-prefix=ASM < %t.aarch64.s %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ grep -B1 "^patched:" %t.aarch64.s | FileCheck %s --check-prefix=BEFORE %}
// RUN: %dyncall_cc %clang --dyncall-prologues -O1 -fsanitize=function %s -o %t
// RUN: %t 2>&1 | FileCheck %s --check-prefix=EXEC
#include <stdio.h>

#include <dyncall.h>

// The pre-entry NOPs run up to the label: no signature in between.
// BEFORE:      nop
// BEFORE-NEXT: patched:
// ASM-NOT: 3238382334
// ASM: .type plain,@function
// ASM-NEXT: {{.long|.word}} 3238382334
// ASM-NEXT: {{.long|.word}} {{[0-9]+}}
// ASM-NEXT: plain:
__attribute__((noinline)) int patched(int x)
{
	return x + 1;
}

DYNCALL_NOT_PATCHABLE __attribute__((noinline)) int plain(int x)
{
	return x + 2;
}

static void count(void *fn, void *ret, void *data, struct dyncall_regs *regs)
{
	(void)fn;
	(void)ret;
	(void)regs;
	++*(int *)data;
}

int main(void)
{
	int n = 0;
	int (*volatile right)(int) = patched;
	long (*volatile wrong)(long) = (long (*)(long))(void *)patched;

	// EXEC-NOT: runtime error
	// EXEC: right 2 wrong 2
	printf("right %d wrong %ld\n", right(1), wrong(1));
	// EXEC-NEXT: hook 0
	printf("hook %d\n", dyncall_fn_hook(patched, count, &n));
	// EXEC-NEXT: right 2 wrong 2 handler 2
	printf("right %d wrong %ld handler %d\n", right(1), wrong(1), n);
	fflush(stdout);
	wrong = (long (*)(long))(void *)plain;
	// EXEC-NEXT: runtime error: call to function plain through pointer to incorrect function type
	// EXEC: plain 3
	printf("plain %ld\n", wrong(1));
	return 0;
}
