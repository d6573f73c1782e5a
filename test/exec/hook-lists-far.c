// Checks a hook list whose handlers are in the main program (a PIE, near 0x55..) and in a shared library (near 0x7f..), more than 2 GiB apart: the jump function is placed near the first handler and reaches the other through a register (movabs $h, %rax; call/jmp *%rax, docs/hooks.md "Jump functions"); the handlers still run in order.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (x86_64: the rel32 reach and the byte check are x86-64's; dyncall-pass: the Clang plugin build; dyncall-runtime: libdyncall.)
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: %clang -O2 -fPIC -shared %exec_inputs/hooks_far_lib.c -o %t.dir/libhooksfar.so
// RUN: %dyncall_clang -O2 -fPIE -pie %s -o %t.dir/far -L%t.dir -lhooksfar -Wl,-rpath,%t.dir %libdyncall_ldflags
// RUN: %t.dir/far | FileCheck %s
// CHECK: main(1) lib(1) main2(1)
// CHECK-NEXT: lib(2) main2(2) main(2)
// CHECK-NEXT: far call in the jump function: 1
#include <stdio.h>
#include <string.h>
#include <dyncall.h>
void lib_handler(int x);
static void main_handler(int x) { printf("main(%d) ", x); }
static void main_handler2(int x) { printf("main2(%d) ", x); }
DYNCALL_HOOKS(far_list, void, int);
__attribute__((noinline)) void fire(int x) { DYNCALL_HOOKS_CALL(far_list, x); printf("\n"); }
int main(void) {
	dyncall_hooks_add(far_list, main_handler);
	dyncall_hooks_add(far_list, lib_handler);
	dyncall_hooks_add(far_list, main_handler2);
	fire(1);
	dyncall_hooks_remove(far_list, main_handler);
	dyncall_hooks_add(far_list, main_handler);
	fire(2);
	{
		/* movabs $h,%rax: a handler out of rel32 reach (the PIE's text
		 * and the library's are further than 2 GiB apart) */
		const unsigned char *p = (const void *)far_list;
		int far = 0;

		for (int i = 0; i < 80; i++)
			if (p[i] == 0x48 && p[i + 1] == 0xb8)
				far = 1;
		printf("far call in the jump function: %d\n", far);
	}
	return 0;
}
