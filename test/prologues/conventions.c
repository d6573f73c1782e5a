// Checks that functions of another calling convention are not made patchable (docs/prologues.md "Calling conventions"): ms_abi, no_caller_saved_registers and (Clang) preserve_all and preserve_most keep callers' values in registers the C convention lets a callee clobber; a hook's handler, an ordinary C function, clobbers them and the jump function does not restore them all (r11, xmm8-15). The plugins give such a function no __patchable_function_entries record (GCC's plugin: print_pfe; the LLVM pass: dropUnpatchable), so the runtime never registers it: hooking returns DYNCALL_ERR_NOFN and every register its callers keep survives a call (an assembly caller sets rcx-r11 and xmm0-15, calls it, and reports what changed). A plain C function in the same program is hooked and its handler runs. GCC's ms_hook_prologue function (32 int3 bytes between the pre-entry NOPs and the function: not the runtime's layout; the link's check refused the record, DC063/DC066) links and is refused the same way; Clang's ms_hook_prologue function keeps the runtime's layout and is hooked. GCC 12, GCC 11, Clang; without the fix the hooks succeed and the callers see clobbered registers (mask != 0).
// REQUIRES: x86_64, dyncall-runtime, gcc-plugin, dyncall-pass
// RUN: rm -rf %t && mkdir -p %t
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 %s -o %t/gcc
// RUN: %t/gcc | FileCheck %s --check-prefixes=CHECK,GCC
// RUN: dyncall-rewrite check %t/gcc
// RUN: dyncall-rewrite list --prologues %t/gcc | FileCheck %s --check-prefix=LIST
// RUN: %if gcc11-plugin %{ %dyncall_cc gcc-11 --dyncall-prologues -O2 %s -o %t/gcc11 %}
// RUN: %if gcc11-plugin %{ %t/gcc11 | FileCheck %s --check-prefixes=CHECK,GCC %}
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 %s -o %t/clang
// RUN: %t/clang | FileCheck %s --check-prefixes=CHECK,CLANG
// RUN: dyncall-rewrite check %t/clang
// RUN: dyncall-rewrite list --prologues %t/clang | FileCheck %s --check-prefix=LIST
// DYNCALL_PATCHABLE alone, without --dyncall-prologues:
// RUN: %dyncall_cc gcc-12 -DSELECTIVE -O2 %s -o %t/gcc-sel
// RUN: %t/gcc-sel | FileCheck %s --check-prefixes=CHECK,GCC
// RUN: %dyncall_cc %clang -DSELECTIVE -O2 %s -o %t/clang-sel
// RUN: %t/clang-sel | FileCheck %s --check-prefixes=CHECK,CLANG
//
// CHECK: plain: hook 0 ran 1 result 42
// CHECK: ms_abi: hook -13 clobbered 0x0 result 42
// CHECK: no_caller_saved_registers: hook -13 clobbered 0x0 result 42
// CLANG: preserve_all: hook -13 clobbered 0x0 result 42
// CLANG: preserve_most: hook -13 clobbered 0x0 result 42
// GCC: ms_hook_prologue: hook -13 ran 0 result 42
// CLANG: ms_hook_prologue: hook 0 ran 1 result 42
// LIST-NOT: <ms_abi_fn>
// LIST-NOT: <ncsr_fn>
// LIST-NOT: <pall_fn>
// LIST-NOT: <pmost_fn>
// LIST: <plain_fn>
#include <stdio.h>

#include <dyncall.h>

#ifdef SELECTIVE
#define P DYNCALL_PATCHABLE
#else
#define P
#endif
#ifdef __clang__
#define NI __attribute__((noinline, used))
#else
#define NI __attribute__((noinline, noclone, used))
#endif

NI P long plain_fn(long x)
{
	return x + 1;
}

NI P __attribute__((ms_abi)) long ms_abi_fn(long x)
{
	return x + 1;
}

#ifdef __clang__
#define GRO
#else /* GCC keeps no vector state in such a function: it must use none */
#define GRO __attribute__((target("general-regs-only")))
#endif
NI P GRO __attribute__((no_caller_saved_registers)) long ncsr_fn(long x)
{
	return x + 1;
}

#ifdef __clang__
NI P __attribute__((preserve_all)) long pall_fn(long x)
{
	return x + 1;
}

NI P __attribute__((preserve_most)) long pmost_fn(long x)
{
	return x + 1;
}
#endif

NI P __attribute__((ms_hook_prologue)) long hookp_fn(long x)
{
	return x + 1;
}

/* call_and_check(fn, x): fn(x) with x in both rdi (SysV) and rcx (ms_abi),
 * every other register of the mask set to a known value; returns fn's
 * result and, in *mask, the registers that changed: bit 0 rcx, 1 rdx,
 * 2 rsi, 3 rdi, 4 r8, 5 r9, 6 r10, 7 r11, 8 + k xmm k (its low quadword). */
long call_and_check(void *fn, long x, unsigned long *mask);
__asm__(".text\n"
	".globl call_and_check\n"
	".type call_and_check, @function\n"
	"call_and_check:\n"
	"\tpush %rbx\n\tpush %r12\n\tpush %r13\n\tpush %r14\n\tpush %r15\n"
	"\tsub $48, %rsp\n" /* 16-aligned at the call, 32 bytes of shadow space */
	"\tmov %rdi, %rbx\n\tmov %rsi, %r12\n\tmov %rdx, %r13\n"
	".irp k,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"\tmov $(100 + \\k), %eax\n\tmovq %rax, %xmm\\k\n"
	".endr\n"
	"\tmov %r12, %rcx\n\tmov $0x1002, %edx\n\tmov $0x1003, %esi\n"
	"\tmov %r12, %rdi\n\tmov $0x1005, %r8d\n\tmov $0x1006, %r9d\n"
	"\tmov $0x1007, %r10d\n\tmov $0x1008, %r11d\n"
	"\tcall *%rbx\n"
	"\tmov %rax, %r15\n\txor %r14d, %r14d\n"
	"\tcmp %r12, %rcx\n\tje 1f\n\tor $1, %r14\n1:\n"
	"\tcmp $0x1002, %rdx\n\tje 1f\n\tor $2, %r14\n1:\n"
	"\tcmp $0x1003, %rsi\n\tje 1f\n\tor $4, %r14\n1:\n"
	"\tcmp %r12, %rdi\n\tje 1f\n\tor $8, %r14\n1:\n"
	"\tcmp $0x1005, %r8\n\tje 1f\n\tor $16, %r14\n1:\n"
	"\tcmp $0x1006, %r9\n\tje 1f\n\tor $32, %r14\n1:\n"
	"\tcmp $0x1007, %r10\n\tje 1f\n\tor $64, %r14\n1:\n"
	"\tcmp $0x1008, %r11\n\tje 1f\n\tor $128, %r14\n1:\n"
	".irp k,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"\tmovq %xmm\\k, %rax\n\tcmp $(100 + \\k), %rax\n\tje 1f\n"
	"\tmov $1, %eax\n\tshl $(8 + \\k), %rax\n\tor %rax, %r14\n1:\n"
	".endr\n"
	"\tmov %r14, (%r13)\n\tmov %r15, %rax\n"
	"\tadd $48, %rsp\n"
	"\tpop %r15\n\tpop %r14\n\tpop %r13\n\tpop %r12\n\tpop %rbx\n"
	"\tret\n"
	".size call_and_check, .-call_and_check\n");

static long runs;

/* An ordinary C handler that uses every register the C convention lets
 * it clobber. */
static void clobber(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	(void)fn, (void)ret, (void)data, (void)r;
	runs++;
	__asm__ volatile("mov $-1, %%rcx\n\tmov $-1, %%rdx\n\tmov $-1, %%rsi\n"
			 "\tmov $-1, %%rdi\n\tmov $-1, %%r8\n\tmov $-1, %%r9\n"
			 "\tmov $-1, %%r10\n\tmov $-1, %%r11\n"
			 ".irp k,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
			 "\tpcmpeqd %%xmm\\k, %%xmm\\k\n"
			 ".endr\n" ::
				 : "rcx", "rdx", "rsi", "rdi", "r8", "r9",
				   "r10", "r11", "xmm0", "xmm1", "xmm2", "xmm3",
				   "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
				   "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",
				   "xmm14", "xmm15");
}

#define GPRS 0xffUL
#define XMM(lo, hi) (((1UL << ((hi) + 1)) - 1) & ~((1UL << (lo)) - 1)) << 8

/* Hook fn, call it through the checking caller: the registers in `kept`
 * (what its convention keeps for its callers) must be intact. */
static void check(const char *name, void *fn, unsigned long kept)
{
	unsigned long mask = 0;
	int st = dyncall_fn_hook(fn, clobber, NULL);
	long r;

	runs = 0;
	r = call_and_check(fn, 41, &mask);
	printf("%s: hook %d clobbered 0x%lx result %ld\n", name, st, mask & kept,
	       r);
}

int main(void)
{
	unsigned long mask;
	int st = dyncall_fn_hook((void *)plain_fn, clobber, NULL);
	long r;

	runs = 0;
	r = call_and_check((void *)plain_fn, 41, &mask);
	printf("plain: hook %d ran %ld result %ld\n", st, runs, r);
	/* ms_abi: rsi, rdi and xmm6-15 are callee-saved */
	check("ms_abi", (void *)ms_abi_fn, 0xc | XMM(6, 15));
	/* every register but the result's (GCC keeps no vector state in
	 * such a function: the general registers only) */
	check("no_caller_saved_registers", (void *)ncsr_fn, GPRS);
#ifdef __clang__
	/* preserve_all: every general register but r11, and xmm0-15 */
	check("preserve_all", (void *)pall_fn, 0x7f | XMM(0, 15));
	/* preserve_most: every general register but r11 */
	check("preserve_most", (void *)pmost_fn, 0x7f);
#endif
	st = dyncall_fn_hook((void *)hookp_fn, clobber, NULL);
	runs = 0;
	r = call_and_check((void *)hookp_fn, 41, &mask);
	printf("ms_hook_prologue: hook %d ran %ld result %ld\n", st, runs, r);
	return 0;
}
